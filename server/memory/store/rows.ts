/** Memory rows and the store's write discipline: row mapping, the vector-write log its in-memory indexes follow, writeTransaction. */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { getMeta, setMeta } from "../../core/meta";
import { stmt } from "../../core/statements";
import type { SpeakerSpan } from "./chunker";

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
  /** Who said which part of the content (chunker.ts SpeakerSpan); null when not known (documents, old rows). */
  speakers: SpeakerSpan[] | null;
  /** Who wrote it into another person's space through a read-write share (drizzle/0014); null: the space's person. */
  writtenBy: string | null;
}

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
  speakers?: SpeakerSpan[] | null;
}

export const COLUMNS = `id, rid, space_id AS spaceId, content, timestamp, importance, retrieval_count AS retrievalCount,
  last_retrieved_at AS lastRetrievedAt, pinned, soft_deleted AS softDeleted, deleted_at AS deletedAt, kind,
  conversation_id AS conversationId, document_id AS documentId, chunk_index AS chunkIndex,
  content_hash AS contentHash, embedding_model AS embeddingModel, created_at AS createdAt, updated_at AS updatedAt,
  written_by AS writtenBy, speakers`;

export function rowToMemory(r: Record<string, unknown>): MemoryRow {
  return {
    ...(r as unknown as MemoryRow),
    pinned: Boolean(r.pinned),
    softDeleted: Boolean(r.softDeleted),
    speakers: typeof r.speakers === "string" ? (JSON.parse(r.speakers) as SpeakerSpan[]) : null,
  };
}

export function contentHash(content: string): string {
  return crypto.createHash("sha256").update(content.normalize("NFC").trim()).digest("hex");
}

export function nowIso(): string {
  return new Date().toISOString();
}

export const vecBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

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
export function bumpGeneration(db: Database.Database): number {
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

export function notify(db: Database.Database, w: VectorWrite): void {
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
 * While the store re-embeds for a new model (server/memory/index/reindex.ts), the model whose vectors
 * memory_vec_next collects. Writes with that model put their vector there instead of memory_vec.
 */
export function reindexTarget(db: Database.Database): { model: string; dim: number } | undefined {
  const model = getMeta(db, "reindex_model");
  const dim = Number(getMeta(db, "reindex_dim") ?? 0);
  return model && dim ? { model, dim } : undefined;
}

export const blobToVector = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
