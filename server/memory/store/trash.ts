/** The trash: soft delete, restore, and purge from every table. */
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { stmt } from "../../core/statements";
import { hasNextVector } from "./read";
import { dropVector, putVector } from "./vector-rows";
import { indexText, unindexText } from "./keyword-index";
import { writableScan } from "../../core/acting";
import { type VectorWrite, blobToVector, bumpGeneration, notify, nowIso, reindexTarget } from "./rows";
import { forgetFactsOfMemories, purgeFactsOfMemories, restoreFactsOfMemories } from "../facts/cascade";

/**
 * Soft-delete: the memory leaves memory_vec (its vector parked in memory_vec_trash) and its keyword table, and
 * is flagged in memories, in one transaction — with the facts it was the last live source of
 * (server/memory/facts/cascade.ts). Returns the ids actually changed.
 */
export function softDeleteMemories(db: Database.Database, ids: string[], at: string = nowIso()): string[] {
  const get = stmt(
    db,
    `SELECT rid, space_id AS spaceId FROM memories WHERE id = ? AND soft_deleted = 0 AND ${writableScan("space_id")}`,
  );
  const readVec = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
  const park = stmt(db, "INSERT OR REPLACE INTO memory_vec_trash (rid, embedding) VALUES (?, ?)");
  const flag = stmt(db, "UPDATE memories SET soft_deleted = 1, deleted_at = ? WHERE rid = ?");
  const removed: VectorWrite["removed"] = [];
  const tx = db.transaction(() => {
    const changed: string[] = [];
    for (const id of ids) {
      const r = get.get(id) as { rid: number; spaceId: string } | undefined;
      if (!r) continue;
      const v = readVec.get(BigInt(r.rid)) as { embedding: Buffer } | undefined;
      if (v) park.run(r.rid, v.embedding);
      dropVector(db, r.rid);
      unindexText(db, "memory", r.spaceId, r.rid);
      flag.run(at, r.rid);
      removed.push({ rid: r.rid, spaceId: r.spaceId });
      changed.push(id);
    }
    forgetFactsOfMemories(db, changed, at);
    return { changed, generation: changed.length ? bumpGeneration(db) : 0 };
  });
  const { changed, generation } = tx();
  notify(db, { added: [], removed, generation });
  return changed;
}

/**
 * Undo a soft delete: vector back from memory_vec_trash, content back into its keyword table, and the facts
 * forgotten because it went back too (facts/cascade.ts), one transaction.
 */
export function restoreMemories(db: Database.Database, ids: string[]): string[] {
  const get = stmt(
    db,
    `SELECT rid, space_id AS spaceId, content FROM memories WHERE id = ? AND soft_deleted = 1 AND ${writableScan("space_id")}`,
  );
  const readTrash = stmt(db, "SELECT embedding FROM memory_vec_trash WHERE rid = ?");
  const unpark = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const unflag = stmt(db, "UPDATE memories SET soft_deleted = 0, deleted_at = NULL WHERE rid = ?");
  const added: VectorWrite["added"] = [];
  const tx = db.transaction(() => {
    const changed: string[] = [];
    for (const id of ids) {
      const r = get.get(id) as { rid: number; spaceId: string; content: string } | undefined;
      if (!r) continue;
      const v = readTrash.get(r.rid) as { embedding: Buffer } | undefined;
      if (!v && hasNextVector(db, r.rid)) {
        // Written and deleted during a re-index: its only vector is the new model's, in memory_vec_next.
        indexText(db, "memory", r.spaceId, r.rid, r.content);
        unflag.run(r.rid);
        changed.push(id);
        continue;
      }
      if (!v) throw new StoreError(`memory ${id} has no stored vector to restore`, "INVALID");
      putVector(db, r.rid, r.spaceId, v.embedding);
      indexText(db, "memory", r.spaceId, r.rid, r.content);
      unpark.run(r.rid);
      unflag.run(r.rid);
      added.push({ rid: r.rid, spaceId: r.spaceId, vector: blobToVector(v.embedding) });
      changed.push(id);
    }
    restoreFactsOfMemories(db, changed, nowIso());
    return { changed, generation: changed.length ? bumpGeneration(db) : 0 };
  });
  const { changed, generation } = tx();
  notify(db, { added, removed: [], generation });
  return changed;
}

/** Remove memories for good from all tables, live or soft-deleted, and the facts left with no source (facts/cascade.ts). */
export function purgeMemories(db: Database.Database, ids: string[]): number {
  const get = stmt(
    db,
    `SELECT rid, space_id AS spaceId, soft_deleted AS sd FROM memories WHERE id = ? AND ${writableScan("space_id")}`,
  );
  const delTrash = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const delEvents = stmt(db, "DELETE FROM retrieval_events WHERE memory_id = ?");
  const delLinks = stmt(db, "DELETE FROM document_chunks WHERE memory_id = ?");
  const delMem = stmt(db, "DELETE FROM memories WHERE rid = ?");
  const delNext = reindexTarget(db) ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
  const removed: VectorWrite["removed"] = [];
  const tx = db.transaction(() => {
    let n = 0;
    const gone: string[] = [];
    for (const id of ids) {
      const r = get.get(id) as { rid: number; spaceId: string; sd: number } | undefined;
      if (!r) continue;
      gone.push(id);
      dropVector(db, r.rid);
      if (!r.sd) unindexText(db, "memory", r.spaceId, r.rid);
      delTrash.run(r.rid);
      delEvents.run(id);
      delLinks.run(id);
      delNext?.run(BigInt(r.rid));
      delMem.run(r.rid);
      if (!r.sd) removed.push({ rid: r.rid, spaceId: r.spaceId });
      n++;
    }
    purgeFactsOfMemories(db, gone, nowIso());
    return { n, generation: removed.length ? bumpGeneration(db) : 0 };
  });
  const { n, generation } = tx();
  notify(db, { added: [], removed, generation });
  return n;
}
