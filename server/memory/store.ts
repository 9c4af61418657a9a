import crypto from "node:crypto";
import type Database from "better-sqlite3";
import type { OpenedDb } from "../db";
import { StoreError } from "../core/errors";
import { getMeta, setMeta } from "../core/meta";
import { resetStatementCache, stmt } from "../core/statements";

export type MemoryKind = "chat" | "document" | "remember" | "import" | "consolidated";

export interface MemoryRow {
  id: string;
  rid: number;
  spaceId: string;
  content: string;
  timestamp: string;
  importance: number;
  retrievalCount: number;
  lastRetrievedAt: string | null;
  pinned: boolean;
  softDeleted: boolean;
  deletedAt: string | null;
  kind: MemoryKind;
  conversationId: string | null;
  documentId: string | null;
  chunkIndex: number | null;
  contentHash: string;
  embeddingModel: string;
  createdAt: string;
  /** When the content was last edited; null when never. */
  updatedAt: string | null;
}

export { recencyOf } from "./recency";

export interface NewMemory {
  spaceId: string;
  content: string;
  timestamp?: string;
  importance?: number;
  pinned?: boolean;
  kind?: MemoryKind;
  conversationId?: string | null;
  documentId?: string | null;
  chunkIndex?: number | null;
}

const COLUMNS = `id, rid, space_id AS spaceId, content, timestamp, importance, retrieval_count AS retrievalCount,
  last_retrieved_at AS lastRetrievedAt, pinned, soft_deleted AS softDeleted, deleted_at AS deletedAt, kind,
  conversation_id AS conversationId, document_id AS documentId, chunk_index AS chunkIndex,
  content_hash AS contentHash, embedding_model AS embeddingModel, created_at AS createdAt, updated_at AS updatedAt`;

function rowToMemory(r: Record<string, unknown>): MemoryRow {
  return { ...(r as unknown as MemoryRow), pinned: Boolean(r.pinned), softDeleted: Boolean(r.softDeleted) };
}

export function contentHash(content: string): string {
  return crypto.createHash("sha256").update(content.normalize("NFC").trim()).digest("hex");
}

export function nowIso(): string {
  return new Date().toISOString();
}

const vecBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** What one committed write did to memory_vec, for in-memory indexes that mirror it. */
export interface VectorWrite {
  added: { rid: number; spaceId: string; vector: Float32Array }[];
  removed: { rid: number; spaceId: string }[];
  /** The store's vec_generation after this write. */
  generation: number;
  /** The last vec_log entry this write made (its triggers' rows; see drizzle/0008_vector_write_log.sql). */
  seq?: number;
}

type VectorListener = (w: VectorWrite) => void;
const listeners = new WeakMap<Database.Database, Set<VectorListener>>();

/** Be told, after commit, of every change to the vectors of this connection's store. */
export function onVectorWrite(db: Database.Database, fn: VectorListener): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(fn);
  return () => set!.delete(fn);
}

/** Log position at the connection's last generation bump, read inside that write's transaction. */
const bumpSeq = new WeakMap<Database.Database, number>();

/** The newest vec_log entry (0 when empty). */
export function vecLogSeq(db: Database.Database): number {
  return (stmt(db, "SELECT coalesce(max(seq), 0) AS s FROM vec_log").get() as { s: number }).s;
}

/** Inside a write transaction: bump the generation that tells mirrors whether they are current. */
function bumpGeneration(db: Database.Database): number {
  const g = Number(getMeta(db, "vec_generation") ?? 0) + 1;
  setMeta(db, "vec_generation", String(g));
  bumpSeq.set(db, vecLogSeq(db));
  return g;
}

/**
 * Inside a write transaction that replaces vectors wholesale (a re-index swap): tell every mirror that
 * replaying the log cannot follow, so they rebuild.
 */
export function logVectorReset(db: Database.Database): void {
  stmt(db, "INSERT INTO vec_log (rid) VALUES (NULL)").run();
}

function notify(db: Database.Database, w: VectorWrite): void {
  const set = listeners.get(db);
  if (!set || (w.added.length === 0 && w.removed.length === 0)) return;
  if (w.generation) w.seq = bumpSeq.get(db);
  const held = heldWrites.get(db);
  if (held) return void held.push(w);
  for (const fn of set) fn(w);
}

