/**
 * Document ingestion as operations for the REST API and the tRPC router (docs/architecture.md#ingestion): upload (validated per
 * file; a bad file gets its error on its row while the others go through), list, status, cancel, delete,
 * re-ingest. The work itself runs in the queue (server/ingest/queue.ts), off the request path.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { boundModel, restoreMemories, spaceExists } from "../memory/store";
import { ingestRates, type MeasuredRate, type RateKind } from "../ingest/ingest-rate";
import { parseLimits } from "../ingest/parse-limits";
import { isMine, mySpaceOf } from "../core/acting";
import { decodeUtf8, detectType, IngestError } from "../ingest/detect";
import {
  deleteDocumentRow,
  documentHash,
  documentLiveness,
  forgottenDocumentMemoryIds,
  findDocumentByHash,
  getDocument,
  insertDocuments,
  listDocuments as listRows,
  updateDocument,
  type DocumentRow,
  type DocumentStatus,
  type NewDocument,
} from "../ingest/documents";
import { discardStaged, MultipartError, readMultipart, type StagedFile } from "../ingest/multipart";
import { queueFor, type IngestQueue, type IngestStage } from "../ingest/queue";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";

export const DEFAULT_MAX_UPLOAD_MB = 50;

/** Per-file upload limit in bytes: MEMO_MAX_UPLOAD_MB (default 50). */
export function maxUploadBytes(): number {
  const mb = Number(process.env.MEMO_MAX_UPLOAD_MB ?? DEFAULT_MAX_UPLOAD_MB);
  return Math.floor((Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_MAX_UPLOAD_MB) * 1024 * 1024);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A document as the API and the page show it. */
export interface DocumentView extends DocumentRow {
  space: string;
  /** chunksDone / chunksTotal (1 when done). */
  progress: number;
  /** Live memories of this document (chunks already stored by another document are not counted). */
  memories: number;
  /** Its passages that were forgotten (/forget, the Manager): soft-deleted, restorable until purged. */
  forgotten: number;
  /** When the last of them was forgotten; null when none is. */
  forgottenAt: string | null;
  /** Whether the uploaded file is kept, so the document can be re-ingested. */
  canReingest: boolean;
  /** Documents ahead of it in the queue (0: running now), null when not queued. */
  queuePosition: number | null;
  /** While it runs: its stage and that stage's progress (the page's percentage and time left). */
  stage: IngestStage | null;
}

export interface UploadRow {
  id: string;
  name: string;
  status: DocumentStatus;
  error?: string;
  /** Set when the same bytes are already ingested (or on their way) in this space: the existing document. */
  duplicateOf?: string;
  /** Uploading a document whose passages were forgotten brings them back: how many were restored. */
  restored?: number;
  /** …and when some were purged for good meanwhile, the kept file is queued again to write them anew. */
  requeued?: boolean;
}

function views(ctx: MemoContext, rows: DocumentRow[]): DocumentView[] {
  const q = queueFor(ctx);
  const live = documentLiveness(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const pos = q.position(r.id);
    return {
      ...r,
      space: r.spaceId,
      progress: r.status === "done" ? 1 : r.chunksTotal > 0 ? Math.min(1, r.chunksDone / r.chunksTotal) : 0,
      memories: live.get(r.id)?.live ?? 0,
      forgotten: live.get(r.id)?.forgotten ?? 0,
      forgottenAt: live.get(r.id)?.forgottenAt ?? null,
      canReingest: r.status !== "queued" && r.status !== "processing" && q.hasFile(r.id),
      queuePosition: pos < 0 ? null : pos,
      stage: r.status === "processing" ? q.stageOf(r.id) : null,
    };
  });
}

export function getDocumentOr404(ctx: MemoContext, id: string): DocumentView {
  const row = getDocument(ctx.db, id);
  // Another person's document reads as missing (mine(): server/core/acting.ts).
  if (!row || !isMine(row.spaceId)) throw new ServiceError(404, `document ${id} not found`);
  return views(ctx, [row])[0]!;
}

export function listDocuments(ctx: MemoContext, space?: string): DocumentView[] {
  if (space !== undefined && !spaceExists(ctx.db, space))
    throw new ServiceError(404, `space '${space}' does not exist`);
  return views(
    ctx,
    listRows(ctx.db, space).filter((r) => isMine(r.spaceId)),
  );
}

/** Validate what can be checked from the bytes alone (size, type by content, UTF-8); null when fine. */
export function validateUpload(
  bytes: Uint8Array,
  name: string,
): { mime: string; error: null } | { mime: string | null; error: string } {
  try {
    const { kind, mime } = detectType(bytes, name);
    if (kind !== "pdf") decodeUtf8(bytes);
    return { mime, error: null };
  } catch (e) {
    if (e instanceof IngestError) return { mime: null, error: e.message };
    throw e;
  }
}

