/**
 * The ingestion job queue: off the request path, one document at a time (the embedding server is the
 * bottleneck; two jobs would only share it), progress written to the document's row after every batch so
 * any page — also after a reload — re-attaches by polling the row. Jobs are cancellable.
 *
 * Never half-written: a job that fails or is cancelled removes every memory of its document in one
 * transaction before its row says `failed`/`cancelled`. After a crash or restart, recover() re-queues
 * unfinished documents whose uploaded file is still on disk (chunks already written are recognised by
 * their content hash and skipped, so the job resumes where it stopped) and cleanly fails the others
 * (their partial memories removed in one transaction).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { EmbedderUnavailableError } from "../embedder/supervisor";
import { EmbedderResponseError } from "../embedder/client";
import { StoreError } from "../core/errors";
import { noteStorageFault, storageFaultOf } from "../core/storage-fault";
import { appContext } from "../context";
import type { MemoContext } from "../core/context";
import { IngestError } from "./detect";
import {
  getDocument,
  purgeDocumentMemories,
  settleDocument,
  unfinishedDocuments,
  updateDocument,
  type DocumentRow,
} from "./documents";
import { ingestDocument, type IngestOptions, type IngestStats } from "./pipeline";
import { recordIngestRate } from "./ingest-rate";
import { runAsSystem } from "../core/acting";

/** Where uploaded files are kept (beside the store, like the ANN index files): `<store dir>/uploads/<document id>`. */
/**
 * Where a running document is (the Ingest page's percentage and time left): reading the file, counting its
 * text's tokens (characters done of all), embedding and writing its chunks. `doneAtStart` is where the
 * stage began (chunks already stored are skipped at once), so a rate is measured on this run's work.
 */
export interface IngestStage {
  name: "reading" | "counting" | "embedding";
  done: number;
  total: number;
  startedAt: string;
  doneAtStart: number;
}

export function uploadsDirFor(db: Database.Database): string {
  if (!db.name || db.name === ":memory:") return path.join(os.tmpdir(), `memo-uploads-${process.pid}`);
  return path.join(path.dirname(db.name), "uploads");
}

export function uploadPath(dir: string, id: string): string {
  return path.join(dir, id);
}

class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

/** A failure as the document row shows it. */
export function failureMessage(e: unknown): string {
  if (e instanceof IngestError) return e.message;
  const fault = storageFaultOf(e);
  if (fault) {
    noteStorageFault(fault);
    return fault.message;
  }
  if (e instanceof EmbedderUnavailableError)
    return `${e.message.replace(/ Nothing was written\.$/, "")} Re-ingest the file once the embedding server is back.`;
  if (e instanceof EmbedderResponseError) return `the embedding server gave a bad answer: ${e.message}`;
  if (e instanceof StoreError) return e.message;
  console.error("[ingest] unexpected error", e);
  return `internal error while ingesting: ${e instanceof Error ? e.message : String(e)}`;
}

export interface QueueOptions {
  uploadsDir: string;
  ingest?: Omit<IngestOptions, "signal" | "onProgress">;
  /** How long a job waits for the supervised embedding server to become ready before trying anyway. */
  embedderWaitMs?: number;
  /** Told when a job finishes (the benchmark reads the stats). */
  onFinished?: (
    doc: DocumentRow,
    outcome: { status: "done"; stats: IngestStats } | { status: "failed" | "cancelled"; error: string | null },
  ) => void;
}

export class IngestQueue {
  private pending: string[] = [];
  private active: { id: string; controller: AbortController; finished: Promise<void> } | null = null;
  private idle: (() => void)[] = [];
  private stage: { id: string; now: IngestStage } | null = null;
  private stopped = false;

  constructor(
    readonly ctx: MemoContext,
    readonly opts: QueueOptions,
  ) {
    fs.mkdirSync(opts.uploadsDir, { recursive: true, mode: 0o700 });
  }

  get uploadsDir(): string {
    return this.opts.uploadsDir;
  }

  fileOf(id: string): string {
    return uploadPath(this.opts.uploadsDir, id);
  }

  hasFile(id: string): boolean {
    return fs.existsSync(this.fileOf(id));
  }

