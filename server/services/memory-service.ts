import path from "node:path";
import type Database from "better-sqlite3";
import { startAnnIndex } from "../memory/ann-index";
import { reconcileEmbeddingModel } from "../jobs/reindex-job";
import { withDocumentNames } from "../ingest/documents";
import { chunkWords } from "../memory/chunker";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { retrieve, type RetrievedMemory, type RetrieveResult } from "../memory/retrieve";
import { loadRetrievalSettings, type RetrievalSettings } from "../memory/settings";
import {
  bindEmbeddingModel,
  boundModel,
  contentHash,
  findLiveByHash,
  findLiveContaining,
  getMemory,
  insertMemories,
  purgeMemories,
  restoreMemories,
  setPinned,
  softDeleteMemories,
  spaceExists,
  storeCounts,
  writeTransaction,
  type MemoryRow,
  type NewMemory,
} from "../memory/store";
import type { NewMemoryInput, SearchInput } from "./schemas";

export const DEFAULT_SPACE = "personal";
export const FORGET_UNDO_DAYS = 7;

/** The model the store is bound to, binding an empty store to the embedder's model on first use. */
export async function activeModel(ctx: MemoContext): Promise<{ model: string; dim: number }> {
  const info = await ctx.embedder.info();
  // SPEC §8: a store holding another model's vectors is re-embedded in the background (writes meanwhile
  // carry the new model's vectors; search is keyword-only until the swap), instead of refused.
  const startIndex = (dim: number) => startVectorIndex(ctx.db, dim);
  if (reconcileEmbeddingModel(ctx.db, ctx.embedder, info, { startIndex, log: console.info }) === "reindexing") return info;
  const bound = boundModel(ctx.db);
  if (!bound || bound.model !== info.model || bound.dim !== info.dim) bindEmbeddingModel(ctx.db, info.model, info.dim);
  startVectorIndex(ctx.db, info.dim);
  return info;
}

/**
 * Serve vector queries from the in-memory ANN index (built in the background, persisted beside the
 * store). MEMO_ANN=off keeps every query on vec0's exact scan.
 */
export function startVectorIndex(db: Database.Database, dim: number): void {
  if (process.env.MEMO_ANN === "off") return;
  const dir = db.name === ":memory:" || !db.name ? null : path.join(path.dirname(db.name), "ann");
  startAnnIndex(db, dim, dir);
}

export async function retrievalSettings(ctx: MemoContext): Promise<RetrievalSettings> {
  const { model } = await activeModel(ctx);
  return loadRetrievalSettings(ctx.db, model);
}

/**
 * Add memories. Each text is chunked (300 words, 50 overlap) and embedded before the write; then every
 * chunk of every item is written in ONE transaction (all or nothing). A chunk whose exact content is
 * already live in the space is not stored twice: its existing id is returned. Returns ids per item.
 *
 * `hooks` run inside that transaction: `skip` (return ids to write nothing and answer those instead) and
 * `after` (record the ids with the write, e.g. on the chat message whose exchange this is).
 */
export interface AddHooks {
  skip?: () => string[][] | null;
  after?: (ids: string[][]) => void;
}

