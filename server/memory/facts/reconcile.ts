/**
 * Fact extraction, the answer half: a model's `memo_facts` answer checked and turned into facts to write.
 * Nothing in it is trusted. An answer that is empty, over MAX_ANSWER_CHARS, not JSON or not the schema's
 * shape is rejected as a whole (the caller records the attempt; the exchange stays as it is). Inside a good
 * answer: ids that were not listed with the request are dropped (never looked up, so another person's fact
 * id is as unknown as a made-up one), texts that are empty or too long are dropped, facts beyond the cap
 * per exchange are dropped, and a fact that says again what a current fact says is skipped.
 *
 * validFrom: a date the fact's own text gives (chrono-node, relative to the exchange's time: the store's
 * deriveValidFrom); a date after the exchange is about a plan, not about when the fact became true, so then —
 * and when the text names no date — the exchange's time. No pattern here finds facts: they come from the model only.
 */
import {
  type CandidateFact,
  type ExchangeForFacts,
  MAX_LEARNED_FACT_CHARS,
  MAX_FACTS_PER_EXCHANGE,
  MAX_REPLACES,
} from "./extract";
import { deriveValidFrom } from "./valid-from";

/** A longer answer is not a list of short facts: rejected unread. */
export const MAX_ANSWER_CHARS = 32_000;

export type BadOutputKind = "empty" | "not_json" | "wrong_shape" | "huge";

export interface PlannedFact {
  text: string;
  /** Index into the request's exchanges (0-based). */
  exchange: number;
  /** Listed candidate ids this fact replaces (checked). */
  replaces: string[];
  validFrom: string;
}

/** What was dropped from a good answer, and why (recorded with the attempt). */
export interface CheckReport {
  /** Ids an answer named that were not listed with the request. */
  unknownIds: string[];
  emptyOrMalformed: number;
  tooLong: number;
  overCap: number;
  duplicates: number;
}

export type CheckedAnswer =
  | { ok: true; facts: PlannedFact[]; report: CheckReport }
  | { ok: false; kind: BadOutputKind; detail: string };

/** Text compared for "says the same": case, spacing and a final full stop do not count. */
export function sameText(s: string): string {
  return s
    .normalize("NFC")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!]+$/, "")
    .toLowerCase();
}

function unfence(raw: string): string {
  const t = raw.trim();
  // Some models wrap JSON in a Markdown fence even when asked for JSON only.
  const m = t.match(/^```(?:json)?\s*\n([\s\S]*?)\n?```$/i);
  return m ? m[1]!.trim() : t;
}

/** When a fact became true: a past date its text gives, relative to the exchange (valid-from.ts), else the exchange's time. */
export function validFromOf(text: string, at: string): string {
  return deriveValidFrom(text, [at]);
}

const bad = (kind: BadOutputKind, detail: string): CheckedAnswer => ({ ok: false, kind, detail });

/**
 * Check an answer against its request. `isCurrent(text)` says whether a current fact of the space already
 * says this (a duplicate is skipped); the listed candidates are compared here too.
 */
export function checkAnswer(
  raw: string,
  req: { exchanges: ExchangeForFacts[]; candidates: CandidateFact[] },
  isCurrent: (text: string) => boolean = () => false,
): CheckedAnswer {
  if (typeof raw !== "string" || !raw.trim()) return bad("empty", "the model answered nothing");
  if (raw.length > MAX_ANSWER_CHARS)
    return bad("huge", `the answer is ${raw.length} characters (at most ${MAX_ANSWER_CHARS})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfence(raw));
  } catch (e) {
    return bad("not_json", `the answer is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const list = (parsed as { facts?: unknown } | null)?.facts;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !Array.isArray(list))
    return bad("wrong_shape", 'the answer is not an object with a "facts" array');
  const n = req.exchanges.length;
  if (list.length > MAX_FACTS_PER_EXCHANGE * n * 4)
    return bad("huge", `the answer lists ${list.length} facts for ${n} exchange(s)`);

  const listed = new Map(req.candidates.map((c) => [c.id, c]));
  const candidateTexts = new Set(req.candidates.map((c) => sameText(c.text)));
  const report: CheckReport = { unknownIds: [], emptyOrMalformed: 0, tooLong: 0, overCap: 0, duplicates: 0 };
  const perExchange = new Array<number>(n).fill(0);
  const seen = new Set<string>();
  // Per exchange: a listed fact named by facts of LATER exchanges too is replaced in turn (apply.ts chains them).
  const replacedBy = Array.from({ length: n }, () => new Set<string>());
  const facts: PlannedFact[] = [];
  let wellFormed = 0;
  for (const item of list) {
    const f = item as { text?: unknown; replaces?: unknown; exchange?: unknown } | null;
    const ex = f && typeof f === "object" ? (f.exchange === undefined && n === 1 ? 1 : f.exchange) : undefined;
    if (
      !f ||
      typeof f !== "object" ||
      typeof f.text !== "string" ||
      (f.replaces !== undefined && !Array.isArray(f.replaces)) ||
      typeof ex !== "number" ||
      !Number.isInteger(ex) ||
      ex < 1 ||
      ex > n
    ) {
      report.emptyOrMalformed++;
      continue;
    }
    wellFormed++;
    const text = f.text.replace(/\s+/g, " ").trim();
    if (!text) {
      report.emptyOrMalformed++;
      continue;
    }
    if (text.length > MAX_LEARNED_FACT_CHARS) {
      report.tooLong++;
      continue;
    }
    const key = sameText(text);
    if (seen.has(key) || candidateTexts.has(key) || isCurrent(text)) {
      report.duplicates++;
      continue;
    }
    if (perExchange[ex - 1]! >= MAX_FACTS_PER_EXCHANGE) {
      report.overCap++;
      continue;
    }
    const replaces: string[] = [];
    for (const id of (f.replaces as unknown[] | undefined) ?? []) {
      if (typeof id !== "string" || !listed.has(id)) {
        report.unknownIds.push(String(id).slice(0, 80));
        continue;
      }
      // Named twice for one exchange (by this fact or an earlier one): the first fact that names it replaces it.
      if (replacedBy[ex - 1]!.has(id) || replaces.length >= MAX_REPLACES) continue;
      replacedBy[ex - 1]!.add(id);
      replaces.push(id);
    }
    seen.add(key);
    perExchange[ex - 1]!++;
    facts.push({ text, exchange: ex - 1, replaces, validFrom: validFromOf(text, req.exchanges[ex - 1]!.at) });
  }
  if (list.length > 0 && wellFormed === 0)
    return bad("wrong_shape", `none of the ${list.length} listed facts has the schema's shape`);
  return { ok: true, facts, report };
}

/** The report as one line for the attempt's record (empty when nothing was dropped). */
export function describeReport(r: CheckReport): string {
  const parts: string[] = [];
  if (r.unknownIds.length) parts.push(`${r.unknownIds.length} unknown fact id(s) dropped`);
  if (r.emptyOrMalformed) parts.push(`${r.emptyOrMalformed} empty or malformed fact(s) dropped`);
  if (r.tooLong) parts.push(`${r.tooLong} over-long fact(s) dropped`);
  if (r.overCap) parts.push(`${r.overCap} fact(s) over the cap dropped`);
  if (r.duplicates) parts.push(`${r.duplicates} duplicate(s) of known facts skipped`);
  return parts.join("; ");
}
