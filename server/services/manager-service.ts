/**
 * Memory Manager (docs/architecture.md#pages): a paged, filterable listing of memories and the edits a person makes to them
 * (content with re-embedding, pin, importance, delete, restore, purge), one by one or on a selection.
 * Every mutation checks all its ids first and changes nothing when one is unknown; every write is one
 * transaction.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import {
  contentHash,
  findLiveByHash,
  getWritableMemory,
  purgeMemories,
  restoreMemories,
  setMemoriesImportance,
  setMemoriesPinned,
  softDeleteMemories,
  updateMemoryContent,
  whoseOf,
  type MemoryRow,
  type Whose,
} from "../memory/store";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { memoryKind, memoryText, sharedSpaceName } from "../core/validators";
import { dateRangeMessage, keptIso } from "../core/dates";
import { mineScan, visibleMemoryScan, writableMemoryScan } from "../core/acting";

/** Soft-deleted memories are purged this many days after deleted_at (docs/storage.md#what-each-job-may-change default). */
export const SOFT_DELETE_RETENTION_DAYS = 30;

const dateBound = z
  .string()
  .max(64)
  .superRefine((s, ctx) => {
    if (Number.isNaN(Date.parse(s)))
      ctx.addIssue({ code: "custom", message: "must be a date (YYYY-MM-DD) or an ISO-8601 date-time" });
    else if (keptIso(s) === null) ctx.addIssue({ code: "custom", message: dateRangeMessage("the date") });
  });

export const memoryIdsInput = z
  .array(z.string().uuid("ids must be memory ids"))
  .min(1, "select at least one memory")
  .max(10_000, "at most 10000 memories at once");

export const listFilterInput = z.strictObject({
  /** One space: the person's own, or one shared with them ('<owner id>~<name>'). Absent: all of their own. */
  space: sharedSpaceName.optional(),
  kind: memoryKind.optional(),
  pinned: z.boolean().optional(),
  importanceMin: z.number().int().min(0).max(5).optional(),
  importanceMax: z.number().int().min(0).max(5).optional(),
  /** live (default), soft-deleted only, or both. */
  status: z.enum(["live", "deleted", "all"]).optional(),
  /** Case-insensitive substring of the content. */
  text: z.string().max(1000, "text filter must be at most 1000 characters").optional(),
  /** Range on the memory's timestamp; a bare date `to` includes that whole day (UTC). */
  from: dateBound.optional(),
  to: dateBound.optional(),
  sort: z.enum(["timestamp", "created", "importance", "retrievals"]).optional(),
  order: z.enum(["asc", "desc"]).optional(),
  page: z.number().int().min(1).max(1_000_000).optional(),
  pageSize: z.number().int().min(1).max(200).optional(),
});
export type ListFilter = z.infer<typeof listFilterInput>;

/** A memory as the Manager lists it: the stored row (without rid and hash) plus its sources and purge date. */
export type ManagedMemory = Omit<MemoryRow, "rid" | "contentHash"> & {
  /** When a soft-deleted memory is purged for good (deletedAt + retention). */
  purgeAt: string | null;
  documentName: string | null;
  /** Every document this memory belongs to (a shared chunk has several). */
  documentNames: string[];
  /** Whose it is when not simply the acting person's own (a shared space, or written by a sharee). */
  whose?: Whose | null;
};

export interface MemoryPage {
  items: ManagedMemory[];
  total: number;
  page: number;
  pageSize: number;
  pages: number;
}

const SORT_COLUMNS = {
  timestamp: "m.timestamp",
  created: "m.created_at",
  importance: "m.importance",
  retrievals: "m.retrieval_count",
} as const;

/** Normalise a range bound to the stored ISO form; a bare `to` date means the end of that day. */
function isoBound(s: string, end: boolean): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(s);
  const t = Date.parse(dateOnly ? `${s}T00:00:00.000Z` : s);
  return new Date(dateOnly && end ? t + 86_400_000 - 1 : t).toISOString();
}

