/**
 * The `documents` table: one row per uploaded file with its status and progress (chunks_done /
 * chunks_total), read by the Ingest page while a job runs. Every write is a single statement or one
 * transaction. Which memories belong to which documents is the `document_chunks` link table: a chunk
 * skipped at ingestion because another document of the space already holds it is linked to both, so
 * deleting one document removes only the chunks no other document links (`memories.document_id` keeps
 * the first document, for display and export).
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { ensureSpace, handToDocument, nowIso, purgeMemories } from "../memory/store";

export type DocumentStatus = "queued" | "processing" | "done" | "failed" | "cancelled";

export interface DocumentRow {
  id: string;
  spaceId: string;
  name: string;
  mime: string;
  size: number;
  contentHash: string;
  status: DocumentStatus;
  error: string | null;
  chunksTotal: number;
  chunksDone: number;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `id, space_id AS spaceId, name, mime, size, content_hash AS contentHash, status, error,
  chunks_total AS chunksTotal, chunks_done AS chunksDone, created_at AS createdAt, updated_at AS updatedAt`;

/** sha256 of a file's bytes: the per-document content hash (per-chunk hashes are store.contentHash). */
export function documentHash(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

export interface NewDocument {
  id?: string;
  spaceId: string;
  name: string;
  mime: string;
  size: number;
  contentHash: string;
  status: "queued" | "failed";
  error?: string | null;
}

/** Insert rows (creating their spaces) in one transaction; returns the rows. */
export function insertDocuments(db: Database.Database, docs: NewDocument[]): DocumentRow[] {
  const ins = db.prepare(
    `INSERT INTO documents (id, space_id, name, mime, size, content_hash, status, error, chunks_total, chunks_done, created_at, updated_at)
     VALUES (@id, @spaceId, @name, @mime, @size, @contentHash, @status, @error, 0, 0, @createdAt, @createdAt)`,
  );
  const tx = db.transaction(() => {
    const ids: string[] = [];
    const createdAt = nowIso();
    for (const d of docs) {
      ensureSpace(db, d.spaceId);
      const id = d.id ?? crypto.randomUUID();
      ins.run({ ...d, id, error: d.error ?? null, createdAt });
      ids.push(id);
    }
    return ids;
  });
  return tx().map((id) => getDocument(db, id)!);
}

export function getDocument(db: Database.Database, id: string): DocumentRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM documents WHERE id = ?`).get(id) as DocumentRow | undefined;
}

export function listDocuments(db: Database.Database, spaceId?: string): DocumentRow[] {
  return (
    spaceId === undefined
      ? db.prepare(`SELECT ${COLUMNS} FROM documents ORDER BY created_at DESC, rowid DESC`).all()
      : db
          .prepare(`SELECT ${COLUMNS} FROM documents WHERE space_id = ? ORDER BY created_at DESC, rowid DESC`)
          .all(spaceId)
  ) as DocumentRow[];
}

/** Documents in a state that a job still has to finish, oldest first (the queue's order). */
export function unfinishedDocuments(db: Database.Database): DocumentRow[] {
  return db
    .prepare(`SELECT ${COLUMNS} FROM documents WHERE status IN ('queued', 'processing') ORDER BY created_at, rowid`)
    .all() as DocumentRow[];
}

/** A live document of the space with these exact bytes (done or on its way), if any. */
export function findDocumentByHash(db: Database.Database, spaceId: string, hash: string): DocumentRow | undefined {
  return db
    .prepare(
      `SELECT ${COLUMNS} FROM documents WHERE space_id = ? AND content_hash = ?
       ORDER BY CASE status WHEN 'done' THEN 0 WHEN 'processing' THEN 1 WHEN 'queued' THEN 2 ELSE 3 END, created_at DESC LIMIT 1`,
    )
    .get(spaceId, hash) as DocumentRow | undefined;
}

export function updateDocument(
  db: Database.Database,
  id: string,
  patch: Partial<Pick<DocumentRow, "status" | "error" | "chunksTotal" | "chunksDone" | "mime">>,
): void {
  const sets: string[] = [];
  const args: Record<string, unknown> = { id, updatedAt: nowIso() };
  const col: Record<string, string> = {
    status: "status",
    error: "error",
    chunksTotal: "chunks_total",
    chunksDone: "chunks_done",
    mime: "mime",
  };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    sets.push(`${col[k]} = @${k}`);
    args[k] = v;
  }
  db.prepare(`UPDATE documents SET ${[...sets, "updated_at = @updatedAt"].join(", ")} WHERE id = @id`).run(args);
}

/** Ids of the memories (live or soft-deleted) linked to a document. */
export function documentMemoryIds(db: Database.Database, documentId: string): string[] {
  return (
    db.prepare("SELECT memory_id AS id FROM document_chunks WHERE document_id = ?").all(documentId) as { id: string }[]
  ).map((r) => r.id);
}

/** Link memories to a document (idempotent). Call inside the transaction that writes or finds them. */
export function linkDocumentChunks(
  db: Database.Database,
  documentId: string,
  links: { memoryId: string; chunkIndex: number | null }[],
): void {
  const ins = db.prepare(
    "INSERT OR IGNORE INTO document_chunks (document_id, memory_id, chunk_index) VALUES (?, ?, ?)",
  );
  db.transaction(() => {
    for (const l of links) ins.run(documentId, l.memoryId, l.chunkIndex);
  })();
}

/**
 * Unlink a document from its memories and purge those no other document links, in one transaction. A
 * shared memory whose `document_id` named this document is handed to one of its other documents.
 * Returns how many memories were purged.
 */
export function unlinkDocument(db: Database.Database, documentId: string, only?: string[]): number {
  return db.transaction(() => {
    const ids = only ?? documentMemoryIds(db, documentId);
    const del = db.prepare("DELETE FROM document_chunks WHERE document_id = ? AND memory_id = ?");
    const other = db.prepare(
      "SELECT document_id AS doc, chunk_index AS idx FROM document_chunks WHERE memory_id = ? ORDER BY rowid LIMIT 1",
    );
    // Only document chunks go with their last document: a chat or /remember memory that happened to hold
    // the same text as a chunk was linked, not owned.
    const isChunk = db.prepare("SELECT 1 FROM memories WHERE id = ? AND kind = 'document'");
    const orphans: string[] = [];
    for (const id of ids) {
      del.run(documentId, id);
      const o = other.get(id) as { doc: string; idx: number | null } | undefined;
      if (o) handToDocument(db, id, documentId, o.doc, o.idx);
      else if (isChunk.get(id)) orphans.push(id);
    }
    return orphans.length ? purgeMemories(db, orphans) : 0;
  })();
}

/** What of each document is live: its linked chunks that are live, those forgotten (soft-deleted, restorable) and when the last was forgotten. */
export interface DocumentLiveness {
  live: number;
  forgotten: number;
  forgottenAt: string | null;
}

export function documentLiveness(db: Database.Database, ids: string[]): Map<string, DocumentLiveness> {
  const out = new Map<string, DocumentLiveness>();
  if (ids.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT l.document_id AS id, sum(m.soft_deleted = 0) AS live, sum(m.soft_deleted = 1) AS forgotten,
              max(CASE WHEN m.soft_deleted = 1 THEN m.deleted_at END) AS forgottenAt
         FROM document_chunks l JOIN memories m ON m.id = l.memory_id
        WHERE l.document_id IN (SELECT value FROM json_each(?)) GROUP BY l.document_id`,
    )
    .all(JSON.stringify(ids)) as { id: string; live: number; forgotten: number; forgottenAt: string | null }[];
  for (const r of rows) out.set(r.id, { live: r.live, forgotten: r.forgotten, forgottenAt: r.forgottenAt });
  return out;
}