export async function addMemories(ctx: MemoContext, items: NewMemoryInput[], defaults: Partial<NewMemory> = {}, hooks: AddHooks = {}): Promise<string[][]> {
  const { model } = await activeModel(ctx);
  type Slot = { item: number; existing?: string; chunk?: NewMemory };
  const slots: Slot[] = [];
  const pendingHashes = new Map<string, number>();
  items.forEach((it, idx) => {
    const spaceId = it.space ?? defaults.spaceId ?? DEFAULT_SPACE;
    const chunks = chunkWords(it.text, 300, 50);
    chunks.forEach((content, chunkIndex) => {
      const key = `${spaceId}\u0000${contentHash(content)}`;
      const existing = findLiveByHash(ctx.db, spaceId, contentHash(content));
      if (existing) return slots.push({ item: idx, existing: existing.id });
      if (pendingHashes.has(key)) return slots.push({ item: idx, existing: `pending:${pendingHashes.get(key)}` });
      pendingHashes.set(key, slots.length);
      slots.push({
        item: idx,
        chunk: {
          ...defaults,
          spaceId,
          content,
          timestamp: it.timestamp ?? defaults.timestamp,
          kind: it.kind ?? defaults.kind ?? "chat",
          importance: it.importance ?? defaults.importance,
          pinned: it.pinned ?? defaults.pinned,
          chunkIndex: chunks.length > 1 ? chunkIndex : (defaults.chunkIndex ?? null),
        },
      });
    });
  });
  const toWrite = slots.filter((s) => s.chunk);
  const vectors = toWrite.length ? await ctx.embedder.embedDocuments(toWrite.map((s) => s.chunk!.content)) : [];
  return writeTransaction(ctx.db, () => {
    const skipped = hooks.skip?.();
    if (skipped) return skipped;
    const newIds = toWrite.length ? insertMemories(ctx.db, toWrite.map((s) => s.chunk!), vectors, model) : [];
    const idBySlot = new Map<Slot, string>();
    toWrite.forEach((s, i) => idBySlot.set(s, newIds[i]!));
    // Pinning an existing duplicate: /remember of something already stored pins it.
    for (const s of slots) {
      if (s.existing && !s.existing.startsWith("pending:") && items[s.item]!.pinned) setPinned(ctx.db, s.existing, true);
    }
    const out: string[][] = items.map(() => []);
    for (const s of slots) {
      const id = s.chunk ? idBySlot.get(s)! : s.existing!.startsWith("pending:") ? idBySlot.get(slots[Number(s.existing!.slice(8))]!)! : s.existing!;
      if (!out[s.item]!.includes(id)) out[s.item]!.push(id);
    }
    hooks.after?.(out);
    return out;
  });
}

/** A search result; `documentName` is the source file of a memory from document ingestion, `documentNames` every file it is in. */
export type SearchResult = Omit<RetrieveResult, "results" | "dropped"> & {
  results: (RetrievedMemory & { documentName: string | null; documentNames: string[] })[];
  dropped: (RetrievedMemory & { reason: string; documentName: string | null; documentNames: string[] })[];
  model: string;
  settings: RetrievalSettings;
};

export async function search(ctx: MemoContext, input: SearchInput & { promote?: boolean }): Promise<SearchResult> {
  const spaceId = input.space ?? DEFAULT_SPACE;
  if (!spaceExists(ctx.db, spaceId)) throw new ServiceError(404, `space '${spaceId}' does not exist`);
  const { model } = await activeModel(ctx);
  const { pool, ...overrides } = input.options ?? {};
  const settings = { ...loadRetrievalSettings(ctx.db, model), ...overrides };
  const res = await retrieve(ctx.db, ctx.embedder, { query: input.query, spaceId, k: input.k, context: input.context, promote: input.promote, pool, model }, settings);
  // Memories from an ingested file carry its name (joined from documents by document_id).
  return { ...res, results: withDocumentNames(ctx.db, res.results), dropped: withDocumentNames(ctx.db, res.dropped), model, settings };
}

/** `/remember <text>`: a pinned memory (importance 5, never decays). */
export async function remember(ctx: MemoContext, text: string, space = DEFAULT_SPACE): Promise<{ ids: string[]; message: string }> {
  if (text.trim().length === 0) throw new ServiceError(400, "text must not be empty");
  const [ids] = await addMemories(ctx, [{ text, space, kind: "remember", pinned: true, importance: 5 }]);
  return { ids: ids!, message: `Remembered (pinned): “${text.trim().slice(0, 200)}”` };
}

export interface ForgetResult {
  count: number;
  items: { id: string; content: string; timestamp: string }[];
  /** Restore these ids (restoreMemories) until `until` to undo. */
  undo: { ids: string[]; until: string };
  message: string;
}

export interface ForgetPreview {
  count: number;
  items: { id: string; content: string; timestamp: string; kind: string; pinned: boolean }[];
  /** How many of them are pinned. */
  pinned: number;
  preview: true;
  message: string;
}

/** Above this many matches (or with any pinned one) the chat asks before forgetting. */
export const FORGET_CONFIRM_OVER = 3;

