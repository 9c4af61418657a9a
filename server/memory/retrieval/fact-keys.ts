/**
 * Facts as extra recall keys of their source memories (issue 42 §3, docs/retrieval.md#facts): a question
 * that matches a fact finds the exchange it came from. Each fact of the space is scored like a memory —
 * bm25 over the space's own fact table, cosine of its stored vector — and a memory takes the best scores of
 * its facts as two more signals of the union. The fact legs' best facts bring their sources into the union.
 * Current and replaced facts are keys alike (a replaced fact still says what its exchange was about);
 * which of them the prompt may state is packing's decision (fact-block.ts).
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { factWrites, keywordKey, spaceWrites } from "../store";
import { blobToVector } from "../store/rows";
import { keywordSearchScored, type KeywordOptions } from "./keyword-search";
import { unitCosine } from "./cosine";

/** A live fact of the space as retrieval sees it. */
export interface FactKey {
  rid: number;
  id: string;
  text: string;
  validFrom: string;
  validTo: string | null;
  supersededBy: string | null;
  /** Its live source memories' rids. */
  sources: number[];
  /** Its vector when made by the query's model; null otherwise. */
  vector: Float32Array | null;
}

/** A fact with its scores for one query. */
export interface ScoredFact extends FactKey {
  /** −bm25 in the space's fact table (0: no keyword match). */
  keyword: number;
  /** Cosine to the query (null: no vector of this model). */
  cosine: number | null;
}

export interface FactKeys {
  /** Per memory rid: the best −bm25 of its facts (keyword matches only). */
  keyword: Map<number, number>;
  /** Per memory rid: the best cosine of its facts to the query. */
  vector: Map<number, number>;
  /** Per memory rid: the fact that scored it best (what `via` names). */
  best: Map<number, ScoredFact>;
  /** Memories the fact legs found (their best facts' sources), with the better of the two legs' ranks. */
  found: Map<number, number>;
  /** The fact keyword leg's bm25 ceiling (Σ idf of its kept terms; 0 without terms). */
  ceiling: number;
  /** The share of the query's words found in any of the space's facts (the fact leg's `known`). */
  known: number;
  /** Every scored fact, by fact rid. */
  facts: Map<number, ScoredFact>;
}

export const NO_FACT_KEYS: FactKeys = {
  keyword: new Map(),
  vector: new Map(),
  best: new Map(),
  found: new Map(),
  ceiling: 0,
  known: 0,
  facts: new Map(),
};

const cache = new WeakMap<Database.Database, Map<string, { version: string; facts: FactKey[] }>>();

/**
 * The live source memories of the space's live facts. Memories are read by id (the unary + keeps SQLite off
 * the space's memory index, which scanned every memory of the space for each fact; docs/benchmarks.md).
 */
export const FACT_SOURCES_SQL = `SELECT s.fact_id AS factId, m.rid FROM fact_sources s JOIN facts f ON f.id = s.fact_id
       JOIN memories m ON m.id = s.memory_id
     WHERE f.space_id = ? AND f.deleted_at IS NULL AND +m.soft_deleted = 0 AND +m.space_id = f.space_id ORDER BY m.rid`;

/**
 * The space's live facts with their live sources and vectors, cached until the space's facts or memories
 * change (its own fact_writes and writes: another space's never refresh it).
 */
