/**
 * The fact-learning queue, persisted (drizzle/0022_fact_learning.sql): one job per exchange — a chat
 * exchange queued in the transaction that stores it (server/chat/write-exchange.ts), or one stored memory of a
 * document, an import or the back-fill (a run, with its count, progress and Stop). The runner that asks the
 * model lives where providers are reachable (server/chat/fact-learner.ts); this file is the jobs' SQL.
 *
 * Survives restarts: a job is a row from the moment its exchange is stored; a job left `running` by a
 * process that died is queued again at start (recoverInterrupted) and its facts were never written (they
 * are written in the transaction that marks the job done, so nothing is learned twice). Back-off is a
 * job's `next_at`. Every attempt is recorded (fact_attempts): what the calls per provider are counted from.
 */
import type Database from "better-sqlite3";
import { mineScan } from "../../core/acting";
import { stmt } from "../../core/statements";

export const JOB_ORIGINS = ["chat", "api", "document", "import", "backfill"] as const;
export type JobOrigin = (typeof JOB_ORIGINS)[number];
export type JobStatus = "queued" | "running" | "done" | "failed" | "skipped" | "stopped";
/** How a call ended: a good answer, bad model output, a provider error, or a good answer the store could not take. */
export type AttemptOutcome = "ok" | "bad_output" | "provider_error" | "store_error";

export interface NewFactJob {
  spaceId: string;
  origin: JobOrigin;
  /** The memories the exchange was stored as (the facts' sources); at least one. */
  memoryIds: string[];
  /** When the exchange happened. */
  at: string;
  messageId?: string | null;
  provider?: string | null;
  model?: string | null;
  runId?: string | null;
}

export interface FactJob {
  id: number;
  spaceId: string;
  origin: JobOrigin;
  runId: string | null;
  messageId: string | null;
  provider: string | null;
  model: string | null;
  at: string;
  status: JobStatus;
  attempts: number;
  nextAt: string;
  factsAdded: number;
  lastError: string | null;
}

const JOB_COLS = `id, space_id AS spaceId, origin, run_id AS runId, message_id AS messageId, provider, model, at, status,
  attempts, next_at AS nextAt, facts_added AS factsAdded, last_error AS lastError`;

const iso = (t: number) => new Date(t).toISOString();

