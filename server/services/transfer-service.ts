/**
 * Export and import of memories (docs/architecture.md#pages Manager, §7).
 *
 * Export: a space (or all) as a versioned JSON document: content, timestamps, importance, pinned, kind
 * and source per memory; no vectors (they belong to one embedding model).
 *
 * Import: the whole file is validated first (a bad file is a 400 and writes nothing); then every memory
 * not already live in its target space (by content hash) is embedded with the current model and written.
 * Writes go in batches, each batch one transaction over memories, memory_vec and the keyword tables; an import
 * stopped half-way (embedding server down) keeps the batches already written and running it again skips
 * them as duplicates. The same pipeline serves every import format (server/services/import/registry.ts).
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import {
  contentHash,
  findLiveByHash,
  insertMemories,
  spaceExists,
  type MemoryKind,
  type NewMemory,
} from "../memory/store";
import { activeModel } from "../memory/index/model-check";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { isoTimestamp, memoryKind, memoryText, spaceName } from "../core/validators";
import { mySpace } from "../core/acting";
import type { SpeakerSpan } from "../memory/store/chunker";
import type { ImportedConversation } from "../chat/imported-conversations";
import { mineScan } from "../core/acting";
import { stmt } from "../core/statements";

export const EXPORT_FORMAT = "memo-export";
export const EXPORT_VERSION = 1;
/** Largest import body accepted (a ChatGPT conversations.json of a heavy user runs to tens of MB). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;
/** Memories embedded and written per transaction during an import. */
export const IMPORT_BATCH = 32;

export interface ExportedMemory {
  space: string;
  content: string;
  timestamp: string;
  importance: number;
  pinned: boolean;
  kind: MemoryKind;
  source: {
    conversationId: string | null;
    documentId: string | null;
    documentName: string | null;
    chunkIndex: number | null;
  };
  createdAt: string;
  retrievalCount: number;
  lastRetrievedAt: string | null;
  /** Who said which part of the content (chunker.ts SpeakerSpan); null when not known; absent before drizzle/0016. */
  speakers?: SpeakerSpan[] | null;
}

export interface ExportFile {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  /** The space exported, or null for all spaces. */
  space: string | null;
  /** The model the memories were embedded with in the exporting store (informational; vectors are not exported). */
  embeddingModel: string | null;
  count: number;
  memories: ExportedMemory[];
}

/** Named query: the live memories of a space (or all), oldest first, with their document names. */
export function exportMemories(db: Database.Database, space: string | null = null, now = new Date()): ExportFile {
  if (space !== null && !spaceExists(db, space)) throw new ServiceError(404, `space '${space}' does not exist`);
  const rows = db
    .prepare(
      `SELECT m.space_id AS space, m.content, m.timestamp, m.importance, m.pinned, m.kind, m.conversation_id AS conversationId,
         m.document_id AS documentId, d.name AS documentName, m.chunk_index AS chunkIndex, m.created_at AS createdAt,
         m.retrieval_count AS retrievalCount, m.last_retrieved_at AS lastRetrievedAt, m.speakers
       FROM memories m LEFT JOIN documents d ON d.id = m.document_id AND d.space_id = m.space_id
       WHERE m.soft_deleted = 0 AND (@space IS NULL OR m.space_id = @space) AND ${mineScan("m.space_id")}
       ORDER BY m.timestamp, m.rid`,
    )
    .all({ space }) as Record<string, unknown>[];
  const model =
    (db.prepare("SELECT value FROM meta WHERE key = 'embedding_model'").get() as { value: string } | undefined)
      ?.value ?? null;
  const memories: ExportedMemory[] = rows.map((r) => ({
    space: r.space as string,
    content: r.content as string,
    timestamp: r.timestamp as string,
    importance: r.importance as number,
    pinned: Boolean(r.pinned),
    kind: r.kind as MemoryKind,
    source: {
      conversationId: (r.conversationId as string | null) ?? null,
      documentId: (r.documentId as string | null) ?? null,
      documentName: (r.documentName as string | null) ?? null,
      chunkIndex: (r.chunkIndex as number | null) ?? null,
    },
    createdAt: r.createdAt as string,
    retrievalCount: r.retrievalCount as number,
    lastRetrievedAt: (r.lastRetrievedAt as string | null) ?? null,
    speakers: typeof r.speakers === "string" ? (JSON.parse(r.speakers) as SpeakerSpan[]) : null,
  }));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: now.toISOString(),
    space,
    embeddingModel: model,
    count: memories.length,
    memories,
  };
}