/** Notifications of writes made inside writeTransaction(), held until it commits. */
const heldWrites = new WeakMap<Database.Database, VectorWrite[]>();

/**
 * Run several store writes (insertMemories, softDeleteMemories, ...) as ONE transaction: better-sqlite3
 * nests their own transactions as savepoints. Their vector notifications are held until the outer
 * transaction commits and dropped if it rolls back, so in-memory mirrors never see a write that did not happen.
 */
export function writeTransaction<T>(db: Database.Database, fn: () => T): T {
  if (heldWrites.has(db)) return db.transaction(fn)();
  const held: VectorWrite[] = [];
  heldWrites.set(db, held);
  let out: T;
  try {
    out = db.transaction(fn)();
  } finally {
    heldWrites.delete(db);
  }
  for (const w of held) notify(db, w);
  return out;
}

/**
 * While the store re-embeds for a new model (server/memory/reindex.ts), the model whose vectors
 * memory_vec_next collects. Writes with that model put their vector there instead of memory_vec.
 */
export function reindexTarget(db: Database.Database): { model: string; dim: number } | undefined {
  const model = getMeta(db, "reindex_model");
  const dim = Number(getMeta(db, "reindex_dim") ?? 0);
  return model && dim ? { model, dim } : undefined;
}

const blobToVector = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/** Dimension memory_vec was created with, read from its declaration. */
export function vectorTableDim(db: Database.Database): number | undefined {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'").get() as { sql: string } | undefined;
  const m = r?.sql.match(/float\[(\d+)\]/);
  return m ? Number(m[1]) : undefined;
}

function recreateVectorTable(db: Database.Database, dim: number): void {
  db.exec("DROP TABLE IF EXISTS memory_vec");
  db.exec(
    `CREATE VIRTUAL TABLE memory_vec USING vec0(space_id text partition key, embedding float[${dim}] distance_metric=cosine)`,
  );
  resetStatementCache(db);
}

/**
 * Bind the store to an embedding model. An empty store adopts the model (recreating memory_vec for its
 * dimension); a store holding vectors of another model refuses, since mixing vector spaces corrupts search.
 */
