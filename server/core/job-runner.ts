/**
 * Running a background job exclusively and on the record: every run takes the job's lease (lease.ts),
 * gets a `job_runs` row when it starts (status `running`) that is completed when it ends (`ok`,
 * `skipped` or `failed`, with its result counts or error, and its duration). A run that cannot start
 * because another holds the lease, or because its scheduled slot already ran in another process, is
 * recorded as `skipped` with the reason.
 */
import type Database from "better-sqlite3";
import { getMeta, setMeta } from "./meta";
import { leaseHolder, releaseLease, renewLease, takeLeaseIn, type Lease } from "./lease";

export const JOB_NAMES = ["decay", "consolidate", "reindex"] as const;
export type JobName = (typeof JOB_NAMES)[number];
export type RunStatus = "running" | "ok" | "failed" | "skipped";
export type Trigger = "manual" | "schedule" | "auto";

export interface JobRun {
  id: number;
  job: string;
  startedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  /** What the run did (counts, and the ids it changed), as recorded. */
  result: Record<string, unknown> | null;
  error: string | null;
  durationMs: number | null;
}

/** What a job body returns: `skipped` when it decided there was nothing it could do (and says why). */
export interface JobOutcome {
  status: "ok" | "skipped";
  result: Record<string, unknown>;
}

export interface RunHandle {
  id: number;
  /** Extend the lease (cheap: it writes at most every third of the lease time). */
  renew(): void;
}

export interface RunExclusiveOptions {
  trigger?: Trigger;
  /** A scheduled slot (e.g. the cron tick's time): a slot runs once, whichever process fires first. */
  slot?: string;
  /** Lease time; renewed every third of it while the run lasts. Default 2 minutes. */
  leaseMs?: number;
  /** Record a refused start as a `skipped` run (default true). */
  recordRefusal?: boolean;
}

/** A job whose start was refused: `refused` says why (the run row, when recorded, says the same). */
export type RunRecord = JobRun & { refused?: string };

const INTERRUPTED = "interrupted: the process running it stopped before it finished";

function rowToRun(r: Record<string, unknown>): JobRun {
  let result: Record<string, unknown> | null = null;
  if (typeof r.result === "string") {
    try {
      result = JSON.parse(r.result) as Record<string, unknown>;
    } catch {
      result = { raw: r.result };
    }
  }
  return {
    id: r.id as number,
    job: r.job as string,
    startedAt: r.startedAt as string,
    finishedAt: (r.finishedAt as string | null) ?? null,
    status: r.status as RunStatus,
    result,
    error: (r.error as string | null) ?? null,
    durationMs: (r.durationMs as number | null) ?? null,
  };
}

const COLS =
  "id, job, started_at AS startedAt, finished_at AS finishedAt, status, result, error, duration_ms AS durationMs";

