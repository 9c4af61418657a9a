/**
 * Searching one space's facts: the keyword leg (bm25 over the space's own kw_f_<n> table) and an exact
 * cosine over every live fact vector of the space made with the query's model (a space's facts are few;
 * vectors of another model, left by a re-index in progress, are never compared). Each candidate carries both
 * scores; the order is reciprocal-rank fusion of the two legs. Ranking for recall is the caller's.
 */
import type Database from "better-sqlite3";
import { visibleScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import { buildFtsQuery } from "../retrieval/keyword-search";
import { matchText } from "../store/keyword-index";
import { boundModel } from "../store/model";
import { blobToVector, reindexTarget } from "../store/rows";
import { FACT_COLUMNS, rowToFact, type FactRow } from "./rows";

export interface FactQuery {
  /** The question's text, for the keyword leg. */
  text: string;
  /** The question embedded with the query prefix, for the cosine leg; absent: keyword leg only. */
  vector?: Float32Array;
  /** The model that made `vector`; default the model the embedder serves (a re-index's target, else the bound one). */
  model?: string;
}

export interface FactHit {
  fact: FactRow;
  /** FTS5 bm25 in the space's fact table (lower is better; negative); null: no keyword match. */
  bm25: number | null;
  /** Cosine with the query vector; null: no vector given, or the fact's vector is of another model. */
  cosine: number | null;
  /** Reciprocal-rank fusion of the two legs' ranks (what the hits are ordered by). */
  score: number;
}

/** RRF's constant (the memories' fusion uses the same). */
const RRF_K = 60;

/** Cosine of two vectors (NaN for different lengths, 0 for a zero vector). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.NaN;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The k best facts of a space for a query (current ones; with `history`, replaced ones too), or none when
 * the acting person may not read the space.
 */
export function searchFacts(
  db: Database.Database,
  spaceId: string,
  query: FactQuery,
  k: number,
  opts: { history?: boolean } = {},
): FactHit[] {
  if (!stmt(db, `SELECT 1 FROM spaces WHERE id = ? AND ${visibleScan("id")}`).get(spaceId)) return [];
  const current = opts.history ? "" : " AND f.superseded_by IS NULL AND f.valid_to IS NULL";
  // Replaced facts are in the keyword table too (history stays searchable): only the eligible ones count.
  const eligible = new Set(
    (
      stmt(db, `SELECT f.rid FROM facts f WHERE f.space_id = ? AND f.deleted_at IS NULL${current}`).all(spaceId) as {
        rid: number;
      }[]
    ).map((r) => r.rid),
  );
  const keyword = new Map<number, number>();
  const expr = buildFtsQuery(null, spaceId, query.text);
  if (expr) for (const m of matchText(db, "fact", spaceId, expr)) if (eligible.has(m.rid)) keyword.set(m.rid, m.bm25);
  const cos = new Map<number, number>();
  if (query.vector) {
    const model = query.model ?? reindexTarget(db)?.model ?? boundModel(db)?.model;
    const rows = stmt(
      db,
      `SELECT v.rid, v.embedding FROM fact_vectors v JOIN facts f ON f.rid = v.rid
        WHERE v.space_id = ? AND f.embedding_model = ? AND f.deleted_at IS NULL${current}`,
    ).all(spaceId, model ?? "") as { rid: number; embedding: Buffer }[];
    for (const r of rows) {
      const c = cosine(query.vector, blobToVector(r.embedding));
      if (Number.isFinite(c)) cos.set(r.rid, c);
    }
  }
  const rank = (m: Map<number, number>, better: (a: number, b: number) => number) =>
    new Map([...m].sort((a, b) => better(a[1], b[1]) || a[0] - b[0]).map(([rid], i) => [rid, i + 1]));
  const kwRank = rank(keyword, (a, b) => a - b);
  const cosRank = rank(cos, (a, b) => b - a);
  const fused = [...new Set([...keyword.keys(), ...cos.keys()])].map((rid) => ({
    rid,
    score:
      (kwRank.has(rid) ? 1 / (RRF_K + kwRank.get(rid)!) : 0) + (cosRank.has(rid) ? 1 / (RRF_K + cosRank.get(rid)!) : 0),
  }));
  fused.sort((a, b) => b.score - a.score || a.rid - b.rid);
  const top = fused.slice(0, Math.max(0, k));
  if (top.length === 0) return [];
  const facts = new Map(
    (
      stmt(
        db,
        `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.rid IN (SELECT value FROM json_each(?)) AND f.space_id = ?
           AND f.deleted_at IS NULL${current}`,
      ).all(JSON.stringify(top.map((t) => t.rid)), spaceId) as Record<string, unknown>[]
    ).map((r) => [r.rid as number, rowToFact(r)]),
  );
  return top
    .filter((t) => facts.has(t.rid))
    .map((t) => ({
      fact: facts.get(t.rid)!,
      bm25: keyword.get(t.rid) ?? null,
      cosine: cos.get(t.rid) ?? null,
      score: t.score,
    }));
}
