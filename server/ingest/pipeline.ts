/**
 * Stage 4: one document, start to finish — parse, chunk by tokens, skip what is stored, embed in batches,
 * write each batch in one transaction, report progress.
 *
 * Dedup: a chunk whose content hash is already live in the space (written by an earlier run of this
 * document, or by another document) is not embedded again; it counts as done. Re-ingesting the same file
 * therefore adds 0 chunks, and re-running an interrupted document resumes where it stopped. A skipped
 * chunk is linked to this document too (document_chunks), so it stays when the other document is deleted.
 *
 * Pipelining: the next batch's embedding request is in flight while the previous batch is written, so the
 * embedding server — the bottleneck — never waits for the database.
 *
 * Failure: this function throws, leaving the batches it wrote; the queue (queue.ts) then removes every
 * memory of the document in one transaction, so a failed or cancelled document has no memories at all.
 */
import type { MemoContext } from "../core/context";
import { activeModel } from "../memory/index/model-check";
import { contentHash, findLiveByHash, insertMemories, writeTransaction, type NewMemory } from "../memory/store";
import { chunkSections, TokenCounter, type ChunkOptions, type PlannedChunk } from "./chunk";
import { linkDocumentChunks, unlinkDocument, type DocumentRow } from "./documents";
import { parseOffThread } from "./parse-thread";

/**
 * Embedding requests are sized by time, not by a fixed count: each request should take about
 * REQUEST_TARGET_MS on the embedding server. Large enough to amortise a request; short enough that the
 * server (USE-lite computes on its one JS thread) keeps answering the supervisor's health checks (1.5 s
 * timeout) and that a chat or search query never waits long behind ingestion. The size adapts to the
 * measured time per chunk (MEMO_INGEST_REQUEST_MS changes the target).
 */
export const REQUEST_TARGET_MS = 1000;
export const MAX_BATCH = 32;
const FIRST_BATCH = 4;

export function requestTargetMs(): number {
  const v = Number(process.env.MEMO_INGEST_REQUEST_MS ?? REQUEST_TARGET_MS);
  return Number.isFinite(v) && v > 0 ? v : REQUEST_TARGET_MS;
}

export interface IngestProgress {
  chunksTotal: number;
  chunksDone: number;
}

export interface IngestOptions extends ChunkOptions {
  /** A fixed number of chunks per embedding request (default: adaptive, see REQUEST_TARGET_MS). */
  batchSize?: number;
  requestTargetMs?: number;
  /** Called when the plan is known and after every written batch. */
  onProgress?: (p: IngestProgress) => void;
  /** While the text is cut and counted, before any chunk is known: characters tokenized of the text's. */
  onCounting?: (p: { charsDone: number; charsTotal: number }) => void;
}

export interface IngestStats {
  kind: string;
  /** The embedding model the chunks were embedded with. */
  model: string;
  mime: string;
  chars: number;
  chunks: number;
  /** Chunks written by this run. */
  added: number;
  /** Chunks already live in the space (not embedded again). */
  skipped: number;
  /** Tokens of all chunks, and of the ones embedded by this run. */
  tokens: number;
  tokensEmbedded: number;
  tokenizeCalls: number;
  /** Chunks per embedding request, in order. */
  batches: number[];
  /** The chunks embedded by this run, in order (the benchmark replays them against the raw server). */
  embedded: PlannedChunk[];
  timings: { parseMs: number; chunkMs: number; embedWriteMs: number; writeMs: number; totalMs: number };
}

const now = () => performance.now();

type TodoChunk = { chunk: PlannedChunk; index: number };
type IngestDoc = Pick<DocumentRow, "id" | "spaceId" | "createdAt" | "name">;

/** Ingest one document. `bytes` are given away: they move to the parsing worker (see parseOffThread). */
export async function ingestDocument(
  ctx: MemoContext,
  doc: IngestDoc,
  bytes: Uint8Array,
  options: IngestOptions = {},
): Promise<IngestStats> {
  const t0 = now();
  const signal = options.signal;
  // Off the event loop, with a time and memory budget (parse-thread.ts). The bytes are handed over:
  // nothing below reads them again.
  const parsed = await parseOffThread(bytes, doc.name, { signal, transfer: true });
  signal?.throwIfAborted();
  const t1 = now();
  const { model } = await activeModel(ctx);
  const { chunks, tokenizeCalls } = await countAndChunk(ctx, parsed.sections, options);
  signal?.throwIfAborted();
  const t2 = now();

  const todo = skipStoredChunks(ctx, doc, chunks);
  options.onProgress?.({ chunksTotal: chunks.length, chunksDone: chunks.length - todo.length });
  const { batches, writeMs } = await embedAndWriteBatches(ctx, doc, model, todo, chunks.length, options);
  removeStaleChunks(ctx, doc.id, chunks);
  const t3 = now();
  const embedded = todo.map((t) => t.chunk);
  return {
    kind: parsed.kind,
    model,
    mime: parsed.mime,
    chars: parsed.chars,
    chunks: chunks.length,
    added: todo.length,
    skipped: chunks.length - todo.length,
    tokens: chunks.reduce((n, c) => n + c.tokens, 0),
    tokensEmbedded: embedded.reduce((n, c) => n + c.tokens, 0),
    tokenizeCalls,
    batches,
    embedded,
    timings: { parseMs: t1 - t0, chunkMs: t2 - t1, embedWriteMs: t3 - t2, writeMs, totalMs: t3 - t0 },
  };
}