/** The WHERE clause and parameters of a listing filter (named parameters, never string-built values). */
export function memoryFilterSql(f: ListFilter): { where: string; params: Record<string, unknown> } {
  // Only the acting person's memories (server/core/acting.ts); a space shared with them only when the filter
  // names it, and then its live memories only (its trash is its owner's): "all spaces" never lists another
  // person's memories.
  const clauses: string[] = [f.space ? visibleMemoryScan("m.space_id", "m.soft_deleted") : mineScan("m.space_id")];
  const params: Record<string, unknown> = {};
  const status = f.status ?? "live";
  if (status === "live") clauses.push("m.soft_deleted = 0");
  if (status === "deleted") clauses.push("m.soft_deleted = 1");
  if (f.space) {
    clauses.push("m.space_id = @space");
    params.space = f.space;
  }
  if (f.kind) {
    clauses.push("m.kind = @kind");
    params.kind = f.kind;
  }
  if (f.pinned !== undefined) {
    clauses.push("m.pinned = @pinned");
    params.pinned = f.pinned ? 1 : 0;
  }
  if (f.importanceMin !== undefined) {
    clauses.push("m.importance >= @importanceMin");
    params.importanceMin = f.importanceMin;
  }
  if (f.importanceMax !== undefined) {
    clauses.push("m.importance <= @importanceMax");
    params.importanceMax = f.importanceMax;
  }
  const text = f.text?.trim();
  if (text) {
    // lower() folds ASCII only; the JS side folds the needle the same way so ASCII matching is case-insensitive.
    clauses.push("instr(lower(m.content), @text) > 0");
    params.text = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  }
  if (f.from) {
    clauses.push("m.timestamp >= @from");
    params.from = isoBound(f.from, false);
  }
  if (f.to) {
    clauses.push("m.timestamp <= @to");
    params.to = isoBound(f.to, true);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

const MANAGED_COLUMNS = `m.id, m.space_id AS spaceId, m.content, m.timestamp, m.importance, m.retrieval_count AS retrievalCount,
  m.last_retrieved_at AS lastRetrievedAt, m.pinned, m.soft_deleted AS softDeleted, m.deleted_at AS deletedAt, m.kind,
  m.conversation_id AS conversationId, m.document_id AS documentId, d.name AS documentName, m.chunk_index AS chunkIndex,
  m.embedding_model AS embeddingModel, m.created_at AS createdAt, m.updated_at AS updatedAt, m.written_by AS writtenBy,
  (SELECT json_group_array(name) FROM (SELECT dd.name FROM document_chunks l JOIN documents dd ON dd.id = l.document_id AND dd.space_id = m.space_id WHERE l.memory_id = m.id ORDER BY l.rowid)) AS documentNamesJson`;

function toManaged(r: Record<string, unknown>, retentionDays: number): ManagedMemory {
  const deletedAt = (r.deletedAt as string | null) ?? null;
  const { documentNamesJson, ...rest } = r;
  const names = JSON.parse((documentNamesJson as string | null) ?? "[]") as string[];
  return {
    ...(rest as unknown as ManagedMemory),
    documentNames: names.length ? names : r.documentName ? [r.documentName as string] : [],
    pinned: Boolean(r.pinned),
    softDeleted: Boolean(r.softDeleted),
    purgeAt: deletedAt ? new Date(Date.parse(deletedAt) + retentionDays * 86_400_000).toISOString() : null,
  };
}

/** One page of memories matching the filter, with the total count. */
export function listMemories(
  db: Database.Database,
  filter: ListFilter,
  retentionDays = SOFT_DELETE_RETENTION_DAYS,
): MemoryPage {
  // The space is already a key (the router's input parsed it): parsing it again would read another person's
  // key that is a bare name (the owner's spaces) as the acting person's own name.
  const f = { ...listFilterInput.parse({ ...filter, space: undefined }), space: filter.space };
  if (f.importanceMin !== undefined && f.importanceMax !== undefined && f.importanceMin > f.importanceMax) {
    throw new ServiceError(400, "importanceMin must not be greater than importanceMax");
  }
  if (f.from && f.to && isoBound(f.from, false) > isoBound(f.to, true))
    throw new ServiceError(400, "the date range ends before it starts");
  const pageSize = f.pageSize ?? 25;
  const { where, params } = memoryFilterSql(f);
  const total = (db.prepare(`SELECT count(*) AS n FROM memories m ${where}`).get(params) as { n: number }).n;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(f.page ?? 1, pages);
  const dir = f.order === "asc" ? "ASC" : "DESC";
  const rows = db
    .prepare(
      `SELECT ${MANAGED_COLUMNS} FROM memories m LEFT JOIN documents d ON d.id = m.document_id AND d.space_id = m.space_id ${where}
       ORDER BY ${SORT_COLUMNS[f.sort ?? "timestamp"]} ${dir}, m.rid ${dir} LIMIT @limit OFFSET @offset`,
    )
    .all({ ...params, limit: pageSize, offset: (page - 1) * pageSize }) as Record<string, unknown>[];
  const items = rows.map((r) => toManaged(r, retentionDays));
  const whose = whoseOf(db, items);
  return { items: items.map((m, i) => ({ ...m, whose: whose[i]! })), total, page, pageSize, pages };
}

export function getManagedMemory(
  db: Database.Database,
  id: string,
  retentionDays = SOFT_DELETE_RETENTION_DAYS,
): ManagedMemory {
  const r = db
    .prepare(
      `SELECT ${MANAGED_COLUMNS} FROM memories m LEFT JOIN documents d ON d.id = m.document_id AND d.space_id = m.space_id WHERE m.id = ? AND ${visibleMemoryScan("m.space_id", "m.soft_deleted")}`,
    )
    .get(id) as Record<string, unknown> | undefined;
  if (!r) throw new ServiceError(404, `memory ${id} not found`);
  const m = toManaged(r, retentionDays);
  return { ...m, whose: whoseOf(db, [m])[0]! };
}

/** The ids of `ids` that are not memories the acting person may change (empty when all are). */
export function missingMemoryIds(db: Database.Database, ids: string[]): string[] {
  const found = new Set(
    (
      db
        .prepare(
          `SELECT id FROM memories WHERE id IN (SELECT value FROM json_each(?)) AND ${writableMemoryScan("space_id", "soft_deleted")}`,
        )
        .all(JSON.stringify(ids)) as {
        id: string;
      }[]
    ).map((r) => r.id),
  );
  return [...new Set(ids)].filter((id) => !found.has(id));
}

function requireAll(db: Database.Database, ids: string[]): void {
  const missing = missingMemoryIds(db, ids);
  if (missing.length) {
    const shown = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ` and ${missing.length - 3} more` : "");
    throw new ServiceError(
      404,
      `${missing.length === 1 ? "memory" : "memories"} not found: ${shown}; nothing was changed`,
    );
  }
}

export const editInput = z.strictObject({ id: z.string().uuid("id must be a memory id"), content: memoryText });

/**
 * Replace a memory's content: embed the new text with the current model (document prefix), then write
 * content, hash, FTS row and vector in one transaction (store.updateMemoryContent). Search then finds
 * the new wording and no longer the old. Editing into the exact content of another live memory of the
 * same space is refused (the store keeps one copy of a text per space).
 */
export async function editMemory(
  ctx: MemoContext,
  id: string,
  content: string,
): Promise<ManagedMemory & { changed: boolean }> {
  const m = getWritableMemory(ctx.db, id);
  if (!m) throw new ServiceError(404, `memory ${id} not found`);
  const text = content.trim();
  if (!text) throw new ServiceError(400, "content must not be empty");
  if (contentHash(text) === m.contentHash && text === m.content)
    return { ...getManagedMemory(ctx.db, id), changed: false };
  const dup = findLiveByHash(ctx.db, m.spaceId, contentHash(text));
  if (dup && dup.id !== id)
    throw new ServiceError(
      409,
      `another memory in space '${m.spaceId}' already has this content (${dup.id}); nothing was changed`,
    );
  const { model } = await activeModel(ctx);
  const [vector] = await ctx.embedder.embedDocuments([text]);
  if (!vector) throw new ServiceError(502, "the embedding server returned no vector; nothing was changed");
  updateMemoryContent(ctx.db, id, text, vector, model);
  return { ...getManagedMemory(ctx.db, id), changed: true };
}

/** Pin or unpin memories (pinning sets importance 5, as /remember does). One transaction. */
export function setPinnedMany(db: Database.Database, ids: string[], pinned: boolean): { changed: number } {
  return db.transaction(() => {
    requireAll(db, ids);
    return { changed: setMemoriesPinned(db, ids, pinned) };
  })();
}

/**
 * Set the importance (0–5) of memories. Pinned memories keep importance 5 (docs/storage.md#what-each-job-may-change); they are reported
 * as skipped rather than silently unpinned. One transaction.
 */
export function setImportanceMany(
  db: Database.Database,
  ids: string[],
  importance: number,
): { changed: number; skippedPinned: number } {
  if (!Number.isInteger(importance) || importance < 0 || importance > 5)
    throw new ServiceError(400, "importance must be an integer from 0 to 5");
  return db.transaction(() => {
    requireAll(db, ids);
    const json = JSON.stringify(ids);
    const skippedPinned = (
      db
        .prepare("SELECT count(*) AS n FROM memories WHERE id IN (SELECT value FROM json_each(?)) AND pinned = 1")
        .get(json) as { n: number }
    ).n;
    return { changed: setMemoriesImportance(db, ids, importance), skippedPinned };
  })();
}

/** Soft-delete memories (restorable until purged). */
export function softDeleteMany(db: Database.Database, ids: string[]): { deleted: string[] } {
  requireAll(db, ids);
  return { deleted: softDeleteMemories(db, ids) };
}

export function restoreMany(db: Database.Database, ids: string[]): { restored: string[] } {
  requireAll(db, ids);
  return { restored: restoreMemories(db, ids) };
}

/** Remove memories for good from every table. */
export function purgeMany(db: Database.Database, ids: string[]): { purged: number } {
  requireAll(db, ids);
  return { purged: purgeMemories(db, ids) };
}
