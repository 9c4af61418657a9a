/** The write path: new memories (deduplicated by content hash), edits, retrieval counts, pins, document links. */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { stmt } from "../../core/statements";
import {
  COLUMNS,
  type MemoryRow,
  type NewMemory,
  type VectorWrite,
  bumpGeneration,
  contentHash,
  notify,
  nowIso,
  reindexTarget,
  rowToMemory,
  vecBlob,
} from "./rows";
import { dropVector, putVector } from "./vector-rows";
import { indexText, reindexText } from "./keyword-index";
import { ensureSpace } from "./spaces";
import { requireWritableSpace, writerFor } from "./shares";
import { mineScan, writableMemoryScan } from "../../core/acting";

export function findLiveByHash(db: Database.Database, spaceId: string, hash: string): MemoryRow | undefined {
  // `+soft_deleted`: look the hash up in memories_hash_idx; without statistics SQLite chose the (space, live)
  // index and scanned every live memory of the space per lookup (an import of n exchanges took O(n²)).
  const r = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND content_hash = ? AND +soft_deleted = 0 LIMIT 1`,
  ).get(spaceId, hash) as Record<string, unknown> | undefined;
  return r ? rowToMemory(r) : undefined;
}

/**
 * Write memories with their vectors: rows in memories, memory_vec and the space's keyword table, all in one
 * transaction (a throw anywhere leaves none of them). Returns the new ids in input order.
 */
export function insertMemories(
  db: Database.Database,
  items: NewMemory[],
  vectors: Float32Array[],
  embeddingModel: string,
): string[] {
  if (items.length !== vectors.length) throw new StoreError("one vector per memory is required", "INVALID");
  const insertMemory = stmt(
    db,
    `INSERT INTO memories (id, rid, space_id, content, timestamp, importance, pinned, kind, conversation_id,
       document_id, chunk_index, content_hash, embedding_model, created_at, written_by, speakers)
     VALUES (@id, @rid, @spaceId, @content, @timestamp, @importance, @pinned, @kind, @conversationId,
       @documentId, @chunkIndex, @contentHash, @embeddingModel, @createdAt, @writtenBy, @speakers)`,
  );
  // During a re-index, vectors of the new model go to memory_vec_next (the swap moves them); a rid freed
  // by a purge may be reused, so any vector left there under it is dropped first.
  const target = reindexTarget(db);
  const toNext = target !== undefined && target.model === embeddingModel;
  const insertNext = toNext
    ? stmt(db, "INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)")
    : null;
  const clearNext = target ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
  const maxRid = stmt(db, "SELECT coalesce(max(rid), 0) AS r FROM memories");
  const added: VectorWrite["added"] = [];
  const tx = db.transaction(() => {
    let rid = (maxRid.get() as { r: number }).r;
    const ids: string[] = [];
    const created = nowIso();
    for (let i = 0; i < items.length; i++) {
      const m = items[i]!;
      // Every memory write passes here: into the acting person's own space, or into another's only through
      // a read-write share (server/memory/store/shares.ts), the writer recorded.
      requireWritableSpace(db, m.spaceId);
      ensureSpace(db, m.spaceId);
      const id = crypto.randomUUID();
      rid++;
      const pinned = m.pinned ?? false;
      insertMemory.run({
        id,
        rid,
        spaceId: m.spaceId,
        content: m.content,
        timestamp: m.timestamp ?? created,
        importance: pinned ? 5 : (m.importance ?? 1),
        pinned: pinned ? 1 : 0,
        kind: m.kind ?? "chat",
        conversationId: m.conversationId ?? null,
        documentId: m.documentId ?? null,
        chunkIndex: m.chunkIndex ?? null,
        contentHash: contentHash(m.content),
        embeddingModel,
        createdAt: created,
        speakers: m.speakers?.length ? JSON.stringify(m.speakers) : null,
        writtenBy: writerFor(m.spaceId),
      });
      clearNext?.run(BigInt(rid));
      if (insertNext) insertNext.run(BigInt(rid), m.spaceId, vecBlob(vectors[i]!));
      else putVector(db, rid, m.spaceId, vecBlob(vectors[i]!));
      indexText(db, "memory", m.spaceId, rid, m.content);
      if (!toNext) added.push({ rid, spaceId: m.spaceId, vector: vectors[i]! });
      ids.push(id);
    }
    return { ids, generation: toNext ? 0 : bumpGeneration(db) };
  });
  const { ids, generation } = tx();
  notify(db, { added, removed: [], generation });
  return ids;
}

/** Replace a memory's content and vector in place (same id), in one transaction. */
export function updateMemoryContent(
  db: Database.Database,
  id: string,
  content: string,
  vector: Float32Array,
  model: string,
): void {
  const tx = db.transaction(() => {
    const r = stmt(db, "SELECT rid, space_id AS spaceId, soft_deleted AS sd FROM memories WHERE id = ?").get(id) as
      | { rid: number; spaceId: string; sd: number }
      | undefined;
    if (!r) throw new StoreError(`memory ${id} not found`, "NOT_FOUND");
    stmt(
      db,
      // A changed text moves the words, so the stored spans of who said them no longer hold (SET reads the old content).
      `UPDATE memories SET content = @content, content_hash = @hash, embedding_model = @model, updated_at = @at,
         speakers = CASE WHEN content = @content THEN speakers END WHERE rid = @rid`,
    ).run({ content, hash: contentHash(content), model, at: nowIso(), rid: r.rid });
    const target = reindexTarget(db);
    if (target) {
      // Re-index in progress: memory_vec_next must only hold vectors of current content. A vector of the
      // new model replaces it there (memory_vec keeps the old model's until the swap drops the table);
      // one of the old model leaves it to be re-embedded by the re-index.
      stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?").run(BigInt(r.rid));
      if (target.model === model) {
        stmt(db, "INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)").run(
          BigInt(r.rid),
          r.spaceId,
          vecBlob(vector),
        );
        if (!r.sd) reindexText(db, "memory", r.spaceId, r.rid, content);
        return null;
      }
    }
    if (r.sd) {
      stmt(db, "INSERT OR REPLACE INTO memory_vec_trash (rid, embedding) VALUES (?, ?)").run(r.rid, vecBlob(vector));
      return null;
    }
    dropVector(db, r.rid);
    putVector(db, r.rid, r.spaceId, vecBlob(vector));
    reindexText(db, "memory", r.spaceId, r.rid, content);
    return { rid: r.rid, spaceId: r.spaceId, generation: bumpGeneration(db) };
  });
  const w = tx();
  if (w) notify(db, { added: [{ rid: w.rid, spaceId: w.spaceId, vector }], removed: [], generation: w.generation });
}

/**
 * Retrieval promotion, a recall into a prompt counted (issue 43: a recall is its recaller's). Of the acting
 * person's own memory (or any, for work outside a request): retrieval_count + 1, last_retrieved_at, importance
 * + 1 (capped at 5), and an event naming the memory. Of a memory in a space shared with them: only their
 * event, naming nothing of the owner's — the memory's counters decide its owner's ranking and decay and show
 * in the owner's pages, and stay the owner's.
 */
export function recordRetrievals(db: Database.Database, ids: string[], at: string = nowIso()): void {
  if (ids.length === 0) return;
  const upd = stmt(
    db,
    `UPDATE memories SET retrieval_count = retrieval_count + 1, last_retrieved_at = ?,
       importance = min(5, importance + 1) WHERE id = ? AND soft_deleted = 0 AND ${mineScan("space_id")}`,
  );
  const log = stmt(
    db,
    `INSERT INTO retrieval_events (memory_id, space_id, person_id, at)
       SELECT CASE WHEN own THEN id END, CASE WHEN own THEN space_id END, coalesce((SELECT acting_person()), owner), ?
         FROM (SELECT m.id, m.space_id, s.person_id AS owner, ${mineScan("m.space_id")} AS own
                 FROM memories m JOIN spaces s ON s.id = m.space_id WHERE m.id = ? AND m.soft_deleted = 0)`,
  );
  db.transaction(() => {
    for (const id of ids) {
      upd.run(at, id);
      log.run(at, id);
    }
  })();
}

export function setPinned(db: Database.Database, id: string, pinned: boolean): boolean {
  const r = stmt(
    db,
    `UPDATE memories SET pinned = ?, importance = CASE WHEN ? THEN 5 ELSE importance END WHERE id = ? AND ${writableMemoryScan("space_id", "soft_deleted")}`,
  ).run(pinned ? 1 : 0, pinned ? 1 : 0, id);
  return r.changes > 0;
}

/**
 * Hand a memory from the document its row names to another document that links it too (its chunk there):
 * when `fromDocument` is unlinked, a shared chunk keeps naming a document that holds it. Nothing when the
 * row names another document already.
 */
export function handToDocument(
  db: Database.Database,
  id: string,
  fromDocument: string,
  toDocument: string,
  chunkIndex: number | null,
): void {
  stmt(db, "UPDATE memories SET document_id = ?, chunk_index = ? WHERE id = ? AND document_id = ?").run(
    toDocument,
    chunkIndex,
    id,
    fromDocument,
  );
}