export function spaceFacts(db: Database.Database, spaceId: string, model: string): FactKey[] {
  const key = keywordKey(db, spaceId);
  if (key === undefined) return [];
  const version = `${key}:${factWrites(db, spaceId)}:${spaceWrites(db, spaceId)}:${model}`;
  let byDb = cache.get(db);
  if (!byDb) cache.set(db, (byDb = new Map()));
  const hit = byDb.get(spaceId);
  if (hit?.version === version) return hit.facts;
  const rows = stmt(
    db,
    `SELECT f.rid, f.id, f.text, f.valid_from AS validFrom, f.valid_to AS validTo, f.superseded_by AS supersededBy,
       f.embedding_model AS model, v.embedding
     FROM facts f LEFT JOIN fact_vectors v ON v.rid = f.rid
     WHERE f.space_id = ? AND f.deleted_at IS NULL ORDER BY f.rid`,
  ).all(spaceId) as (Omit<FactKey, "sources" | "vector"> & { model: string; embedding: Buffer | null })[];
  const sources = new Map<string, number[]>();
  for (const s of stmt(db, FACT_SOURCES_SQL).all(spaceId) as { factId: string; rid: number }[])
    sources.set(s.factId, [...(sources.get(s.factId) ?? []), s.rid]);
  const facts = rows
    .map(({ model: m, embedding, ...f }) => ({
      ...f,
      sources: sources.get(f.id) ?? [],
      vector: embedding && m === model ? blobToVector(embedding) : null,
    }))
    .filter((f) => f.sources.length > 0);
  byDb.set(spaceId, { version, facts });
  return facts;
}

/** How strongly a fact matches the query: its keyword share plus its cosine (both in [0, 1]-ish units). */
export function factStrength(f: Pick<ScoredFact, "keyword" | "cosine">, ceiling: number): number {
  return (ceiling > 0 ? f.keyword / ceiling : 0) + Math.max(0, f.cosine ?? 0);
}

/** Each current fact's strength for the query, by fact id (what orders the profile's lines in a prompt). */
export function currentFactStrengths(fk: FactKeys): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of fk.facts.values())
    if (f.validTo === null && f.supersededBy === null) out.set(f.id, factStrength(f, fk.ceiling));
  return out;
}

/**
 * Score the space's facts for one query and lift the scores to their source memories. `pool`: how many
 * facts each leg may bring into the union (their sources join it).
 */
export function factKeys(
  db: Database.Database,
  spaceId: string,
  query: { text: string; vector: Float32Array | null; model: string },
  pool: number,
  keywordOpts: KeywordOptions,
): FactKeys {
  const all = spaceFacts(db, spaceId, query.model);
  if (all.length === 0) return NO_FACT_KEYS;
  const kw = keywordSearchScored(db, spaceId, query.text, pool, keywordOpts, "fact");
  const scored = new Map<number, ScoredFact>();
  for (const f of all) {
    const cosine = query.vector && f.vector ? unitCosine(query.vector, f.vector) : null;
    scored.set(f.rid, { ...f, keyword: kw.scores.get(f.rid) ?? 0, cosine });
  }
  const out: FactKeys = { ...NO_FACT_KEYS, keyword: new Map(), vector: new Map(), best: new Map(), found: new Map() };
  out.ceiling = kw.ceiling;
  out.known = kw.known;
  out.facts = scored;
  // The fact that speaks for a memory: the best by keyword share plus cosine (both in [0, 1]-ish units).
  const strength = (f: ScoredFact) => factStrength(f, kw.ceiling);
  for (const f of scored.values())
    for (const rid of f.sources) {
      if (f.keyword > 0) out.keyword.set(rid, Math.max(out.keyword.get(rid) ?? 0, f.keyword));
      if (f.cosine !== null) out.vector.set(rid, Math.max(out.vector.get(rid) ?? -1, f.cosine));
      const b = out.best.get(rid);
      if ((f.keyword > 0 || f.cosine !== null) && (!b || strength(f) > strength(b))) out.best.set(rid, f);
    }
  const find = (rid: number, rank: number) => {
    const r = out.found.get(rid);
    if (r === undefined || rank < r) out.found.set(rid, rank);
  };
  kw.hits.forEach((h, i) => {
    for (const rid of scored.get(h.rid)?.sources ?? []) find(rid, i + 1);
  });
  [...scored.values()]
    .filter((f) => f.cosine !== null)
    .sort((a, b) => b.cosine! - a.cosine! || a.rid - b.rid)
    .slice(0, pool)
    .forEach((f, i) => {
      for (const rid of f.sources) find(rid, i + 1);
    });
  return out;
}