/** Queue a job (inside the caller's transaction when there is one). Null when it has no source. */
export function enqueueFactJob(db: Database.Database, job: NewFactJob, now = Date.now()): number | null {
  const ids = [...new Set(job.memoryIds)];
  if (!ids.length) return null;
  return db.transaction(() => {
    const r = stmt(
      db,
      `INSERT INTO fact_jobs (space_id, origin, run_id, message_id, provider, model, at, next_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      job.spaceId,
      job.origin,
      job.runId ?? null,
      job.messageId ?? null,
      job.provider ?? null,
      job.model ?? null,
      job.at,
      iso(now),
    );
    const id = Number(r.lastInsertRowid);
    const src = stmt(db, "INSERT OR IGNORE INTO fact_job_sources (job_id, memory_id, ord) VALUES (?, ?, ?)");
    ids.forEach((m, i) => src.run(id, m, i));
    return id;
  })();
}

export function getFactJob(db: Database.Database, id: number): FactJob | undefined {
  return stmt(db, `SELECT ${JOB_COLS} FROM fact_jobs WHERE id = ?`).get(id) as FactJob | undefined;
}

/** The job an assistant message's exchange was queued as (the newest), if any. */
export function jobOfMessage(db: Database.Database, messageId: string): FactJob | undefined {
  return stmt(db, `SELECT ${JOB_COLS} FROM fact_jobs WHERE message_id = ? ORDER BY id DESC LIMIT 1`).get(messageId) as
    | FactJob
    | undefined;
}

export interface ConversationJob {
  messageId: string;
  status: JobStatus;
  factsAdded: number;
  lastError: string | null;
  /** The latest attempt: how it ended and its "Sent to" record. */
  outcome: AttemptOutcome | null;
  sent: unknown;
}

/** The (newest) job of a reply's exchange, with its latest attempt; the caller checks the reply is the person's. */
export function replyJob(db: Database.Database, messageId: string): ConversationJob | undefined {
  const r = stmt(
    db,
    `SELECT j.message_id AS messageId, j.status, j.facts_added AS factsAdded, j.last_error AS lastError,
            (SELECT a.sent FROM fact_attempts a WHERE a.job_id = j.id ORDER BY a.id DESC LIMIT 1) AS sent,
            (SELECT a.outcome FROM fact_attempts a WHERE a.job_id = j.id ORDER BY a.id DESC LIMIT 1) AS outcome
       FROM fact_jobs j WHERE j.message_id = ? ORDER BY j.id DESC LIMIT 1`,
  ).get(messageId) as (Omit<ConversationJob, "sent"> & { sent: string | null }) | undefined;
  return r ? { ...r, sent: r.sent ? (JSON.parse(r.sent) as unknown) : null } : undefined;
}

/** A job's source memories in order, with their text and whether they are still live. */
export function jobSources(
  db: Database.Database,
  jobId: number,
): { id: string; content: string; timestamp: string; live: boolean }[] {
  return (
    stmt(
      db,
      `SELECT m.id, m.content, m.timestamp, m.soft_deleted = 0 AS live FROM fact_job_sources s
         JOIN memories m ON m.id = s.memory_id WHERE s.job_id = ? ORDER BY s.ord`,
    ).all(jobId) as { id: string; content: string; timestamp: string; live: number }[]
  ).map((r) => ({ ...r, live: r.live === 1 }));
}

/** The earliest time a queued job may run (null: none queued). */
export function nextDueAt(db: Database.Database): string | null {
  return (stmt(db, "SELECT min(next_at) AS t FROM fact_jobs WHERE status = 'queued'").get() as { t: string | null }).t;
}

/**
 * Take the next calls' worth of due jobs: the oldest due job and, when a backlog is being caught up, the
 * next due ones of the same space and provider (one call asks about them together), up to `max`. They
 * become `running` with one more attempt, in one IMMEDIATE transaction (two runners never take one job).
 */
export function claimDueJobs(db: Database.Database, max: number, now = Date.now()): FactJob[] {
  return db
    .transaction(() => {
      const first = stmt(
        db,
        `SELECT ${JOB_COLS} FROM fact_jobs WHERE status = 'queued' AND next_at <= ? ORDER BY next_at, id LIMIT 1`,
      ).get(iso(now)) as FactJob | undefined;
      if (!first) return [];
      const rest =
        max > 1
          ? (stmt(
              db,
              `SELECT ${JOB_COLS} FROM fact_jobs WHERE status = 'queued' AND next_at <= ? AND id <> ?
                 AND space_id = ? AND provider IS ? ORDER BY next_at, id LIMIT ?`,
            ).all(iso(now), first.id, first.spaceId, first.provider, max - 1) as FactJob[])
          : [];
      const jobs = [first, ...rest];
      const take = stmt(db, "UPDATE fact_jobs SET status = 'running', attempts = attempts + 1 WHERE id = ?");
      for (const j of jobs) take.run(j.id);
      return jobs.map((j) => ({ ...j, status: "running" as const, attempts: j.attempts + 1 }));
    })
    .immediate();
}

/** At start: jobs a stopped process left `running` are queued again (their facts were never written). */
export function recoverInterrupted(db: Database.Database, now = Date.now()): number {
  return stmt(db, "UPDATE fact_jobs SET status = 'queued', next_at = ? WHERE status = 'running'").run(iso(now)).changes;
}

/** A job ended: done (with its facts, in the caller's transaction), failed, skipped or stopped. */
export function finishFactJob(
  db: Database.Database,
  id: number,
  status: Exclude<JobStatus, "queued" | "running">,
  o: { factsAdded?: number; error?: string | null } = {},
  now = Date.now(),
): void {
  stmt(
    db,
    "UPDATE fact_jobs SET status = ?, facts_added = ?, last_error = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'running')",
  ).run(status, o.factsAdded ?? 0, o.error ?? null, iso(now), id);
}

/** Try a job again at `nextAt` (back-off after a provider error or bad output). */
export function retryFactJobAt(db: Database.Database, id: number, nextAt: number, error: string): void {
  stmt(
    db,
    "UPDATE fact_jobs SET status = 'queued', next_at = ?, last_error = ? WHERE id = ? AND status = 'running'",
  ).run(iso(nextAt), error, id);
}

/** Give a job back untried (its call was cancelled so a reply could have the model): the attempt does not count. */
export function releaseFactJob(db: Database.Database, id: number): void {
  stmt(
    db,
    "UPDATE fact_jobs SET status = 'queued', attempts = max(0, attempts - 1) WHERE id = ? AND status = 'running'",
  ).run(id);
}

export interface AttemptRecord {
  jobIds: number[];
  callId: string;
  providerKey: string;
  outcome: AttemptOutcome;
  detail?: string | null;
  /** Per job: facts added and replaced (absent: 0). */
  added?: Map<number, number>;
  replaced?: Map<number, number>;
  ms?: number | null;
  sent?: unknown;
}

/** Record one call's attempt on each of its jobs (one call_id: the calls per provider count it once). */
export function recordAttempt(db: Database.Database, a: AttemptRecord, now = Date.now()): void {
  db.transaction(() => {
    const ins = stmt(
      db,
      `INSERT INTO fact_attempts (job_id, call_id, at, provider_key, outcome, detail, facts_added, facts_replaced, ms, sent)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const sent = a.sent === undefined ? null : JSON.stringify(a.sent);
    for (const id of a.jobIds)
      ins.run(
        id,
        a.callId,
        iso(now),
        a.providerKey,
        a.outcome,
        a.detail ?? null,
        a.added?.get(id) ?? 0,
        a.replaced?.get(id) ?? 0,
        a.ms ?? null,
        sent,
      );
  })();
}

export interface FactAttempt {
  id: number;
  jobId: number;
  callId: string;
  at: string;
  providerKey: string;
  outcome: AttemptOutcome;
  detail: string | null;
  factsAdded: number;
  factsReplaced: number;
  ms: number | null;
  sent: unknown;
}

export function attemptsOf(db: Database.Database, jobId: number): FactAttempt[] {
  return (
    stmt(
      db,
      `SELECT id, job_id AS jobId, call_id AS callId, at, provider_key AS providerKey, outcome, detail,
              facts_added AS factsAdded, facts_replaced AS factsReplaced, ms, sent
         FROM fact_attempts WHERE job_id = ? ORDER BY id`,
    ).all(jobId) as (Omit<FactAttempt, "sent"> & { sent: string | null })[]
  ).map((r) => ({ ...r, sent: r.sent ? (JSON.parse(r.sent) as unknown) : null }));
}

export interface ProviderCalls {
  providerKey: string;
  calls: number;
  ok: number;
  badOutput: number;
  providerErrors: number;
  storeErrors: number;
  lastAt: string | null;
}

/**
 * Calls made per provider endpoint, from the attempts of the acting person's spaces (a person's own use of
 * the household's providers; nothing of another person's counts). A batched call counts once.
 */
export function callsPerProvider(db: Database.Database): ProviderCalls[] {
  return stmt(
    db,
    `SELECT provider_key AS providerKey, count(*) AS calls, sum(outcome = 'ok') AS ok, sum(outcome = 'bad_output') AS badOutput,
            sum(outcome = 'provider_error') AS providerErrors, sum(outcome = 'store_error') AS storeErrors, max(at) AS lastAt
       FROM (SELECT a.call_id, min(a.provider_key) AS provider_key, min(a.outcome) AS outcome, max(a.at) AS at
               FROM fact_attempts a JOIN fact_jobs j ON j.id = a.job_id WHERE ${mineScan("j.space_id")} GROUP BY a.call_id)
      GROUP BY provider_key ORDER BY provider_key`,
  ).all() as ProviderCalls[];
}

export interface QueueCounts {
  queued: number;
  running: number;
  done: number;
  failed: number;
  skipped: number;
  stopped: number;
  /** Facts learned by finished jobs. */
  factsAdded: number;
  /** The oldest queued job's time (how far behind learning is), or null. */
  oldestQueuedAt: string | null;
  /** When the next queued job may run (a back-off can hold it), or null. */
  nextAt: string | null;
  /** The last finished job's error, when it did not end well. */
  lastError: string | null;
}

/**
 * Where the queue stands. `mine`: only the acting person's spaces (what a person's page shows; nothing of
 * another's counts); otherwise the whole store's (health).
 */
export function queueCounts(db: Database.Database, o: { mine?: boolean } = {}): QueueCounts {
  const where = o.mine ? `WHERE ${mineScan("space_id")}` : "";
  const r = stmt(
    db,
    `SELECT sum(status = 'queued') AS queued, sum(status = 'running') AS running, sum(status = 'done') AS done,
            sum(status = 'failed') AS failed, sum(status = 'skipped') AS skipped, sum(status = 'stopped') AS stopped,
            sum(facts_added) AS factsAdded,
            min(CASE WHEN status = 'queued' THEN created_at END) AS oldestQueuedAt,
            min(CASE WHEN status = 'queued' THEN next_at END) AS nextAt
       FROM fact_jobs ${where}`,
  ).get() as Record<string, number | string | null>;
  const last = stmt(
    db,
    `SELECT last_error AS e FROM fact_jobs ${where ? `${where} AND` : "WHERE"} finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT 1`,
  ).get() as { e: string | null } | undefined;
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    queued: n("queued"),
    running: n("running"),
    done: n("done"),
    failed: n("failed"),
    skipped: n("skipped"),
    stopped: n("stopped"),
    factsAdded: n("factsAdded"),
    oldestQueuedAt: (r.oldestQueuedAt as string | null) ?? null,
    nextAt: (r.nextAt as string | null) ?? null,
    lastError: last?.e ?? null,
  };
}
