/**
 * The live vectors, written to memory_vec (vec0: KNN) and to memory_vec_rows (a plain table: fast reads
 * by rid) in step. Every write of a live vector goes through here; see drizzle/0015_vector_rows.sql for why
 * the copy exists.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";

/** Add (or replace) a live memory's vector. A rid freed by a purge may be reused, hence REPLACE in the copy. */
export function putVector(db: Database.Database, rid: number, spaceId: string, embedding: Buffer): void {
  stmt(db, "INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)").run(BigInt(rid), spaceId, embedding);
  stmt(db, "INSERT OR REPLACE INTO memory_vec_rows (rid, embedding) VALUES (?, ?)").run(rid, embedding);
}

/** Remove a memory's live vector (soft delete, purge, a space deleted, a vector about to be replaced). */
export function dropVector(db: Database.Database, rid: number): void {
  stmt(db, "DELETE FROM memory_vec WHERE rowid = ?").run(BigInt(rid));
  stmt(db, "DELETE FROM memory_vec_rows WHERE rid = ?").run(rid);
}

/**
 * After memory_vec was recreated wholesale (a model bound to an empty store): copy it again. A store opened
 * with migrations older than 0015 (the migration tests) has no copy yet; 0015 will fill it.
 */
export function recopyVectors(db: Database.Database): void {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_vec_rows'").get()) return;
  db.exec("DELETE FROM memory_vec_rows");
  db.exec("INSERT INTO memory_vec_rows (rid, embedding) SELECT rowid, embedding FROM memory_vec");
}

const toFloat = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * Stored vectors of some live memories (unit length), in one statement over the copy. A rid the copy lacks
 * (a store written by a build without it) is read from vec0, so a gap costs time, never a wrong score.
 */
export function storedVectors(db: Database.Database, rids: number[]): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  if (rids.length === 0) return out;
  const rows = stmt(
    db,
    "SELECT r.rid AS rid, r.embedding AS embedding FROM json_each(?) j JOIN memory_vec_rows r ON r.rid = j.value",
  ).all(JSON.stringify(rids)) as { rid: number; embedding: Buffer }[];
  for (const r of rows) out.set(r.rid, toFloat(r.embedding));
  if (out.size < rids.length) {
    const read = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
    for (const rid of rids) {
      if (out.has(rid)) continue;
      const r = read.get(BigInt(rid)) as { embedding: Buffer } | undefined;
      if (r) out.set(rid, toFloat(r.embedding));
    }
  }
  return out;
}
