import type Database from "better-sqlite3";
import { annFor } from "../index/ann-registry";

export interface VectorHit {
  rid: number;
  /** Cosine similarity, 1 − cosine distance. */
  similarity: number;
}

export type VectorSource = "ann" | "vec0";

/**
 * Cosine KNN over one space's live vectors, best first: the in-memory ANN index when ready and current,
 * else vec0's exact scan (both hold live memories only).
 */
export function vectorSearchWithSource(
  db: Database.Database,
  spaceId: string,
  query: Float32Array,
  k: number,
): { hits: VectorHit[]; source: VectorSource } {
  const ann = annFor(db)?.search(spaceId, query, k);
  if (ann) return { hits: ann, source: "ann" };
  return { hits: vec0Search(db, spaceId, query, k), source: "vec0" };
}

/** vectorSearchWithSource for several queries: one batched index call (ann-index.ts searchMany), or vec0 for each. */
export function vectorSearchManyWithSource(
  db: Database.Database,
  spaceId: string,
  queries: Float32Array[],
  k: number,
): { hits: VectorHit[][]; source: VectorSource } {
  const ann = annFor(db)?.searchMany(spaceId, queries, k);
  if (ann) return { hits: ann, source: "ann" };
  return { hits: queries.map((q) => vec0Search(db, spaceId, q, k)), source: "vec0" };
}

/** Exact KNN by vec0 (brute force over the space's partition). */
export function vec0Search(db: Database.Database, spaceId: string, query: Float32Array, k: number): VectorHit[] {
  const rows = db
    .prepare(
      "SELECT rowid AS rid, distance FROM memory_vec WHERE embedding MATCH ? AND k = ? AND space_id = ? ORDER BY distance",
    )
    .all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), Math.max(1, Math.min(k, 4096)), spaceId) as {
    rid: number;
    distance: number;
  }[];
  return rows.map((r) => ({ rid: r.rid, similarity: 1 - r.distance }));
}