function matchForget(ctx: MemoContext, pattern: string, space: string): MemoryRow[] {
  // A blank pattern is a substring of everything: never let it reach the store (the schemas check this too).
  if (pattern.trim().length < 2) throw new ServiceError(400, "pattern must have at least 2 characters");
  if (!spaceExists(ctx.db, space)) throw new ServiceError(404, `space '${space}' does not exist`);
  return findLiveContaining(ctx.db, space, pattern.trim());
}

const plural = (n: number) => `${n} memor${n === 1 ? "y" : "ies"}`;

/** What `/forget <pattern>` would remove, deleting nothing. */
export function forgetPreview(ctx: MemoContext, pattern: string, space = DEFAULT_SPACE): ForgetPreview {
  const matched = matchForget(ctx, pattern, space);
  const items = matched.map((m) => ({ id: m.id, content: m.content, timestamp: m.timestamp, kind: m.kind, pinned: m.pinned }));
  const pinned = items.filter((i) => i.pinned).length;
  return {
    count: items.length,
    items,
    pinned,
    preview: true,
    message: items.length
      ? `${plural(items.length)} match “${pattern.trim()}”${pinned ? ` (${pinned} pinned)` : ""}; nothing was forgotten.`
      : `No memory matches “${pattern.trim()}”.`,
  };
}

/** Soft-delete exactly these memories (a confirmed preview), those still live; restorable for 7 days. */
export function forgetIds(ctx: MemoContext, ids: string[], label: string): ForgetResult {
  const before = new Map(ids.map((id) => [id, getMemory(ctx.db, id)]));
  const changed = new Set(softDeleteMemories(ctx.db, ids));
  const items = ids.filter((id) => changed.has(id)).map((id) => ({ id, content: before.get(id)!.content, timestamp: before.get(id)!.timestamp }));
  const until = new Date(Date.now() + FORGET_UNDO_DAYS * 86_400_000).toISOString();
  return {
    count: items.length,
    items,
    undo: { ids: items.map((i) => i.id), until },
    message: items.length ? `Forgot ${plural(items.length)} matching “${label}”. Undo is possible for ${FORGET_UNDO_DAYS} days.` : `No memory matches “${label}”.`,
  };
}

/** `/forget <pattern>`: soft-delete live memories of the space whose content contains the pattern (case-insensitive). */
export function forget(ctx: MemoContext, pattern: string, space = DEFAULT_SPACE): ForgetResult {
  return forgetIds(ctx, matchForget(ctx, pattern, space).map((m) => m.id), pattern.trim());
}

export function restore(ctx: MemoContext, ids: string[]): { restored: string[] } {
  return { restored: restoreMemories(ctx.db, ids) };
}

export function getMemoryOr404(ctx: MemoContext, id: string): MemoryRow {
  const m = getMemory(ctx.db, id);
  if (!m) throw new ServiceError(404, `memory ${id} not found`);
  return m;
}

/** Delete one memory: soft by default (restorable), or purged from every table. */
export function deleteMemory(ctx: MemoContext, id: string, purge = false): { id: string; deleted: "soft" | "purged" } {
  const m = getMemoryOr404(ctx, id);
  if (purge) {
    purgeMemories(ctx.db, [m.id]);
    return { id, deleted: "purged" };
  }
  softDeleteMemories(ctx.db, [m.id]);
  return { id, deleted: "soft" };
}

export interface Health {
  ok: boolean;
  embedder: { status: string; model: string | null; dim: number | null; engine?: string | null; fallback?: boolean; note?: string | null; lastError?: string | null };
  store: { memories: number; vectors: number; fts: number; consistent: boolean; model: string | null; dim: number | null };
}

export function health(ctx: MemoContext): Health {
  const counts = storeCounts(ctx.db);
  const consistent = counts.memories === counts.vectors && counts.memories === counts.fts;
  const st = ctx.embedderStatus?.();
  const bound = boundModel(ctx.db);
  const embedderOk = st ? st.status === "ready" : true;
  return {
    ok: consistent && embedderOk,
    embedder: st
      ? { status: st.status, model: st.model, dim: st.dim, engine: st.engine, fallback: st.fallback, note: st.modelReason, lastError: st.lastError }
      : { status: "external", model: null, dim: null },
    store: { ...counts, consistent, model: bound?.model ?? null, dim: bound?.dim ?? null },
  };
}