export function getRun(db: Database.Database, id: number): JobRun | undefined {
  const r = db.prepare(`SELECT ${COLS} FROM job_runs WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  return r ? rowToRun(r) : undefined;
}

/** The most recent runs, newest first; optionally of one job. */
export function listRuns(db: Database.Database, opts: { limit?: number; job?: string } = {}): JobRun[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 500));
  const rows = (
    opts.job
      ? db.prepare(`SELECT ${COLS} FROM job_runs WHERE job = ? ORDER BY id DESC LIMIT ?`).all(opts.job, limit)
      : db.prepare(`SELECT ${COLS} FROM job_runs ORDER BY id DESC LIMIT ?`).all(limit)
  ) as Record<string, unknown>[];
  return rows.map(rowToRun);
}

function insertRun(
  db: Database.Database,
  job: string,
  status: RunStatus,
  startedAt: string,
  result: Record<string, unknown>,
  finished: boolean,
): number {
  const r = db
    .prepare(
      "INSERT INTO job_runs (job, started_at, finished_at, status, result, duration_ms) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .run(job, startedAt, finished ? startedAt : null, status, JSON.stringify(result), finished ? 0 : null);
  return Number(r.lastInsertRowid);
}

const slotKey = (job: string) => `job_slot:${job}`;

/**
 * Run `fn` as job `job`, exclusively across processes, recorded in job_runs. Resolves with the run as
 * recorded; a refused start resolves too (status `skipped`, `refused` set). A throw inside `fn` makes the
 * run `failed` with the error's message (the promise still resolves).
 */
export async function runExclusive(
  db: Database.Database,
  job: JobName,
  fn: (run: RunHandle) => Promise<JobOutcome>,
  opts: RunExclusiveOptions = {},
): Promise<RunRecord> {
  const ttl = opts.leaseMs ?? 120_000;
  const base = { trigger: opts.trigger ?? "manual", ...(opts.slot ? { slot: opts.slot } : {}) };
  const startedAt = new Date().toISOString();
  const begun = db
    .transaction((): { refused: string } | { lease: Lease; id: number } => {
      const holder = leaseHolder(db, job);
      if (holder)
        return {
          refused: `another ${job} run is in progress (${holder.owner}, lease until ${new Date(holder.expiresAt).toISOString()})`,
        };
      if (opts.slot && getMeta(db, slotKey(job)) === opts.slot)
        return { refused: `the ${job} run scheduled for ${opts.slot} already ran` };
      const lease = takeLeaseIn(db, job, ttl)!;
      if (opts.slot) setMeta(db, slotKey(job), opts.slot);
      // The lease was free, so a run still marked `running` belongs to a process that died.
      db.prepare(
        "UPDATE job_runs SET status = 'failed', error = ?, finished_at = ? WHERE job = ? AND status = 'running'",
      ).run(INTERRUPTED, startedAt, job);
      return { lease, id: insertRun(db, job, "running", startedAt, base, false) };
    })
    .immediate();
  if ("refused" in begun) {
    if (opts.recordRefusal === false) {
      return {
        id: 0,
        job,
        startedAt,
        finishedAt: startedAt,
        status: "skipped",
        result: { ...base, reason: begun.refused },
        error: null,
        durationMs: 0,
        refused: begun.refused,
      };
    }
    const id = insertRun(db, job, "skipped", startedAt, { ...base, reason: begun.refused }, true);
    return { ...getRun(db, id)!, refused: begun.refused };
  }
  const { lease, id } = begun;
  const t0 = performance.now();
  let renewedAt = Date.now();
  const renew = () => {
    if (Date.now() - renewedAt < ttl / 3) return;
    renewedAt = Date.now();
    try {
      renewLease(db, lease, ttl);
    } catch {
      /* busy for a moment: the timer tries again well before expiry */
    }
  };
  const timer = setInterval(
    () => {
      renewedAt = 0;
      renew();
    },
    Math.max(50, ttl / 3),
  );
  timer.unref?.();
  let final: JobRun = {
    id,
    job,
    startedAt,
    finishedAt: null,
    status: "running",
    result: base,
    error: null,
    durationMs: null,
  };
  const finish = (status: RunStatus, result: Record<string, unknown>, error: string | null) => {
    final = {
      ...final,
      status,
      result,
      error,
      finishedAt: new Date().toISOString(),
      durationMs: +(performance.now() - t0).toFixed(2),
    };
    try {
      db.prepare(
        "UPDATE job_runs SET status = ?, finished_at = ?, result = ?, error = ?, duration_ms = ? WHERE id = ?",
      ).run(status, final.finishedAt, JSON.stringify(result), error, final.durationMs, id);
    } catch (e) {
      // The store went away (shutdown): the row stays `running` and the next run marks it interrupted.
      console.error(`[jobs] could not record the end of ${job} run ${id}:`, e instanceof Error ? e.message : e);
    }
  };
  try {
    const out = await fn({ id, renew });
    finish(out.status, { ...out.result, ...base }, null);
  } catch (e) {
    const partial = (e as { partial?: Record<string, unknown> }).partial ?? {};
    finish("failed", { ...partial, ...base }, e instanceof Error ? e.message : String(e));
  } finally {
    clearInterval(timer);
    try {
      releaseLease(db, lease);
    } catch {
      /* it expires by itself */
    }
  }
  try {
    return getRun(db, id) ?? final;
  } catch {
    return final;
  }
}
