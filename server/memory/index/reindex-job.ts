/**
 * Runs the re-index (server/memory/index/reindex.ts) as a background job of this process: started when the
 * embedding-model check (model-check.ts, activeModel()) finds the embedder serving another model than the store's, exclusive
 * across processes (lease `reindex`), recorded in job_runs, resumed after a crash or restart (the next
 * activeModel() call finds memory_vec_next and continues where it stopped).
 */
import type Database from "better-sqlite3";
import { stopAnnIndex } from "./ann-registry";
import type { Embedder } from "../../core/context";
import {
  beginReindex,
  cancelReindex,
  markReindexFailed,
  readReindexProgress,
  reindexAll,
  ReindexAborted,
  storeHoldsVectors,
  type ModelRef,
  type ReindexProgress,
} from "./reindex";
import { boundModel, reindexTarget } from "../store";
import { leaseHolder } from "../../core/lease";
import { runExclusive, type RunRecord } from "../../core/job-runner";
import { hasStaleFacts, reembedFacts } from "../facts/reembed";

export interface ReindexHooks {
  /** Start serving vector queries for the new dimension once swapped (the ANN index). */
  startIndex?: (dim: number) => void;
  batchSize?: number;
  log?: (msg: string) => void;
}

interface Running {
  target: ModelRef;
  promise: Promise<RunRecord>;
}

const g = globalThis as unknown as {
  __memoReindex?: WeakMap<Database.Database, Running>;
  __memoReindexFailedAt?: WeakMap<Database.Database, number>;
  __memoFactCatchUp?: WeakMap<Database.Database, { running: boolean; done?: Promise<number> }>;
};
const factCatchUp = (g.__memoFactCatchUp ??= new WeakMap());
const running = (g.__memoReindex ??= new WeakMap());
const failedAt = (g.__memoReindexFailedAt ??= new WeakMap());

/** After a failed run, wait this long before activeModel() may start another (the embedder may be down). */
export const RETRY_AFTER_MS = 30_000;
const LEASE_MS = 60_000;

/**
 * Decide what the store does with the embedder's model: "bind" (no vectors to strand, or the same model:
 * the caller binds as before) or "reindexing" (a re-index towards `info` is running or was just started).
 */
export function reconcileEmbeddingModel(
  db: Database.Database,
  embedder: Embedder,
  info: ModelRef,
  hooks: ReindexHooks = {},
): "bind" | "reindexing" {
  const bound = boundModel(db);
  const target = reindexTarget(db);
  const same = (a: ModelRef | undefined) => a !== undefined && a.model === info.model && a.dim === info.dim;
  if (target) {
    if (same(target)) {
      ensureReindexRunning(db, embedder, hooks);
      return "reindexing";
    }
    // The model changed again, or back. Back to the bound model with nothing written by the target: cancel.
    const writtenByTarget = (
      db.prepare("SELECT count(*) AS n FROM memories WHERE embedding_model = ?").get(target.model) as { n: number }
    ).n;
    if (same(bound) && writtenByTarget === 0) {
      cancelReindex(db, `the embedding server serves ${info.model} again`);
      return "bind";
    }
    beginReindex(db, info);
    ensureReindexRunning(db, embedder, hooks);
    return "reindexing";
  }
  if (same(bound)) catchUpFacts(db, embedder, info, hooks);
  if (!bound || same(bound) || !storeHoldsVectors(db)) return "bind";
  hooks.log?.(
    `[reindex] the store holds ${bound.model} (${bound.dim}-d) vectors; the embedder serves ${info.model} (${info.dim}-d): re-indexing in the background`,
  );
  beginReindex(db, info);
  ensureReindexRunning(db, embedder, hooks);
  return "reindexing";
}

