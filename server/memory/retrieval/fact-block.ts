/**
 * What a prompt is told Memo knows (issue 42 §3, docs/retrieval.md#facts): the "[What I know]" block of
 * the current facts that fit the question, each with its date, before the exchanges that back them. A fact
 * is a candidate only through a result: it is the fact that matched the result best (fact-keys.ts), and it
 * matched the question by its words or by its meaning clearly above the space's chance similarity; it is
 * packed when that result is (the confidence decides for facts exactly as for memories). A replaced fact is
 * stated only when the question's own dates fall in the time it held, and then says until when; otherwise
 * the fact that replaced it speaks instead — the old value is never presented as current.
 */
import type Database from "better-sqlite3";
import { dayIn, defaultOffsetMinutes } from "../../core/calendar";
import { stmt } from "../../core/statements";
import type { Features } from "./confidence-features";
import type { FactKeys } from "./fact-keys";
import { estimateTokens } from "./token-estimate";
import type { TimeIntent } from "./time-window";

/** A fact a result carries: the one that matched it, or (when that one was replaced) the one now current. */
export interface KnownFact {
  id: string;
  text: string;
  validFrom: string;
  /** When it stopped holding; null while current. */
  validTo: string | null;
  current: boolean;
  /** Who said it, when not the person asking (writers.ts factWriters): its line names them. */
  by?: string;
}

/** A fact's similarity feature at or above this (2 sd above the space's chance cosine) counts as a match by meaning. */
export const FACT_MEANING_MATCH = 0.25;

/**
 * The fact a result carries into packing, or undefined: its best fact when that matched the question
 * (words, or meaning ≥ FACT_MEANING_MATCH). A replaced one is kept when the question's dates fall in its
 * validity; otherwise its current successor stands for it.
 */
export function knownFactOf(
  db: Database.Database,
  fk: FactKeys,
  rid: number,
  f: Features | undefined,
  time: TimeIntent,
): KnownFact | undefined {
  const best = fk.best.get(rid);
  if (!best || !f || (f.factKeyword <= 0 && f.factSimilarity < FACT_MEANING_MATCH)) return undefined;
  const fact: KnownFact = {
    id: best.id,
    text: best.text,
    validFrom: best.validFrom,
    validTo: best.validTo,
    current: best.validTo === null && best.supersededBy === null,
  };
  if (fact.current || heldDuring(fact, time)) return fact;
  return currentSuccessor(db, best.id);
}

/** The question names a date window that overlaps the time the fact held. */
function heldDuring(f: KnownFact, time: TimeIntent): boolean {
  const from = Date.parse(f.validFrom);
  const to = f.validTo ? Date.parse(f.validTo) : Number.POSITIVE_INFINITY;
  return time.windows.some((w) => Date.parse(w.start) < to && Date.parse(w.end) >= from);
}

/** The current fact at the end of a replaced fact's chain, if it is live. */
function currentSuccessor(db: Database.Database, id: string): KnownFact | undefined {
  const next = stmt(db, "SELECT superseded_by AS next FROM facts WHERE id = ? AND deleted_at IS NULL");
  let at = id;
  for (let hops = 0; hops < 50; hops++) {
    const r = next.get(at) as { next: string | null } | undefined;
    if (!r) return undefined;
    if (r.next === null) break;
    at = r.next;
  }
  const f = stmt(
    db,
    `SELECT id, text, valid_from AS validFrom, valid_to AS validTo FROM facts
      WHERE id = ? AND deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL`,
  ).get(at) as Omit<KnownFact, "current"> | undefined;
  return f && f.id !== id ? { ...f, current: true } : undefined;
}

/** Distinct facts of the packed results, in their order (current first among equals). */
export function factsToPack(packed: { fact?: KnownFact }[]): KnownFact[] {
  const seen = new Set<string>();
  const out: KnownFact[] = [];
  for (const r of packed) if (r.fact && !seen.has(r.fact.id) && seen.add(r.fact.id)) out.push(r.fact);
  return [...out.filter((f) => f.current), ...out.filter((f) => !f.current)];
}

/** A fact's line: who said it (when not the person asking), its text and when it held, in the person's calendar days. */
export function factLine(f: KnownFact, tzOffsetMinutes?: number): string {
  const day = (iso: string) => dayIn(iso, tzOffsetMinutes ?? defaultOffsetMinutes(Date.parse(iso)));
  const text = f.by ? `${f.by} said: ${f.text}` : f.text;
  return f.current || !f.validTo
    ? `- ${text} (since ${day(f.validFrom)})`
    : `- ${text} (from ${day(f.validFrom)} until ${day(f.validTo)}; no longer so)`;
}

/** The [What I know] block within a token budget (whole lines only); empty without facts. */
export function factBlock(
  facts: KnownFact[],
  tokenBudget: number,
  tzOffsetMinutes?: number,
): { block: string; used: KnownFact[] } {
  const header = "[What I know]";
  let tokens = estimateTokens(header);
  const lines: string[] = [];
  const used: KnownFact[] = [];
  for (const f of facts) {
    const line = factLine(f, tzOffsetMinutes);
    const t = estimateTokens(line) + 1;
    if (tokens + t > tokenBudget) continue;
    lines.push(line);
    used.push(f);
    tokens += t;
  }
  return lines.length ? { block: [header, ...lines].join("\n"), used } : { block: "", used: [] };
}