/** Ids of a document's forgotten (soft-deleted) chunks. */
export function forgottenDocumentMemoryIds(db: Database.Database, documentId: string): string[] {
  return (
    db
      .prepare(
        `SELECT l.memory_id AS id FROM document_chunks l JOIN memories m ON m.id = l.memory_id
          WHERE l.document_id = ? AND m.soft_deleted = 1`,
      )
      .all(documentId) as { id: string }[]
  ).map((r) => r.id);
}

/** Remove a document's memories that no other document shares, from all three tables, in one transaction. */
export function purgeDocumentMemories(db: Database.Database, documentId: string): number {
  return unlinkDocument(db, documentId);
}

/**
 * Delete a document: its memories leave all three tables and its row goes, in one transaction (the
 * store's purge runs as a savepoint inside it).
 */
export function deleteDocumentRow(db: Database.Database, id: string): { memories: number } {
  return db.transaction(() => {
    const memories = purgeDocumentMemories(db, id);
    db.prepare("DELETE FROM documents WHERE id = ?").run(id);
    return { memories };
  })();
}

/** Settle a document that will not complete: its memories removed and its status set, in one transaction. */
export function settleDocument(
  db: Database.Database,
  id: string,
  status: "failed" | "cancelled",
  error: string | null,
): void {
  db.transaction(() => {
    purgeDocumentMemories(db, id);
    if (getDocument(db, id)) updateDocument(db, id, { status, error, chunksDone: 0 });
  })();
}
