/**
 * Re-index on an embedding-model change (docs/architecture.md#models-and-providers). When the embedder serves another model or dimension
 * than the store's vectors were made with, the store is not refused: its vectors are rebuilt in the
 * background and swapped in when complete.
 *
 * - begin: a new vec0 table `memory_vec_next` (the new dimension, same shape as memory_vec) and meta
 *   `reindex_model` / `reindex_dim` (the target), `reindex_progress` (for the UI), in one transaction.
 * - re-embed: every memory, live and soft-deleted (the trash vectors too), in batches, each batch
 *   written in one transaction (a row is only written if its content is still what was embedded).
 * - writes meanwhile are not lost: the store routes vectors of the target model into memory_vec_next
 *   (store.insertMemories / updateMemoryContent); a write of the old model (another process) leaves
 *   its row for the re-index to pick up; purges remove rows there too. Passes repeat until every memory
 *   has a new vector.
 * - swap, in ONE transaction: memory_vec is dropped and created again with the new dimension, filled
 *   from memory_vec_next (live memories) and memory_vec_trash refilled (soft-deleted ones), then
 *   memory_vec_next is dropped, meta embedding_model / embedding_dim set, vec_generation bumped. (vec0
 *   0.1.9 cannot rename its shadow tables, so the swap copies: measured ~65 µs per row on this machine,
 *   ~0.7 s at 10K memories.)
 *
 * - facts: their vectors (a plain table, each fact's model on its row) are re-embedded right after the
 *   swap (server/memory/facts/reembed.ts); until then their vector leg skips them (another model's vectors
 *   are never compared with a query), and a crash in between is caught up by reindex-job.ts.
 *
 * Search meanwhile (our choice, and the honest one): memory_vec holds vectors of the OLD model and the
 * embedder now only serves the NEW one, so no query vector can be compared with them — a query embedded
 * with the new model would return confident nonsense. Until the swap, retrieval runs its keyword leg
 * only and says so (retrieve.ts: RetrieveResult.notice); the vector leg comes back with the swap.
 */
import type Database from "better-sqlite3";
import type { Embedder } from "../../core/context";
import {
  boundModel,
  createNextVectors,
  dropNextVectors,
  logVectorReset,
  reindexTarget,
  storeNextVectors,
  swapInNextVectors,
} from "../store";
import { resetStatementCache } from "../../core/statements";
import { getMeta, setMeta } from "../../core/meta";
import { reembedFacts } from "../facts/reembed";

export interface ModelRef {
  model: string;
  dim: number;
}

export interface ReindexProgress {
  status: "running" | "done" | "failed" | "cancelled";
  from: ModelRef | null;
  to: ModelRef;
  /** Memories in the store (live and soft-deleted) and how many have a new vector. */
  total: number;
  done: number;
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  error?: string;
}

const PROGRESS = "reindex_progress";

export function readReindexProgress(db: Database.Database): ReindexProgress | null {
  const raw = getMeta(db, PROGRESS);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as ReindexProgress;
  } catch {
    return null;
  }
}

function writeProgress(db: Database.Database, p: ReindexProgress): void {
  setMeta(db, PROGRESS, JSON.stringify(p));
}

const count = (db: Database.Database, sql: string, ...args: unknown[]) =>
  (db.prepare(sql).get(...args) as { n: number }).n;

/** The store holds vectors (of live or soft-deleted memories) that a model change would strand. */
export function storeHoldsVectors(db: Database.Database): boolean {
  return count(db, "SELECT count(*) AS n FROM memories") + count(db, "SELECT count(*) AS n FROM memory_vec_trash") > 0;
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== undefined;
}

/**
 * Start a re-index towards `to`, or resume the one in progress for the same target (a crash or restart
 * keeps memory_vec_next and what it holds). A re-index towards another target is replaced.
 */
export function beginReindex(db: Database.Database, to: ModelRef): ReindexProgress {
  const p = db
    .transaction(() => {
      const cur = reindexTarget(db);
      if (cur && cur.model === to.model && cur.dim === to.dim && tableExists(db, "memory_vec_next")) {
        const prev = readReindexProgress(db);
        const p: ReindexProgress = {
          status: "running",
          from: prev?.from ?? boundModel(db) ?? null,
          to,
          total: count(db, "SELECT count(*) AS n FROM memories"),
          done: count(
            db,
            "SELECT count(*) AS n FROM memories m WHERE EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)",
          ),
          startedAt: prev?.startedAt ?? new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        };
        writeProgress(db, p);
        return p;
      }
      createNextVectors(db, to.dim);
      setMeta(db, "reindex_model", to.model);
      setMeta(db, "reindex_dim", String(to.dim));
      const now = new Date().toISOString();
      const p: ReindexProgress = {
        status: "running",
        from: boundModel(db) ?? null,
        to,
        total: count(db, "SELECT count(*) AS n FROM memories"),
        done: 0,
        startedAt: now,
        updatedAt: now,
      };
      writeProgress(db, p);
      return p;
    })
    .immediate();
  resetStatementCache(db);
  return p;
}

/** Abandon a re-index: memory_vec (the bound model's) stays as it is. */
export function cancelReindex(db: Database.Database, reason: string): void {
  db.transaction(() => {
    dropNextVectors(db);
    db.prepare("DELETE FROM meta WHERE key IN ('reindex_model', 'reindex_dim')").run();
    const p = readReindexProgress(db);
    if (p && p.status === "running")
      writeProgress(db, {
        ...p,
        status: "cancelled",
        error: reason,
        finishedAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      });
  }).immediate();
  resetStatementCache(db);
}