/** Cut the parsed text into token-counted chunks, reporting the counting's progress every 250 ms. */
async function countAndChunk(
  ctx: MemoContext,
  sections: Parameters<typeof chunkSections>[0],
  options: IngestOptions,
): ReturnType<typeof chunkSections> {
  const counter = new TokenCounter(ctx.embedder, options.concurrency ?? 8);
  const charsTotal = sections.reduce((n, s) => n + s.text.length + (s.heading?.length ?? 0), 0);
  const counting = () => options.onCounting?.({ charsDone: Math.min(counter.charsCounted, charsTotal), charsTotal });
  counting();
  const ticker = options.onCounting ? setInterval(counting, 250) : null;
  try {
    return await chunkSections(sections, counter, options);
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

/**
 * The chunks to embed: those not already live in the space, and not repeats within this document. The ones
 * already stored are linked to this document (so they stay when the other document is deleted).
 */
function skipStoredChunks(ctx: MemoContext, doc: IngestDoc, chunks: PlannedChunk[]): TodoChunk[] {
  const seen = new Set<string>();
  const todo: TodoChunk[] = [];
  const shared: { memoryId: string; chunkIndex: number }[] = [];
  chunks.forEach((chunk, index) => {
    const h = contentHash(chunk.content);
    if (seen.has(h)) return;
    seen.add(h);
    const existing = findLiveByHash(ctx.db, doc.spaceId, h);
    if (existing) shared.push({ memoryId: existing.id, chunkIndex: index });
    else todo.push({ chunk, index });
  });
  if (shared.length) linkDocumentChunks(ctx.db, doc.id, shared);
  return todo;
}

/**
 * Embed `todo` in batches sized by time (or `options.batchSize`) and write each batch in one transaction,
 * with the next batch's request in flight while the previous one is written.
 */
async function embedAndWriteBatches(
  ctx: MemoContext,
  doc: IngestDoc,
  model: string,
  todo: TodoChunk[],
  chunksTotal: number,
  options: IngestOptions,
): Promise<{ batches: number[]; writeMs: number }> {
  const signal = options.signal;
  const fixed = options.batchSize ? Math.max(1, Math.floor(options.batchSize)) : null;
  const target = options.requestTargetMs ?? requestTargetMs();
  let size = fixed ?? FIRST_BATCH;
  let msPerChunk: number | null = null;
  let pos = 0;
  let done = chunksTotal - todo.length;
  const batches: number[] = [];
  type Batch = { items: TodoChunk[]; result: Promise<{ vectors: Float32Array[]; ms: number }> };
  const send = (): Batch | null => {
    if (pos >= todo.length) return null;
    const items = todo.slice(pos, pos + size);
    pos += items.length;
    batches.push(items.length);
    const t = now();
    return {
      items,
      result: ctx.embedder
        .embedDocuments(items.map((x) => x.chunk.content))
        .then((vectors) => ({ vectors, ms: now() - t })),
    };
  };
  let writeMs = 0;
  // One request in flight while the previous batch is written: the server never waits for the database.
  let inFlight = send();
  try {
    while (inFlight) {
      const { items } = inFlight;
      const { vectors, ms } = await inFlight.result;
      signal?.throwIfAborted();
      if (!fixed) {
        const per = ms / items.length;
        msPerChunk = msPerChunk === null ? per : 0.7 * msPerChunk + 0.3 * per;
        size = Math.max(1, Math.min(MAX_BATCH, Math.floor(target / msPerChunk)));
      }
      inFlight = send();
      const tw = now();
      writeBatch(ctx, doc, model, items, vectors);
      writeMs += now() - tw;
      done += items.length;
      options.onProgress?.({ chunksTotal, chunksDone: done });
    }
  } finally {
    inFlight?.result.catch(() => undefined); // an abandoned request must not become an unhandled rejection
  }
  return { batches, writeMs };
}

/** One batch's memories and their links to this document, in one transaction. */
function writeBatch(ctx: MemoContext, doc: IngestDoc, model: string, items: TodoChunk[], vectors: Float32Array[]) {
  const rows: NewMemory[] = items.map(({ chunk, index }) => ({
    spaceId: doc.spaceId,
    content: chunk.content,
    timestamp: doc.createdAt,
    kind: "document",
    documentId: doc.id,
    chunkIndex: index,
  }));
  writeTransaction(ctx.db, () => {
    const ids = insertMemories(ctx.db, rows, vectors, model);
    linkDocumentChunks(
      ctx.db,
      doc.id,
      ids.map((memoryId, i) => ({ memoryId, chunkIndex: rows[i]!.chunkIndex ?? null })),
    );
  });
}

/**
 * Memories of this document from an earlier run whose chunk is not in today's plan (e.g. the chunker changed
 * since an interrupted run) would be half of an old version: remove them (one transaction).
 */
function removeStaleChunks(ctx: MemoContext, documentId: string, chunks: PlannedChunk[]) {
  const planned = new Set(chunks.map((c) => contentHash(c.content)));
  const linked = ctx.db
    .prepare(
      "SELECT m.id, m.content_hash AS hash FROM document_chunks l JOIN memories m ON m.id = l.memory_id WHERE l.document_id = ?",
    )
    .all(documentId) as { id: string; hash: string }[];
  const stale = linked.filter((r) => !planned.has(r.hash));
  if (stale.length)
    unlinkDocument(
      ctx.db,
      documentId,
      stale.map((r) => r.id),
    );
}