export function exportFileName(space: string | null, now = new Date()): string {
  return `memo-export-${space ?? "all"}-${now.toISOString().slice(0, 10)}.json`;
}

const nullableString = z.string().max(1000).nullable().optional();

const importedMemory = z.object({
  space: spaceName.optional(),
  content: memoryText,
  timestamp: isoTimestamp,
  importance: z.number().int().min(0).max(5).optional(),
  pinned: z.boolean().optional(),
  kind: memoryKind.optional(),
  source: z
    .object({
      conversationId: nullableString,
      documentId: nullableString,
      documentName: nullableString,
      chunkIndex: z.number().int().min(0).nullable().optional(),
    })
    .optional(),
  speakers: z
    .array(
      z.object({
        role: z.enum(["user", "assistant"]).optional(),
        name: z.string().max(200).optional(),
        start: z.number().int().min(0),
        end: z.number().int().min(0),
      }),
    )
    .nullable()
    .optional(),
});

const importFile = z.object({
  format: z.literal(EXPORT_FORMAT, `format must be "${EXPORT_FORMAT}" (a file made by Memo's export)`),
  version: z.number().int(),
  memories: z.array(importedMemory).max(1_000_000, "at most 1,000,000 memories per file"),
});

const issuesText = (e: z.ZodError) =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "file"}: ${i.message}`)
    .join("; ") + (e.issues.length > 5 ? `; and ${e.issues.length - 5} more problems` : "");

/** One unit of an import: the chunks of one memory (export) or one exchange (a conversation export); never split across batches. */
export type ImportGroup = NewMemory[];

export interface ImportPlan {
  groups: ImportGroup[];
  /** What the file held, for people ("120 memories in 2 spaces"). */
  detail: string;
  /** What was left out as malformed, one line each ("conversation 3 (…): no 'mapping' object"); the rest is imported. */
  problems?: string[];
  /** A conversation export's conversations, each written as a chat once the memories are (import-jobs.ts). */
  conversations?: { space: string; conversation: ImportedConversation }[];
}

/**
 * Validate a Memo export and turn it into import groups. `targetSpace` puts every memory into that space;
 * otherwise each goes to the space it was exported from. Throws a 400 ServiceError; writes nothing.
 */
export function planExportImport(data: unknown, targetSpace?: string): ImportPlan {
  if (targetSpace !== undefined && !spaceName.safeParse(targetSpace).success)
    throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new ServiceError(
      400,
      Array.isArray(data)
        ? "this looks like a list, not a Memo export (for a ChatGPT or Claude conversations.json use its import)"
        : "the file is not a Memo export (expected a JSON object)",
    );
  }
  const head = data as { format?: unknown; version?: unknown };
  if (head.format === EXPORT_FORMAT && typeof head.version === "number" && head.version > EXPORT_VERSION) {
    throw new ServiceError(
      400,
      `this export is version ${head.version}; this Memo reads version ${EXPORT_VERSION}. Update Memo to import it.`,
    );
  }
  const parsed = importFile.safeParse(data);
  if (!parsed.success) throw new ServiceError(400, `not a valid Memo export: ${issuesText(parsed.error)}`);
  if (parsed.data.version !== EXPORT_VERSION)
    throw new ServiceError(
      400,
      `unsupported export version ${parsed.data.version}; this Memo reads version ${EXPORT_VERSION}`,
    );
  const spaces = new Set<string>();
  const groups = parsed.data.memories.map((m): ImportGroup => {
    const spaceId = targetSpace ?? m.space ?? mySpace(DEFAULT_SPACE);
    spaces.add(spaceId);
    const content = m.content.trim();
    // Spans are offsets into the content (moved by what the trim took off its start): kept only when every one falls inside it.
    const lead = m.content.length - m.content.trimStart().length;
    const moved = m.speakers?.map((x) => ({ ...x, start: x.start - lead, end: x.end - lead }));
    const spans = moved?.every((x) => x.start >= 0 && x.start < x.end && x.end <= content.length) ? moved : null;
    return [
      {
        spaceId,
        content,
        speakers: spans,
        timestamp: m.timestamp,
        importance: m.importance ?? 1,
        pinned: m.pinned ?? false,
        kind: m.kind ?? "import",
        conversationId: m.source?.conversationId ?? null,
        documentId: m.source?.documentId ?? null,
        chunkIndex: m.source?.chunkIndex ?? null,
      },
    ];
  });
  const n = groups.length;
  return {
    groups,
    detail: `${n} ${n === 1 ? "memory" : "memories"} for ${spaces.size} ${spaces.size === 1 ? "space" : "spaces"}`,
  };
}

/**
 * Ids in an import are the importer's or nothing (issue 55): a document id is kept only when it names a
 * document of the memory's own space, a conversation id only when no conversation of another space has it
 * (one naming nothing here, a chat restored from another install or an export's "chatgpt:<id>", stays).
 */
export function ownSources(db: Database.Database, m: NewMemory): NewMemory {
  const doc =
    m.documentId && stmt(db, "SELECT 1 FROM documents WHERE id = ? AND space_id = ?").get(m.documentId, m.spaceId)
      ? m.documentId
      : null;
  const conv = m.conversationId
    ? (stmt(db, "SELECT space_id AS space FROM conversations WHERE id = ?").get(m.conversationId) as
        | { space: string }
        | undefined)
    : undefined;
  const conversationId = conv && conv.space !== m.spaceId ? null : (m.conversationId ?? null);
  return doc === (m.documentId ?? null) && conversationId === (m.conversationId ?? null)
    ? m
    : { ...m, documentId: doc, conversationId };
}

export interface ImportProgress {
  /** Memories to embed and write (after removing duplicates). */
  total: number;
  done: number;
  imported: number;
  duplicates: number;
}

export interface ImportSummary extends ImportProgress {
  ids: string[];
}

/**
 * Write import groups: skip chunks already live in their space (or earlier in this import) by content
 * hash; embed the rest with the current model (document prefix) in batches; write each batch in one
 * transaction. Duplicates are checked again just before each write, so a concurrent write of the same
 * text is never stored twice.
 */
export async function importGroups(
  ctx: MemoContext,
  groups: ImportGroup[],
  onProgress?: (p: ImportProgress) => void,
  batchSize = IMPORT_BATCH,
): Promise<ImportSummary> {
  const { model } = await activeModel(ctx);
  const seen = new Set<string>();
  let duplicates = 0;
  const pending: ImportGroup[] = [];
  for (const g of groups) {
    const keep: NewMemory[] = [];
    for (const m of g.map((x) => ownSources(ctx.db, x))) {
      const hash = contentHash(m.content);
      const key = `${m.spaceId}\u0000${hash}`;
      if (seen.has(key) || findLiveByHash(ctx.db, m.spaceId, hash)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      keep.push(m);
    }
    if (keep.length) pending.push(keep);
  }
  const total = pending.reduce((n, g) => n + g.length, 0);
  const progress: ImportProgress = { total, done: 0, imported: 0, duplicates };
  onProgress?.({ ...progress });
  const ids: string[] = [];
  let gi = 0;
  while (gi < pending.length) {
    const batch: NewMemory[] = [];
    while (gi < pending.length && (batch.length === 0 || batch.length + pending[gi]!.length <= batchSize))
      batch.push(...pending[gi++]!);
    const vectors = await ctx.embedder.embedDocuments(batch.map((m) => m.content));
    // Synchronous from here to the commit: nothing else can write in between.
    const fresh = batch
      .map((m, i) => ({ m, v: vectors[i]! }))
      .filter(({ m }) => !findLiveByHash(ctx.db, m.spaceId, contentHash(m.content)));
    progress.duplicates += batch.length - fresh.length;
    if (fresh.length)
      ids.push(
        ...insertMemories(
          ctx.db,
          fresh.map((f) => f.m),
          fresh.map((f) => f.v),
          model,
        ),
      );
    progress.done += batch.length;
    progress.imported += fresh.length;
    onProgress?.({ ...progress });
  }
  return { ...progress, ids };
}