/** Record that a re-index stopped with an error (it resumes when started again). */
export function markReindexFailed(db: Database.Database, error: string): void {
  const p = readReindexProgress(db);
  if (p && p.status === "running")
    writeProgress(db, { ...p, status: "failed", error, updatedAt: new Date().toISOString() });
}

interface Pending {
  rid: number;
  content: string;
  contentHash: string;
}

/** The next memories (by rid, after `afterRid`) that have no vector in memory_vec_next yet. */
export function pendingBatch(db: Database.Database, afterRid: number, limit: number): Pending[] {
  return db
    .prepare(
      `SELECT rid, content, content_hash AS contentHash FROM memories m
       WHERE rid > ? AND NOT EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid) ORDER BY rid LIMIT ?`,
    )
    .all(afterRid, limit) as Pending[];
}

/** Write one batch of new vectors, in one transaction; rows changed or gone since they were read are left out. */
export function storeBatch(db: Database.Database, rows: Pending[], vectors: Float32Array[]): number {
  return db
    .transaction(() => {
      const n = storeNextVectors(db, rows, vectors);
      const p = readReindexProgress(db);
      if (p)
        writeProgress(db, {
          ...p,
          done: p.done + n,
          total: count(db, "SELECT count(*) AS n FROM memories"),
          updatedAt: new Date().toISOString(),
        });
      return n;
    })
    .immediate();
}

/**
 * The swap, in one transaction. False (and nothing changed) when some memory still lacks a new vector
 * (written meanwhile by the old model): the caller embeds those and tries again.
 */
export function swapVectorTables(db: Database.Database): boolean {
  const done = db
    .transaction(() => {
      const t = reindexTarget(db);
      if (!t || !tableExists(db, "memory_vec_next")) throw new Error("no re-index is in progress");
      if (
        count(
          db,
          "SELECT count(*) AS n FROM memories m WHERE NOT EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)",
        ) > 0
      )
        return false;
      const moved = swapInNextVectors(db, t.model, t.dim);
      setMeta(db, "embedding_model", t.model);
      setMeta(db, "embedding_dim", String(t.dim));
      db.prepare("DELETE FROM meta WHERE key IN ('reindex_model', 'reindex_dim')").run();
      setMeta(db, "vec_generation", String(Number(getMeta(db, "vec_generation") ?? 0) + 1));
      logVectorReset(db); // in-memory indexes cannot replay a table swap: they rebuild
      const p = readReindexProgress(db);
      const now = new Date().toISOString();
      if (p)
        writeProgress(db, {
          ...p,
          status: "done",
          done: moved,
          total: moved,
          updatedAt: now,
          finishedAt: now,
        });
      return true;
    })
    .immediate();
  resetStatementCache(db);
  return done;
}

export class ReindexAborted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReindexAborted";
  }
}

export interface ReindexOptions {
  batchSize?: number;
  signal?: AbortSignal;
  /** After each batch (the job renews its lease and the UI reads the progress from meta). */
  onBatch?: (p: ReindexProgress | null) => void;
  /** Tries per batch when the embedder fails (1 s, 2 s, 4 s… apart); default 5. */
  attempts?: number;
  maxPasses?: number;
}

/**
 * Re-embed every memory lacking a new vector, batch by batch, then swap; repeat while writes of the old
 * model slipped in. The embedder must serve the target model throughout (else ReindexAborted).
 */
export async function reindexAll(
  db: Database.Database,
  embedder: Embedder,
  opts: ReindexOptions = {},
): Promise<{ embedded: number; passes: number; swapMs: number; facts: number }> {
  const target = reindexTarget(db);
  if (!target) throw new ReindexAborted("no re-index is in progress");
  const batchSize = opts.batchSize ?? 32;
  const attempts = opts.attempts ?? 5;
  /** Embed with the target model, retrying the embedder's failures (1 s, 2 s, 4 s… apart). */
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const info = await embedder.info();
        if (info.model !== target.model || info.dim !== target.dim) {
          throw new ReindexAborted(
            `the embedding server now serves ${info.model} (${info.dim}-d), not ${target.model} (${target.dim}-d)`,
          );
        }
        return await embedder.embedDocuments(texts);
      } catch (e) {
        if (e instanceof ReindexAborted || attempt >= attempts || opts.signal?.aborted) throw e;
        await new Promise((r) => setTimeout(r, 1000 * 2 ** (attempt - 1)));
      }
    }
  };
  let embedded = 0;
  for (let pass = 1; pass <= (opts.maxPasses ?? 20); pass++) {
    let after = 0;
    for (;;) {
      opts.signal?.throwIfAborted();
      const rows = pendingBatch(db, after, batchSize);
      if (rows.length === 0) break;
      const vectors = await embed(rows.map((r) => r.content));
      const now = reindexTarget(db);
      if (!now || now.model !== target.model || now.dim !== target.dim)
        throw new ReindexAborted("the re-index was cancelled or replaced");
      embedded += storeBatch(db, rows, vectors);
      after = rows[rows.length - 1]!.rid;
      opts.onBatch?.(readReindexProgress(db));
      await new Promise<void>((r) => setImmediate(r));
    }
    const t0 = performance.now();
    if (swapVectorTables(db)) {
      const swapMs = +(performance.now() - t0).toFixed(1);
      // The store is now the target model's: the facts' vectors follow (never compared meanwhile).
      const facts = await reembedFacts(db, target.model, embed, { batchSize, signal: opts.signal });
      return { embedded, passes: pass, swapMs, facts };
    }
  }
  throw new Error("the re-index could not catch up with writes of the old model");
}