/**
 * Accept staged files (already on disk) into a space: each becomes a row — `queued` (file kept for the
 * job), `failed` with the reason, or the existing document when the same bytes are already there. All new
 * rows are written in one transaction, then queued.
 */
export async function acceptFiles(
  ctx: MemoContext,
  staged: StagedFile[],
  space: string,
  maxBytes = maxUploadBytes(),
): Promise<UploadRow[]> {
  const q = queueFor(ctx);
  const out: UploadRow[] = [];
  const rows: (NewDocument & { id: string })[] = [];
  const moves: { from: string; to: string }[] = [];
  const seenHere = new Map<string, string>();
  try {
    for (const f of staged) {
      const id = crypto.randomUUID();
      const base = { id, spaceId: space, name: f.filename, size: f.size };
      if (f.tooLarge || f.size > maxBytes) {
        const error = `the file is ${formatBytes(f.size)}; the limit is ${formatBytes(maxBytes)} per file (MEMO_MAX_UPLOAD_MB)`;
        rows.push({ ...base, mime: f.contentType, contentHash: "", status: "failed", error });
        out.push({ id, name: f.filename, status: "failed", error });
        continue;
      }
      const bytes = await fs.promises.readFile(f.path!);
      const hash = f.sha256!;
      const { mime, error } = validateUpload(bytes, f.filename);
      if (error !== null) {
        rows.push({ ...base, mime: mime ?? f.contentType, contentHash: hash, status: "failed", error });
        out.push({ id, name: f.filename, status: "failed", error });
        continue;
      }
      const sameHere = seenHere.get(hash);
      if (sameHere) {
        out.push({ id: sameHere, name: f.filename, status: "queued", duplicateOf: sameHere });
        continue;
      }
      const existing = findDocumentByHash(ctx.db, space, hash);
      if (
        existing &&
        (existing.status === "done" || existing.status === "queued" || existing.status === "processing")
      ) {
        const back = existing.status === "done" ? bringBack(ctx, existing) : {};
        out.push({
          id: existing.id,
          name: f.filename,
          status: back.requeued ? "queued" : existing.status,
          duplicateOf: existing.id,
          ...back,
        });
        continue;
      }
      seenHere.set(hash, id);
      rows.push({ ...base, mime, contentHash: hash, status: "queued" });
      moves.push({ from: f.path!, to: q.fileOf(id) });
      out.push({ id, name: f.filename, status: "queued" });
    }
    // Files into place first, then the rows: a crash in between leaves files without rows, which recover() removes.
    for (const m of moves) await fs.promises.rename(m.from, m.to);
    try {
      insertDocuments(ctx.db, rows);
    } catch (e) {
      await Promise.all(moves.map((m) => fs.promises.rm(m.to, { force: true })));
      throw e;
    }
  } finally {
    await discardStaged(staged.filter((f) => f.path && !moves.some((m) => m.from === f.path)));
  }
  for (const r of rows) if (r.status === "queued") q.enqueue(r.id);
  return out;
}

/**
 * The same file uploaded again while its document is done: whatever of it was forgotten comes back (the
 * upload says the person wants it), and what was purged meanwhile is written again from the kept file.
 */
function bringBack(ctx: MemoContext, doc: DocumentRow): { restored?: number; requeued?: boolean } {
  const forgotten = forgottenDocumentMemoryIds(ctx.db, doc.id);
  const restored = forgotten.length > 0 ? restoreMemories(ctx.db, forgotten).length : 0;
  const live = documentLiveness(ctx.db, [doc.id]).get(doc.id)?.live ?? 0;
  const q = queueFor(ctx);
  const requeued = live < doc.chunksTotal && q.hasFile(doc.id) && !q.isQueuedOrActive(doc.id);
  if (requeued) {
    updateDocument(ctx.db, doc.id, { status: "queued", error: null, chunksDone: 0, chunksTotal: 0 });
    q.enqueue(doc.id);
  }
  return { ...(restored > 0 ? { restored } : {}), ...(requeued ? { requeued } : {}) };
}

/** Bring back a document's forgotten passages (POST /api/v1/documents/:id/restore, the Ingest row's Restore). */
export function restoreDocument(ctx: MemoContext, id: string): DocumentView & { restored: number } {
  const row = getDocumentOr404(ctx, id);
  const forgotten = forgottenDocumentMemoryIds(ctx.db, id);
  if (forgotten.length === 0)
    throw new ServiceError(409, `nothing of ${row.name} is forgotten; ${row.memories} passage(s) are live`);
  const restored = restoreMemories(ctx.db, forgotten).length;
  return { ...getDocumentOr404(ctx, id), restored };
}

/** The acting person's key for the space named (or their default space). */
function spaceFrom(value: string | null | undefined): string {
  const space = mySpaceOf(value ?? DEFAULT_SPACE);
  if (space === null) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  return space;
}

/**
 * POST /api/v1/documents: multipart/form-data with one or more files in the field `file` and an optional
 * `space` (field or query parameter). Files stream to disk (bounded memory) under the per-file limit.
 */
