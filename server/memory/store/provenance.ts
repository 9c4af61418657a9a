/**
 * Provenance of a stored exchange (issue 47, docs/retrieval.md#provenance; drizzle/0024_provenance.sql):
 * the memories and facts that were recalled into the prompt of the reply it stores, and how much of its
 * content is new relative to them. What the assistant restated from recall is derived, not evidence: ranking
 * reads this (retrieval/provenance.ts). Written in the exchange's own write transaction, by every path that
 * stores an exchange (the chat turn, the OpenAI-compatible API, recovery, "remember this anyway").
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { contentStems } from "../retrieval/keyword-search";

/** What a reply was given: the ids of the memories and facts in its prompt. */
export interface Provenance {
  memories: string[];
  facts: string[];
}

export const hasSources = (p: Provenance | null | undefined): p is Provenance =>
  Boolean(p && (p.memories.length > 0 || p.facts.length > 0));

/**
 * The share of the exchange's content stems (stopwords aside) found in none of its sources' texts: 0 when
 * every word it holds was already in what it was given, 1 when none was. An exchange without content words
 * adds nothing (0).
 */
export function exchangeNovelty(db: Database.Database, parts: string[], p: Provenance): number {
  const own = contentStems(parts.join("\n"));
  if (own.size === 0) return 0;
  const known = new Set<string>();
  const texts = [
    ...(p.memories.length
      ? (stmt(db, "SELECT content AS t FROM memories WHERE id IN (SELECT value FROM json_each(?))").all(
          JSON.stringify(p.memories),
        ) as { t: string }[])
      : []),
    ...(p.facts.length
      ? (stmt(db, "SELECT text AS t FROM facts WHERE id IN (SELECT value FROM json_each(?))").all(
          JSON.stringify(p.facts),
        ) as { t: string }[])
      : []),
  ];
  for (const { t } of texts) for (const s of contentStems(t)) known.add(s);
  let fresh = 0;
  for (const s of own) if (!known.has(s)) fresh++;
  return fresh / own.size;
}

/** Inside the exchange's write transaction: record on its memories what it was given and its novelty. */
export function recordProvenance(db: Database.Database, memoryIds: string[], p: Provenance, novelty: number): void {
  const set = stmt(db, "UPDATE memories SET derived_from = ?, novelty = ? WHERE id = ?");
  const json = JSON.stringify({ memories: p.memories, facts: p.facts });
  for (const id of memoryIds) set.run(json, novelty, id);
}

/** A derived memory as ranking sees it: the rids of the memories it was given (directly or as facts' sources). */
export interface DerivedMemory {
  sources: Set<number>;
  novelty: number;
  /**
   * A fact it was given and restated is no longer current — deleted, undone or replaced (issue 54): the
   * fact's text, so that ranking can say why it is not packed. Null: none.
   */
  retired: string | null;
}

/** A fact that is no longer current, with what it says that its successor (if any) does not: its value. */
interface RetiredFact {
  id: string;
  value: Set<string>;
  text: string;
}

/**
 * The facts among `ids` that are no longer current (deleted, undone, replaced), each with its value: its
 * content stems, less its successor's when it was replaced (what the replacement changed).
 */
function retiredFacts(db: Database.Database, ids: string[]): RetiredFact[] {
  if (!ids.length) return [];
  const rows = stmt(
    db,
    `SELECT f.id, f.text, s.text AS successor FROM facts f LEFT JOIN facts s ON s.id = f.superseded_by
      WHERE f.id IN (SELECT value FROM json_each(?))
        AND (f.deleted_at IS NOT NULL OR f.superseded_by IS NOT NULL OR f.valid_to IS NOT NULL)`,
  ).all(JSON.stringify(ids)) as { id: string; text: string; successor: string | null }[];
  return rows.map((r) => {
    const next = r.successor ? contentStems(r.successor) : new Set<string>();
    return { id: r.id, text: r.text, value: new Set([...contentStems(r.text)].filter((w) => !next.has(w))) };
  });
}

/** The assistant's words of a stored exchange (its speaker spans of role assistant; all of it without spans). */
function assistantWords(content: string, speakers: string | null): string {
  let spans: { role?: string; start: number; end: number }[] = [];
  try {
    spans = speakers ? (JSON.parse(speakers) as typeof spans) : [];
  } catch {
    spans = [];
  }
  if (!Array.isArray(spans) || !spans.length) return content;
  return spans
    .filter((s) => s.role === "assistant")
    .map((s) => content.slice(s.start, s.end))
    .join("\n");
}

/** Whether words carry a retired fact's value: more than half of its stems (the provenance guard's measure). */
function carries(words: Set<string>, f: RetiredFact): boolean {
  if (!f.value.size) return false;
  let n = 0;
  for (const w of f.value) if (words.has(w)) n++;
  return n * 2 > f.value.size;
}

/** The derived memories among these rids (those with recorded sources), with their source memories' rids. */
export function derivedOf(db: Database.Database, rids: number[]): Map<number, DerivedMemory> {
  const out = new Map<number, DerivedMemory>();
  if (!rids.length) return out;
  const rows = stmt(
    db,
    `SELECT rid, derived_from AS d, novelty, content, speakers FROM memories
      WHERE rid IN (SELECT value FROM json_each(?)) AND derived_from IS NOT NULL`,
  ).all(JSON.stringify(rids)) as {
    rid: number;
    d: string;
    novelty: number | null;
    content: string;
    speakers: string | null;
  }[];
  if (!rows.length) return out;
  const factsOfMemories = stmt(
    db,
    "SELECT DISTINCT fact_id AS id FROM fact_sources WHERE memory_id IN (SELECT value FROM json_each(?))",
  );
  const ridOf = stmt(db, "SELECT rid FROM memories WHERE id = ?");
  const factSources = stmt(
    db,
    "SELECT m.rid FROM fact_sources s JOIN memories m ON m.id = s.memory_id WHERE s.fact_id = ?",
  );
  const teaches = stmt(
    db,
    `SELECT 1 FROM fact_sources s JOIN facts f ON f.id = s.fact_id JOIN memories m ON m.id = s.memory_id
      WHERE m.rid = ? AND f.deleted_at IS NULL AND f.superseded_by IS NULL AND f.valid_to IS NULL LIMIT 1`,
  );
  for (const r of rows) {
    let p: Provenance;
    try {
      p = JSON.parse(r.d) as Provenance;
    } catch {
      continue; // a damaged record reads as not derived
    }
    const sources = new Set<number>();
    for (const id of p.memories ?? []) {
      const x = ridOf.get(id) as { rid: number } | undefined;
      if (x && x.rid !== r.rid) sources.add(x.rid);
    }
    for (const id of p.facts ?? [])
      for (const x of factSources.all(id) as { rid: number }[]) if (x.rid !== r.rid) sources.add(x.rid);
    // The facts it was given: stated in its prompt, or carried by a memory recalled for it.
    const given = new Set(p.facts ?? []);
    if (p.memories?.length)
      for (const x of factsOfMemories.all(JSON.stringify(p.memories)) as { id: string }[]) given.add(x.id);
    const retired = retiredFacts(db, [...given]);
    let restated: string | null = null;
    // An exchange that taught a current fact is its evidence (the person's change of it, say), not a copy.
    if (retired.length && !teaches.get(r.rid)) {
      const words = contentStems(assistantWords(r.content, r.speakers));
      restated = retired.find((f) => carries(words, f))?.text ?? null;
    }
    out.set(r.rid, { sources, novelty: r.novelty ?? 1, retired: restated });
  }
  return out;
}