/** Start the background re-index in this process unless it runs here or in another process already. */
export function ensureReindexRunning(
  db: Database.Database,
  embedder: Embedder,
  hooks: ReindexHooks = {},
): Promise<RunRecord> | null {
  const target = reindexTarget(db);
  if (!target) return null;
  const cur = running.get(db);
  if (cur) return cur.promise;
  if (leaseHolder(db, "reindex")) return null; // another process is on it
  const last = failedAt.get(db);
  if (last && Date.now() - last < RETRY_AFTER_MS) return null;
  const promise = runExclusive(
    db,
    "reindex",
    async (run) => {
      const from = readReindexProgress(db)?.from ?? null;
      try {
        const r = await reindexAll(db, embedder, { batchSize: hooks.batchSize, onBatch: () => run.renew() });
        // The in-memory index mirrored the old table: rebuild it for the new dimension.
        stopAnnIndex(db);
        hooks.startIndex?.(target.dim);
        hooks.log?.(
          `[reindex] done: ${r.embedded} memories and ${r.facts} facts re-embedded for ${target.model}; swap took ${r.swapMs} ms`,
        );
        return {
          status: "ok",
          result: {
            from,
            to: target,
            embedded: r.embedded,
            facts: r.facts,
            passes: r.passes,
            swapMs: r.swapMs,
            total: readReindexProgress(db)?.total ?? null,
          },
        };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        // Cancelled (the embedder went back to the store's model) or replaced by a newer target: not a failure.
        const target2 = reindexTarget(db);
        if (e instanceof ReindexAborted && (!target2 || target2.model !== target.model || target2.dim !== target.dim)) {
          return { status: "skipped", result: { from, to: target, reason: message } };
        }
        markReindexFailed(db, message);
        throw Object.assign(e instanceof Error ? e : new Error(message), {
          partial: { from, to: target, progress: readReindexProgress(db) },
        });
      }
    },
    { trigger: "auto", leaseMs: LEASE_MS, recordRefusal: false },
  ).then(
    (rec) => {
      running.delete(db);
      if (rec.status === "failed") failedAt.set(db, Date.now());
      else failedAt.delete(db);
      if (rec.status === "failed")
        hooks.log?.(
          `[reindex] stopped: ${rec.error} (it resumes on the next request after ${RETRY_AFTER_MS / 1000} s)`,
        );
      return rec;
    },
    (e: unknown) => {
      running.delete(db);
      failedAt.set(db, Date.now());
      throw e;
    },
  );
  promise.catch(() => undefined);
  running.set(db, { target, promise });
  return promise;
}

export interface ReindexStatus {
  /** Progress of the current or last re-index (null: never re-indexed). */
  progress: ReindexProgress | null;
  /** A re-index is in progress (its table exists), whether or not this process runs it. */
  active: boolean;
  /** This process runs it now. */
  runningHere: boolean;
  /** Who holds the re-index lease. */
  holder: string | null;
}

export function reindexStatus(db: Database.Database): ReindexStatus {
  return {
    progress: readReindexProgress(db),
    active: reindexTarget(db) !== undefined,
    runningHere: running.has(db),
    holder: leaseHolder(db, "reindex")?.owner ?? null,
  };
}

/** Wait for this process's re-index of `db` to finish (tests, shutdown). */
export function reindexDone(db: Database.Database): Promise<RunRecord> | null {
  return running.get(db)?.promise ?? null;
}

/**
 * Facts whose vectors are of another model than the one the store is bound to and the embedder serves (a
 * crash between a re-index's swap and its fact re-embed, or a fact written by a process still on the old
 * model): re-embedded in the background, one run at a time per process. Until then their vector leg skips them.
 */
function catchUpFacts(db: Database.Database, embedder: Embedder, info: ModelRef, hooks: ReindexHooks): void {
  if (factCatchUp.get(db)?.running || !hasStaleFacts(db, info.model)) return;
  const entry: { running: boolean; done?: Promise<number> } = { running: true };
  entry.done = reembedFacts(db, info.model, (texts) => embedder.embedDocuments(texts), { batchSize: hooks.batchSize })
    .then((n) => {
      hooks.log?.(`[reindex] ${n} facts re-embedded for ${info.model}`);
      return n;
    })
    .catch((e: unknown) => {
      hooks.log?.(`[reindex] facts not re-embedded yet: ${e instanceof Error ? e.message : String(e)}`);
      return 0;
    })
    .finally(() => {
      entry.running = false;
    });
  factCatchUp.set(db, entry);
}

/** The latest background fact re-embed of `db` in this process (tests). */
export function factCatchUpDone(db: Database.Database): Promise<number> | undefined {
  return factCatchUp.get(db)?.done;
}