export async function uploadDocuments(
  ctx: MemoContext,
  req: Request,
  opts: { maxBytes?: number } = {},
): Promise<{ documents: UploadRow[] }> {
  const maxBytes = opts.maxBytes ?? maxUploadBytes();
  const querySpace = new URL(req.url).searchParams.get("space");
  if (querySpace !== null) spaceFrom(querySpace);
  let parsed: Awaited<ReturnType<typeof readMultipart>>;
  try {
    parsed = await readMultipart(req, { dir: queueFor(ctx).uploadsDir, maxFileBytes: maxBytes });
  } catch (e) {
    if (e instanceof MultipartError) throw new ServiceError(e.status, e.message);
    throw e;
  }
  try {
    const space = spaceFrom(parsed.fields.space ?? querySpace);
    const wrong = parsed.files.find((f) => f.field !== "file");
    if (wrong) throw new ServiceError(400, `unexpected file field '${wrong.field}'; send files in the field 'file'`);
    if (parsed.files.length === 0)
      throw new ServiceError(400, "no file in the request; send one or more files in the multipart field 'file'");
    return { documents: await acceptFiles(ctx, parsed.files, space, maxBytes) };
  } finally {
    await discardStaged(parsed.files.filter((f) => f.path && fs.existsSync(f.path)));
  }
}

/** Add one file from memory (scripts, the benchmark, tests): the same path as an upload. */
export async function addDocument(
  ctx: MemoContext,
  name: string,
  bytes: Uint8Array,
  space: string = DEFAULT_SPACE,
): Promise<UploadRow> {
  const q = queueFor(ctx);
  const tmp = path.join(q.uploadsDir, `.incoming-${crypto.randomUUID()}`);
  await fs.promises.writeFile(tmp, bytes, { mode: 0o600 });
  const staged: StagedFile = {
    field: "file",
    filename: name,
    contentType: "application/octet-stream",
    path: tmp,
    size: bytes.byteLength,
    tooLarge: false,
    sha256: documentHash(bytes),
  };
  return (await acceptFiles(ctx, [staged], spaceFrom(space)))[0]!;
}

export async function cancelDocument(ctx: MemoContext, id: string): Promise<DocumentView> {
  const row = getDocumentOr404(ctx, id);
  if (row.status !== "queued" && row.status !== "processing")
    throw new ServiceError(
      409,
      `document ${row.name} is ${row.status}; only a queued or running document can be cancelled`,
    );
  await queueFor(ctx).cancel(id);
  return getDocumentOr404(ctx, id);
}

/** Delete a document: its job stopped, its memories removed from all three tables, its row and file gone. */
export async function deleteDocument(
  ctx: MemoContext,
  id: string,
): Promise<{ id: string; deleted: true; memories: number }> {
  getDocumentOr404(ctx, id);
  const q: IngestQueue = queueFor(ctx);
  if (q.isQueuedOrActive(id)) await q.cancel(id);
  const { memories } = deleteDocumentRow(ctx.db, id);
  await fs.promises.rm(q.fileOf(id), { force: true });
  return { id, deleted: true, memories };
}

/** Run a document through the pipeline again from its kept file: only chunks not stored yet are embedded. */
export function reingestDocument(ctx: MemoContext, id: string): DocumentView {
  const row = getDocumentOr404(ctx, id);
  if (row.status === "queued" || row.status === "processing")
    throw new ServiceError(409, `document ${row.name} is already ${row.status}`);
  const q = queueFor(ctx);
  if (!q.hasFile(id))
    throw new ServiceError(409, `the file of ${row.name} was not kept (it was rejected, or removed); upload it again`);
  updateDocument(ctx.db, id, { status: "queued", error: null, chunksDone: 0, chunksTotal: 0 });
  q.enqueue(id);
  return getDocumentOr404(ctx, id);
}

export interface UploadLimits {
  /** Bytes any file may have (MEMO_MAX_UPLOAD_MB). */
  maxUploadBytes: number;
  /** Characters of text a file may yield (MEMO_INGEST_MAX_CHARS): the limit a Markdown or text file meets first. */
  maxChars: number;
  /** Pages a PDF may have (MEMO_INGEST_MAX_PDF_PAGES). */
  maxPdfPages: number;
  accept: string[];
  /** How long a MB of each kind took here with the store's embedding model; null: nothing measured yet. */
  rates: Record<RateKind, MeasuredRate | null>;
}

/** What the Ingest page says before an upload: the limits per kind of file, and how long one takes here. */
export function uploadLimits(ctx: MemoContext): UploadLimits {
  const { maxChars, maxPdfPages } = parseLimits();
  return {
    maxUploadBytes: maxUploadBytes(),
    maxChars,
    maxPdfPages,
    accept: [".md", ".markdown", ".txt", ".pdf", "text/markdown", "text/plain", "application/pdf"],
    rates: ingestRates(ctx.db, boundModel(ctx.db)?.model ?? null),
  };
}
