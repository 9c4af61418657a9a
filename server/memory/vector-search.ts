import type Database from "better-sqlite3";

export interface VectorHit {
  rid: number;
  /** Cosine similarity, 1 − cosine distance. */
  similarity: number;
}

/**
 * Exact cosine KNN over the live vectors of one space (vec0 partition), best first. vec0 holds only
 * live memories, so no soft-delete filter is needed here.
 */
export function vectorSearch(db: Database.Database, spaceId: string, query: Float32Array, k: number): VectorHit[] {
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
