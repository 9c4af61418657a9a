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
}

/** The derived memories among these rids (those with recorded sources), with their source memories' rids. */
export function derivedOf(db: Database.Database, rids: number[]): Map<number, DerivedMemory> {
  const out = new Map<number, DerivedMemory>();
  if (!rids.length) return out;
  const rows = stmt(
    db,
    `SELECT rid, derived_from AS d, novelty FROM memories
      WHERE rid IN (SELECT value FROM json_each(?)) AND derived_from IS NOT NULL`,
  ).all(JSON.stringify(rids)) as { rid: number; d: string; novelty: number | null }[];
  if (!rows.length) return out;
  const ridOf = stmt(db, "SELECT rid FROM memories WHERE id = ?");
  const factSources = stmt(
    db,
    "SELECT m.rid FROM fact_sources s JOIN memories m ON m.id = s.memory_id WHERE s.fact_id = ?",
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
    out.set(r.rid, { sources, novelty: r.novelty ?? 1 });
  }
  return out;
}