export function bindEmbeddingModel(db: Database.Database, model: string, dim: number): void {
  const storedModel = getMeta(db, "embedding_model");
  const storedDim = Number(getMeta(db, "embedding_dim") ?? 0) || undefined;
  if (storedModel === model && storedDim === dim && vectorTableDim(db) === dim) return;
  const tx = db.transaction(() => {
    const vectors =
      (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n +
      (db.prepare("SELECT count(*) AS n FROM memory_vec_trash").get() as { n: number }).n;
    if (storedModel && vectors > 0 && (storedModel !== model || storedDim !== dim)) {
      throw new StoreError(
        `The memory store holds vectors of ${storedModel} (${storedDim}-d) but the embedding server serves ${model} (${dim}-d). ` +
          `Start with the original model, or re-index the store for the new one.`,
        "MODEL_MISMATCH",
      );
    }
    if (vectorTableDim(db) !== dim) recreateVectorTable(db, dim);
    setMeta(db, "embedding_model", model);
    setMeta(db, "embedding_dim", String(dim));
  });
  tx();
}

export function boundModel(db: Database.Database): { model: string; dim: number } | undefined {
  const model = getMeta(db, "embedding_model");
  const dim = Number(getMeta(db, "embedding_dim") ?? 0);
  return model && dim ? { model, dim } : undefined;
}

export function ensureSpace(db: Database.Database, spaceId: string): void {
  stmt(db, "INSERT OR IGNORE INTO spaces (id) VALUES (?)").run(spaceId);
}

export function spaceExists(db: Database.Database, spaceId: string): boolean {
  return stmt(db, "SELECT 1 FROM spaces WHERE id = ?").get(spaceId) !== undefined;
}

export function listSpaces(db: Database.Database): string[] {
  return (stmt(db, "SELECT id FROM spaces ORDER BY id").all() as { id: string }[]).map((r) => r.id);
}

/** Every (table, column) with a foreign key to spaces(id): memories, conversations, documents, and any table added later. */
export function spaceReferences(db: Database.Database): { table: string; column: string }[] {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  const refs: { table: string; column: string }[] = [];
  for (const t of tables) {
    const fks = db.prepare(`SELECT "table" AS target, "from" AS col FROM pragma_foreign_key_list(?)`).all(t.name) as { target: string; col: string }[];
    for (const fk of fks) if (fk.target === "spaces") refs.push({ table: t.name, column: fk.col });
  }
  return refs;
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Rename a space, in one transaction: the new space row (keeping created_at), every row that refers to
 * the space (memories, conversations, documents, ...), and the vectors. memory_vec's partition key
 * cannot be updated, so each vector row is deleted and inserted again under the new partition; during
 * a re-index the same is done in memory_vec_next. Returns how many rows moved per table and how many
 * live vectors moved.
 */
export function renameSpace(db: Database.Database, from: string, to: string): { moved: Record<string, number>; vectors: number } {
  const write: VectorWrite = { added: [], removed: [], generation: 0 };
  const tx = db.transaction(() => {
    if (from === to) throw new StoreError("the new name is the same as the old one", "INVALID");
    if (!spaceExists(db, from)) throw new StoreError(`space '${from}' does not exist`, "NOT_FOUND");
    if (spaceExists(db, to)) throw new StoreError(`space '${to}' already exists`, "INVALID");
    const reindexing = reindexTarget(db) !== undefined;
    const readVec = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
    const delVec = stmt(db, "DELETE FROM memory_vec WHERE rowid = ?");
    const insVec = stmt(db, "INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)");
    stmt(db, "INSERT INTO spaces (id, created_at) SELECT ?, created_at FROM spaces WHERE id = ?").run(to, from);
    const rows = stmt(db, "SELECT rid, soft_deleted AS sd FROM memories WHERE space_id = ? ORDER BY rid").all(from) as { rid: number; sd: number }[];
    const moved: Record<string, number> = {};
    for (const ref of spaceReferences(db)) {
      const col = quoteIdent(ref.column);
      moved[ref.table] = db.prepare(`UPDATE ${quoteIdent(ref.table)} SET ${col} = ? WHERE ${col} = ?`).run(to, from).changes;
    }
    let vectors = 0;
    for (const { rid, sd } of rows) {
      if (reindexing) {
        // Vectors of the new model (live and soft-deleted memories alike) move partition too.
        const next = stmt(db, "SELECT embedding FROM memory_vec_next WHERE rowid = ?").get(BigInt(rid)) as { embedding: Buffer } | undefined;
        if (next) {
          stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?").run(BigInt(rid));
          stmt(db, "INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)").run(BigInt(rid), to, next.embedding);
        }
      }
      if (sd) continue; // a soft-deleted memory's vector is parked in memory_vec_trash, keyed by rid alone
      const v = readVec.get(BigInt(rid)) as { embedding: Buffer } | undefined;
      if (!v) {
        if (reindexing && hasNextVector(db, rid)) continue; // written during the re-index: its only vector is in memory_vec_next
        throw new StoreError(`memory rid ${rid} has no vector; the store is inconsistent, nothing was renamed`, "INVALID");
      }
      delVec.run(BigInt(rid));
      insVec.run(BigInt(rid), to, v.embedding);
      write.removed.push({ rid, spaceId: from });
      write.added.push({ rid, spaceId: to, vector: blobToVector(v.embedding) });
      vectors++;
    }
    stmt(db, "DELETE FROM spaces WHERE id = ?").run(from);
    if (vectors) write.generation = bumpGeneration(db);
    return { moved, vectors };
  });
  const out = tx();
  notify(db, write);
  return out;
}

/**
 * Delete a space and everything in it, in one transaction: its memories from every table (live and
 * soft-deleted, with parked vectors), then the rows of every other table that refers to the space
 * (conversations with their messages by cascade, documents, ...), then the space. Returns rows removed per table.
 */
export function deleteSpace(db: Database.Database, spaceId: string): { removed: Record<string, number> } {
  const delVec = stmt(db, "DELETE FROM memory_vec WHERE rowid = ?");
  const delFts = stmt(db, "DELETE FROM memory_fts WHERE rowid = ?");
  const delTrash = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const write: VectorWrite = { added: [], removed: [], generation: 0 };
  const tx = db.transaction(() => {
    if (!spaceExists(db, spaceId)) throw new StoreError(`space '${spaceId}' does not exist`, "NOT_FOUND");
    const rows = stmt(db, "SELECT rid, soft_deleted AS sd FROM memories WHERE space_id = ?").all(spaceId) as { rid: number; sd: number }[];
    const delNext = reindexTarget(db) ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
    for (const r of rows) {
      delVec.run(BigInt(r.rid));
      delFts.run(BigInt(r.rid));
      delTrash.run(r.rid);
      delNext?.run(BigInt(r.rid));
      if (!r.sd) write.removed.push({ rid: r.rid, spaceId });
    }
    stmt(db, "DELETE FROM document_chunks WHERE memory_id IN (SELECT id FROM memories WHERE space_id = ?)").run(spaceId);
    const removed: Record<string, number> = { memories: stmt(db, "DELETE FROM memories WHERE space_id = ?").run(spaceId).changes };
    for (const ref of spaceReferences(db)) {
      if (ref.table === "memories") continue;
      const col = quoteIdent(ref.column);
      removed[ref.table] = (removed[ref.table] ?? 0) + db.prepare(`DELETE FROM ${quoteIdent(ref.table)} WHERE ${col} = ?`).run(spaceId).changes;
    }
    stmt(db, "DELETE FROM spaces WHERE id = ?").run(spaceId);
    if (write.removed.length) write.generation = bumpGeneration(db);
    return { removed };
  });
  const out = tx();
  notify(db, write);
  return out;
}

export function findLiveByHash(db: Database.Database, spaceId: string, hash: string): MemoryRow | undefined {
  const r = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND content_hash = ? AND soft_deleted = 0 LIMIT 1`,
  ).get(spaceId, hash) as Record<string, unknown> | undefined;
  return r ? rowToMemory(r) : undefined;
}

/**
 * Write memories with their vectors: rows in memories, memory_vec and memory_fts, all in one
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
       document_id, chunk_index, content_hash, embedding_model, created_at)
     VALUES (@id, @rid, @spaceId, @content, @timestamp, @importance, @pinned, @kind, @conversationId,
       @documentId, @chunkIndex, @contentHash, @embeddingModel, @createdAt)`,
  );
  // During a re-index, vectors of the new model go to memory_vec_next (the swap moves them); a rid freed
  // by a purge may be reused, so any vector left there under it is dropped first.
  const target = reindexTarget(db);
  const toNext = target !== undefined && target.model === embeddingModel;
  const insertVec = stmt(db, `INSERT INTO ${toNext ? "memory_vec_next" : "memory_vec"} (rowid, space_id, embedding) VALUES (?, ?, ?)`);
  const clearNext = target ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
  const insertFts = stmt(db, "INSERT INTO memory_fts (rowid, content) VALUES (?, ?)");
  const maxRid = stmt(db, "SELECT coalesce(max(rid), 0) AS r FROM memories");
  const added: VectorWrite["added"] = [];
  const tx = db.transaction(() => {
    let rid = (maxRid.get() as { r: number }).r;
    const ids: string[] = [];
    const created = nowIso();
    for (let i = 0; i < items.length; i++) {
      const m = items[i]!;
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
      });
      clearNext?.run(BigInt(rid));
      insertVec.run(BigInt(rid), m.spaceId, vecBlob(vectors[i]!));
      insertFts.run(BigInt(rid), m.content);
      if (!toNext) added.push({ rid, spaceId: m.spaceId, vector: vectors[i]! });
      ids.push(id);
    }
    return { ids, generation: toNext ? 0 : bumpGeneration(db) };
  });
  const { ids, generation } = tx();
  notify(db, { added, removed: [], generation });
  return ids;
}

