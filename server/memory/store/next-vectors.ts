/**
 * The re-index's vector table (server/memory/index/reindex.ts): `memory_vec_next` collects every memory's
 * vector of the new model, then replaces memory_vec in one swap. The re-index decides when; the tables are
 * written here, with the store's other vector writes (write.ts and trash.ts route new vectors of the target
 * model into memory_vec_next while it exists). Statements here are prepared per call, not cached: the tables
 * they name are dropped and made again.
 */
import type Database from "better-sqlite3";
import { resetStatementCache } from "../../core/statements";
import { putVector } from "./vector-rows";

/** A vec0 vector table's columns (memory_vec's shape: KNN partitioned by space). */
const vec0Columns = (dim: number) =>
  `USING vec0(space_id text partition key, embedding float[${dim}] distance_metric=cosine)`;

/** Make memory_vec_next empty, for vectors of `dim` (one left by an abandoned re-index goes). */
export function createNextVectors(db: Database.Database, dim: number): void {
  db.exec("DROP TABLE IF EXISTS memory_vec_next");
  db.exec(`CREATE VIRTUAL TABLE memory_vec_next ${vec0Columns(dim)}`);
}

/** Abandon memory_vec_next and what it holds. */
export function dropNextVectors(db: Database.Database): void {
  db.exec("DROP TABLE IF EXISTS memory_vec_next");
}

/**
 * Write new vectors for memories read earlier (`rows[i]` gets `vectors[i]`); a row gone, edited since it was
 * read (its content hash differs) or already holding a new vector is left out. Returns how many were written.
 */
export function storeNextVectors(
  db: Database.Database,
  rows: { rid: number; contentHash: string }[],
  vectors: Float32Array[],
): number {
  const cur = db.prepare("SELECT space_id AS spaceId, content_hash AS contentHash FROM memories WHERE rid = ?");
  const has = db.prepare("SELECT 1 FROM memory_vec_next WHERE rowid = ?");
  const ins = db.prepare("INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)");
  let n = 0;
  rows.forEach((r, i) => {
    const m = cur.get(r.rid) as { spaceId: string; contentHash: string } | undefined;
    if (!m || m.contentHash !== r.contentHash || has.get(BigInt(r.rid))) return;
    const v = vectors[i]!;
    ins.run(BigInt(r.rid), m.spaceId, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    n++;
  });
  return n;
}

/**
 * Inside the swap's transaction, once every memory has a new vector: memory_vec is made again for `dim` and
 * filled from memory_vec_next (live memories; memory_vec_rows in step), the trash's vectors are replaced
 * (soft-deleted ones), memory_vec_next is dropped, and every memory names `model`. Returns how many
 * memories were moved. (vec0 cannot rename its shadow tables, so the swap copies.)
 */
export function swapInNextVectors(db: Database.Database, model: string, dim: number): number {
  const rows = db.prepare("SELECT rid, space_id AS spaceId, soft_deleted AS sd FROM memories ORDER BY rid").all() as {
    rid: number;
    spaceId: string;
    sd: number;
  }[];
  db.exec("DROP TABLE memory_vec");
  db.exec(`CREATE VIRTUAL TABLE memory_vec ${vec0Columns(dim)}`);
  resetStatementCache(db); // putVector's cached statement named the dropped table
  db.exec("DELETE FROM memory_vec_rows");
  const get = db.prepare("SELECT embedding FROM memory_vec_next WHERE rowid = ?");
  const park = db.prepare("INSERT OR REPLACE INTO memory_vec_trash (rid, embedding) VALUES (?, ?)");
  for (const r of rows) {
    const e = (get.get(BigInt(r.rid)) as { embedding: Buffer }).embedding;
    if (r.sd) park.run(r.rid, e);
    else putVector(db, r.rid, r.spaceId, e);
  }
  db.exec("DROP TABLE memory_vec_next");
  db.prepare("UPDATE memories SET embedding_model = ? WHERE embedding_model <> ?").run(model, model);
  return rows.length;
}
