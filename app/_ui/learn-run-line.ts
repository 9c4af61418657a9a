/** What a learning run's line says it did (app/_ui/learn-facts.tsx), from the run's counts. */
export interface RunCounts {
  status: "running" | "stopped" | "done";
  factsAdded: number;
  done: number;
  total: number;
  /** Proposed replacements the person accepted, and dismissed (issue 48). */
  accepted: number;
  dismissed: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * "Learned: 2 facts from 3 of 3 memories · 1 proposed change accepted". A run whose only change was a
 * proposal the person accepted learned no fact directly, and its line says what happened instead of
 * "Learned: 0 facts" alone; changes still to confirm are linked after it by the page.
 */
export function runLine(r: RunCounts): string {
  const head = `${r.status === "stopped" ? "Stopped" : "Learned"}: ${plural(r.factsAdded, "fact", "facts")} from ${r.done} of ${plural(r.total, "memory", "memories")}`;
  const decided = [
    r.accepted > 0 && `${plural(r.accepted, "proposed change", "proposed changes")} accepted`,
    r.dismissed > 0 && `${r.dismissed} dismissed`,
  ].filter(Boolean);
  return [head, ...decided].join(" · ");
}