  /** Queue a document whose row is `queued` (no-op when it already is). */
  enqueue(id: string): void {
    if (this.active?.id === id || this.pending.includes(id)) return;
    this.pending.push(id);
    this.pump();
  }

  isQueuedOrActive(id: string): boolean {
    return this.active?.id === id || this.pending.includes(id);
  }

  /** Documents ahead of this one (0: running now), or -1 when not queued here. */
  position(id: string): number {
    if (this.active?.id === id) return 0;
    const i = this.pending.indexOf(id);
    return i < 0 ? -1 : i + (this.active ? 1 : 0);
  }

  /** Resolves when no job is running or pending. */
  whenIdle(): Promise<void> {
    if (!this.active && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Cancel a document's job. A pending one never starts; a running one stops after its current request
   * (at most one batch) and its memories are removed. Resolves once the row says `cancelled`.
   */
  async cancel(id: string): Promise<boolean> {
    const i = this.pending.indexOf(id);
    if (i >= 0) {
      this.pending.splice(i, 1);
      this.finish(id, "cancelled", null);
      this.notifyIdle();
      return true;
    }
    if (this.active?.id === id) {
      const { controller, finished } = this.active;
      controller.abort(new CancelledError());
      await finished;
      return true;
    }
    const row = getDocument(this.ctx.db, id);
    if (row && (row.status === "queued" || row.status === "processing")) {
      // A row left unfinished with no job here (e.g. before recover() ran): settle it now.
      this.finish(id, "cancelled", null);
      return true;
    }
    return false;
  }

  /** Stop taking jobs and abort the running one (its row stays unfinished: recover() resumes it later). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending = [];
    const a = this.active;
    if (a) {
      a.controller.abort(new Error("queue stopped"));
      await a.finished;
    }
  }

  /**
   * After a start: remove staged uploads that never got a row and files of deleted documents, then
   * resume unfinished documents (oldest first) or fail them cleanly when their file is gone.
   */
  recover(): { resumed: string[]; failed: string[] } {
    const db = this.ctx.db;
    const dir = this.opts.uploadsDir;
    for (const f of fs.readdirSync(dir)) {
      if (f.startsWith(".incoming-") || !getDocument(db, f)) fs.rmSync(path.join(dir, f), { force: true });
    }
    const resumed: string[] = [];
    const failed: string[] = [];
    for (const row of unfinishedDocuments(db)) {
      if (this.isQueuedOrActive(row.id)) continue;
      if (this.hasFile(row.id)) {
        updateDocument(db, row.id, { status: "queued", error: null });
        this.enqueue(row.id);
        resumed.push(row.id);
      } else {
        this.finish(
          row.id,
          "failed",
          "Memo stopped before this file was ingested and the uploaded file is no longer on disk; upload it again",
        );
        failed.push(row.id);
      }
    }
    return { resumed, failed };
  }

  private pump(): void {
    if (this.active || this.stopped) return;
    const id = this.pending.shift();
    if (!id) {
      this.notifyIdle();
      return;
    }
    const controller = new AbortController();
    // Every person's documents go through one queue: a run never acts as the request that woke it.
    const finished = runAsSystem(() => this.run(id, controller.signal)).finally(() => {
      this.active = null;
      this.pump();
    });
    this.active = { id, controller, finished };
  }

  private notifyIdle(): void {
    if (this.active || this.pending.length) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }

  /** Settle a document that will not complete: memories out and the row's status, one transaction. */
  private finish(id: string, status: "failed" | "cancelled", error: string | null): void {
    settleDocument(this.ctx.db, id, status, error);
  }

  private async waitForEmbedder(signal: AbortSignal): Promise<void> {
    const status = this.ctx.embedderStatus;
    if (!status) return;
    const deadline = Date.now() + (this.opts.embedderWaitMs ?? 120_000);
    while (status().status !== "ready" && Date.now() < deadline) {
      signal.throwIfAborted();
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** The running document's stage (reading, counting, embedding) with its progress; null when none runs. */
  stageOf(id: string): IngestStage | null {
    return this.stage?.id === id ? this.stage.now : null;
  }

  private setStage(id: string, name: IngestStage["name"], done: number, total: number): void {
    const same = this.stage?.id === id && this.stage.now.name === name;
    const startedAt = same ? this.stage!.now.startedAt : new Date().toISOString();
    const doneAtStart = same ? this.stage!.now.doneAtStart : done;
    this.stage = { id, now: { name, done, total, startedAt, doneAtStart } };
  }

  private async run(id: string, signal: AbortSignal): Promise<void> {
    const db = this.ctx.db;
    const row = getDocument(db, id);
    if (!row || (row.status !== "queued" && row.status !== "processing")) return;
    updateDocument(db, id, { status: "processing", error: null, chunksTotal: 0, chunksDone: 0 });
    this.setStage(id, "reading", 0, 0);
    try {
      await this.waitForEmbedder(signal);
      let bytes: Buffer;
      try {
        bytes = await fs.promises.readFile(this.fileOf(id));
      } catch {
        throw new IngestError("MISSING_FILE", "the uploaded file is no longer on disk; upload it again");
      }
      let lastWrite = 0;
      const stats = await ingestDocument(this.ctx, row, bytes, {
        ...this.opts.ingest,
        signal,
        onCounting: (p) => this.setStage(id, "counting", p.charsDone, p.charsTotal),
        onProgress: (p) => {
          this.setStage(id, "embedding", p.chunksDone, p.chunksTotal);
          // Progress after every batch, at most ~10 row updates a second.
          const t = Date.now();
          if (p.chunksDone === p.chunksTotal || p.chunksDone === 0 || t - lastWrite >= 100) {
            lastWrite = t;
            updateDocument(db, id, { chunksTotal: p.chunksTotal, chunksDone: p.chunksDone });
          }
        },
      });
      signal.throwIfAborted();
      if (!getDocument(db, id)) {
        purgeDocumentMemories(db, id); // deleted while running
        return;
      }
      updateDocument(db, id, {
        status: "done",
        error: null,
        mime: stats.mime,
        chunksTotal: stats.chunks,
        chunksDone: stats.chunks,
      });
      // A whole run's time (nothing found already stored) is how long such a file takes here: the Ingest page
      // says it before the next upload (ingest-rate.ts).
      if (stats.skipped === 0 && stats.added > 0)
        recordIngestRate(db, { model: stats.model, kind: stats.kind, bytes: row.size, ms: stats.timings.totalMs });
      this.opts.onFinished?.(getDocument(db, id)!, { status: "done", stats });
    } catch (e) {
      if (signal.aborted && !(signal.reason instanceof CancelledError)) return; // stop(): leave it for recover()
      const cancelled = signal.aborted;
      const error = cancelled ? null : failureMessage(e);
      this.finish(id, cancelled ? "cancelled" : "failed", error);
      // Too large for the limits in force: ingesting it again can only fail again, so the kept file goes
      // (the row offers no Re-ingest; with a raised limit, the file is uploaded again).
      if (e instanceof IngestError && e.code === "TOO_LARGE") fs.rmSync(this.fileOf(id), { force: true });
      const after = getDocument(db, id);
      if (after) this.opts.onFinished?.(after, { status: cancelled ? "cancelled" : "failed", error });
    } finally {
      if (this.stage?.id === id) this.stage = null;
    }
  }
}

const g = globalThis as unknown as { __memoIngestQueues?: WeakMap<Database.Database, IngestQueue> };

/** The queue serving a store (one per store; the app has one store). */
export function queueFor(ctx: MemoContext, opts: Partial<QueueOptions> = {}): IngestQueue {
  g.__memoIngestQueues ??= new WeakMap();
  let q = g.__memoIngestQueues.get(ctx.db);
  if (!q) {
    q = new IngestQueue(ctx, { uploadsDir: uploadsDirFor(ctx.db), ...opts });
    g.__memoIngestQueues.set(ctx.db, q);
  }
  return q;
}

/** Boot hook: the app's queue, with unfinished documents resumed or failed (docs/architecture.md#ingestion, crash safety). */
export function startIngestQueue(): IngestQueue {
  const q = queueFor(appContext());
  try {
    const { resumed, failed } = q.recover();
    if (resumed.length || failed.length)
      console.log(
        `[ingest] after restart: ${resumed.length} document(s) resumed, ${failed.length} failed (file missing)`,
      );
  } catch (e) {
    console.error("[ingest] could not recover unfinished documents", e); // the app still serves; uploads still work
  }
  return q;
}
