import type { MatchType } from "./fuse";

export interface PackItem {
  content: string;
  timestamp: string;
  /** A later edit is shown beside the date, so "prefer the newer fact" sees it. */
  updatedAt?: string | null;
  matchType: MatchType;
  importance: number;
}

/** A cheap token estimate (≈4 characters per token for English); the budget is a guard, not a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Content as it appears in the block: trimmed, continuation lines indented under the bullet. */
function formatBody(content: string): string {
  return content.trim().replace(/\s*\n\s*/g, "\n  ");
}

/** One memory's entry; `body` is already formatted (formatBody). */
function entry(m: PackItem, body: string): string {
  const edited = m.updatedAt && m.updatedAt > m.timestamp ? ` (edited ${m.updatedAt.slice(0, 10)})` : "";
  const date = m.timestamp.slice(0, 10) + edited;
  return `- ${date}: ${body}\n  (match: ${m.matchType}, importance: ${m.importance})`;
}

/**
 * The [Relevant Memories] block for the system prompt (SPEC §1.6): at most topN memories, best first,
 * within a token budget. A memory that does not fit is skipped; if even the first does not, it is cut
 * (or skipped, when the room left is too small for a useful cut).
 * Returns the block ("" when nothing was recalled) and how many memories it holds.
 */
export function packMemories(items: PackItem[], topN: number, tokenBudget: number): { block: string; used: number } {
  const header = "[Relevant Memories]";
  let tokens = estimateTokens(header);
  const lines: string[] = [];
  for (const m of items.slice(0, topN)) {
    const body = formatBody(m.content);
    let e = entry(m, body);
    let t = estimateTokens(e) + 1;
    if (tokens + t > tokenBudget) {
      if (lines.length > 0) continue;
      const room = Math.max(0, (tokenBudget - tokens - estimateTokens(entry(m, "")) - 2) * 4);
      if (room < 40) continue; // too little room for a useful cut: skip it, a later one may fit
      // Cut the formatted body (its indentation counts against the budget too), never mid-indent.
      e = entry(m, body.slice(0, room).trimEnd() + "…");
      t = estimateTokens(e) + 1;
    }
    lines.push(e);
    tokens += t;
  }
  return lines.length ? { block: [header, ...lines].join("\n"), used: lines.length } : { block: "", used: 0 };
}