export function getMemory(db: Database.Database, id: string): MemoryRow | undefined {
  const r = stmt(db, `SELECT ${COLUMNS} FROM memories WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? rowToMemory(r) : undefined;
}

export function getMemoriesByRid(db: Database.Database, rids: number[]): Map<number, MemoryRow> {
  const out = new Map<number, MemoryRow>();
  if (rids.length === 0) return out;
  const rows = stmt(db, `SELECT ${COLUMNS} FROM memories WHERE rid IN (SELECT value FROM json_each(?))`).all(
    JSON.stringify(rids),
  ) as Record<string, unknown>[];
  for (const r of rows) out.set(r.rid as number, rowToMemory(r));
  return out;
}

/**
 * Soft-delete: the memory leaves memory_vec (its vector parked in memory_vec_trash) and memory_fts, and
 * is flagged in memories, in one transaction. Returns the ids actually changed.
 */
export function softDeleteMemories(db: Database.Database, ids: string[], at: string = nowIso()): string[] {
  const get = stmt(db, "SELECT rid, space_id AS spaceId FROM memories WHERE id = ? AND soft_deleted = 0");
  const readVec = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
  const park = stmt(db, "INSERT OR REPLACE INTO memory_vec_trash (rid, embedding) VALUES (?, ?)");
  const delVec = stmt(db, "DELETE FROM memory_vec WHERE rowid = ?");
  const delFts = stmt(db, "DELETE FROM memory_fts WHERE rowid = ?");
  const flag = stmt(db, "UPDATE memories SET soft_deleted = 1, deleted_at = ? WHERE rid = ?");
  const removed: VectorWrite["removed"] = [];
  const tx = db.transaction(() => {
    const changed: string[] = [];
    for (const id of ids) {
      const r = get.get(id) as { rid: number; spaceId: string } | undefined;
      if (!r) continue;
      const v = readVec.get(BigInt(r.rid)) as { embedding: Buffer } | undefined;
      if (v) park.run(r.rid, v.embedding);
      delVec.run(BigInt(r.rid));
      delFts.run(BigInt(r.rid));
      flag.run(at, r.rid);
      removed.push({ rid: r.rid, spaceId: r.spaceId });
      changed.push(id);
    }
    return { changed, generation: changed.length ? bumpGeneration(db) : 0 };
  });
  const { changed, generation } = tx();
  notify(db, { added: [], removed, generation });
  return changed;
}

/** Undo a soft delete: vector back from memory_vec_trash, content back into memory_fts, one transaction. */
export function restoreMemories(db: Database.Database, ids: string[]): string[] {
  const get = stmt(db, "SELECT rid, space_id AS spaceId, content FROM memories WHERE id = ? AND soft_deleted = 1");
  const readTrash = stmt(db, "SELECT embedding FROM memory_vec_trash WHERE rid = ?");
  const unpark = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const insVec = stmt(db, "INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)");
  const insFts = stmt(db, "INSERT INTO memory_fts (rowid, content) VALUES (?, ?)");
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
        insFts.run(BigInt(r.rid), r.content);
        unflag.run(r.rid);
        changed.push(id);
        continue;
      }
      if (!v) throw new StoreError(`memory ${id} has no stored vector to restore`, "INVALID");
      insVec.run(BigInt(r.rid), r.spaceId, v.embedding);
      insFts.run(BigInt(r.rid), r.content);
      unpark.run(r.rid);
      unflag.run(r.rid);
      added.push({ rid: r.rid, spaceId: r.spaceId, vector: blobToVector(v.embedding) });
      changed.push(id);
    }
    return { changed, generation: changed.length ? bumpGeneration(db) : 0 };
  });
  const { changed, generation } = tx();
  notify(db, { added, removed: [], generation });
  return changed;
}

/** Remove memories for good from all tables, live or soft-deleted. */
export function purgeMemories(db: Database.Database, ids: string[]): number {
  const get = stmt(db, "SELECT rid, space_id AS spaceId, soft_deleted AS sd FROM memories WHERE id = ?");
  const delVec = stmt(db, "DELETE FROM memory_vec WHERE rowid = ?");
  const delFts = stmt(db, "DELETE FROM memory_fts WHERE rowid = ?");
  const delTrash = stmt(db, "DELETE FROM memory_vec_trash WHERE rid = ?");
  const delEvents = stmt(db, "DELETE FROM retrieval_events WHERE memory_id = ?");
  const delLinks = stmt(db, "DELETE FROM document_chunks WHERE memory_id = ?");
  const delMem = stmt(db, "DELETE FROM memories WHERE rid = ?");
  const delNext = reindexTarget(db) ? stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?") : null;
  const removed: VectorWrite["removed"] = [];
  const tx = db.transaction(() => {
    let n = 0;
    for (const id of ids) {
      const r = get.get(id) as { rid: number; spaceId: string; sd: number } | undefined;
      if (!r) continue;
      delVec.run(BigInt(r.rid));
      delFts.run(BigInt(r.rid));
      delTrash.run(r.rid);
      delEvents.run(id);
      delLinks.run(id);
      delNext?.run(BigInt(r.rid));
      delMem.run(r.rid);
      if (!r.sd) removed.push({ rid: r.rid, spaceId: r.spaceId });
      n++;
    }
    return { n, generation: removed.length ? bumpGeneration(db) : 0 };
  });
  const { n, generation } = tx();
  notify(db, { added: [], removed, generation });
  return n;
}

/** Replace a memory's content and vector in place (same id), in one transaction. */
export function updateMemoryContent(db: Database.Database, id: string, content: string, vector: Float32Array, model: string): void {
  const tx = db.transaction(() => {
    const r = stmt(db, "SELECT rid, space_id AS spaceId, soft_deleted AS sd FROM memories WHERE id = ?").get(id) as
      | { rid: number; spaceId: string; sd: number }
      | undefined;
    if (!r) throw new StoreError(`memory ${id} not found`, "NOT_FOUND");
    stmt(db, "UPDATE memories SET content = ?, content_hash = ?, embedding_model = ?, updated_at = ? WHERE rid = ?").run(
      content,
      contentHash(content),
      model,
      nowIso(),
      r.rid,
    );
    const target = reindexTarget(db);
    if (target) {
      // Re-index in progress: memory_vec_next must only hold vectors of current content. A vector of the
      // new model replaces it there (memory_vec keeps the old model's until the swap drops the table);
      // one of the old model leaves it to be re-embedded by the re-index.
      stmt(db, "DELETE FROM memory_vec_next WHERE rowid = ?").run(BigInt(r.rid));
      if (target.model === model) {
        stmt(db, "INSERT INTO memory_vec_next (rowid, space_id, embedding) VALUES (?, ?, ?)").run(BigInt(r.rid), r.spaceId, vecBlob(vector));
        if (!r.sd) {
          stmt(db, "DELETE FROM memory_fts WHERE rowid = ?").run(BigInt(r.rid));
          stmt(db, "INSERT INTO memory_fts (rowid, content) VALUES (?, ?)").run(BigInt(r.rid), content);
        }
        return null;
      }
    }
    if (r.sd) {
      stmt(db, "INSERT OR REPLACE INTO memory_vec_trash (rid, embedding) VALUES (?, ?)").run(r.rid, vecBlob(vector));
      return null;
    }
    stmt(db, "DELETE FROM memory_vec WHERE rowid = ?").run(BigInt(r.rid));
    stmt(db, "INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)").run(BigInt(r.rid), r.spaceId, vecBlob(vector));
    stmt(db, "DELETE FROM memory_fts WHERE rowid = ?").run(BigInt(r.rid));
    stmt(db, "INSERT INTO memory_fts (rowid, content) VALUES (?, ?)").run(BigInt(r.rid), content);
    return { rid: r.rid, spaceId: r.spaceId, generation: bumpGeneration(db) };
  });
  const w = tx();
  if (w) notify(db, { added: [{ rid: w.rid, spaceId: w.spaceId, vector }], removed: [], generation: w.generation });
}

/** Retrieval promotion: count it, stamp it, +1 importance (capped at 5). */
export function recordRetrievals(db: Database.Database, ids: string[], at: string = nowIso()): void {
  if (ids.length === 0) return;
  const upd = stmt(
    db,
    `UPDATE memories SET retrieval_count = retrieval_count + 1, last_retrieved_at = ?,
       importance = min(5, importance + 1) WHERE id = ? AND soft_deleted = 0`,
  );
  const log = stmt(db, "INSERT INTO retrieval_events (memory_id, space_id, at) SELECT id, space_id, ? FROM memories WHERE id = ? AND soft_deleted = 0");
  db.transaction(() => {
    for (const id of ids) {
      upd.run(at, id);
      log.run(at, id);
    }
  })();
}

export function setPinned(db: Database.Database, id: string, pinned: boolean): boolean {
  const r = stmt(db, "UPDATE memories SET pinned = ?, importance = CASE WHEN ? THEN 5 ELSE importance END WHERE id = ?").run(
    pinned ? 1 : 0,
    pinned ? 1 : 0,
    id,
  );
  return r.changes > 0;
}

/** Live memories of a space whose content contains `pattern`, case-insensitively (Unicode-aware). */
export function findLiveContaining(db: Database.Database, spaceId: string, pattern: string, limit = 10_000): MemoryRow[] {
  const needle = pattern.toLocaleLowerCase();
  // ASCII lower() in SQL prefilters; non-ASCII patterns are matched in JS over the space's live rows.
  const ascii = /^[\x00-\x7f]*$/.test(pattern);
  const rows = (
    ascii
      ? stmt(db, `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND soft_deleted = 0 AND instr(lower(content), ?) > 0 LIMIT ?`).all(
          spaceId,
          needle,
          limit,
        )
      : stmt(db, `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND soft_deleted = 0`).all(spaceId)
  ) as Record<string, unknown>[];
  return rows
    .map(rowToMemory)
    .filter((m) => m.content.toLocaleLowerCase().includes(needle))
    .slice(0, limit);
}

export interface StoreCounts {
  memories: number;
  vectors: number;
  fts: number;
}

/** Live-row counts of the three tables; equal when the store is consistent. */
export function storeCounts(db: Database.Database): StoreCounts {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    memories: one("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0"),
    vectors:
      one("SELECT count(*) AS n FROM memory_vec") +
      // During a re-index, a memory written with the new model has its vector in memory_vec_next only.
      (reindexTarget(db)
        ? one(`SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0 AND NOT EXISTS (SELECT 1 FROM memory_vec v WHERE v.rowid = m.rid)
             AND EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)`)
        : 0),
    fts: one("SELECT count(*) AS n FROM memory_fts"),
  };
}

/** A re-index is in progress and memory_vec_next holds a vector for this rid. */
function hasNextVector(db: Database.Database, rid: number): boolean {
  return reindexTarget(db) !== undefined && stmt(db, "SELECT 1 FROM memory_vec_next WHERE rowid = ?").get(BigInt(rid)) !== undefined;
}

/**
 * The three-table invariant, checked row by row: every live memory has exactly one vector and one FTS
 * row under its rid, and nothing else is there. Returns the problems found (empty when consistent).
 */
export function checkInvariant(db: Database.Database): string[] {
  const problems: string[] = [];
  const c = storeCounts(db);
  if (c.memories !== c.vectors || c.memories !== c.fts) {
    problems.push(`live counts differ: memories=${c.memories} vectors=${c.vectors} fts=${c.fts}`);
  }
  // During a re-index a live memory's vector may be in memory_vec_next alone (written with the new model).
  const orNext = reindexTarget(db) ? " AND NOT EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)" : "";
  const missingVec = db
    .prepare(`SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0 AND NOT EXISTS (SELECT 1 FROM memory_vec v WHERE v.rowid = m.rid)${orNext}`)
    .get() as { n: number };
  if (missingVec.n) problems.push(`${missingVec.n} live memories lack a vector`);
  const missingFts = db
    .prepare("SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0 AND NOT EXISTS (SELECT 1 FROM memory_fts f WHERE f.rowid = m.rid)")
    .get() as { n: number };
  if (missingFts.n) problems.push(`${missingFts.n} live memories lack an FTS row`);
  const strayVec = db
    .prepare("SELECT count(*) AS n FROM memory_vec v WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = v.rowid AND m.soft_deleted = 0)")
    .get() as { n: number };
  if (strayVec.n) problems.push(`${strayVec.n} vectors belong to no live memory`);
  const strayFts = db
    .prepare("SELECT count(*) AS n FROM memory_fts f WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = f.rowid AND m.soft_deleted = 0)")
    .get() as { n: number };
  if (strayFts.n) problems.push(`${strayFts.n} FTS rows belong to no live memory`);
  return problems;
}

export type { OpenedDb };
