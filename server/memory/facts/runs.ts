/**
 * Opt-in learning over memory already stored: a document, a ChatGPT import, or "learn from my existing
 * memory" (the back-fill) — each a run of jobs (drizzle/0022 fact_learn_runs), one per memory, queued for
 * the same runner as chat exchanges. The number of calls is counted before a run starts; its progress is
 * its jobs' statuses; Stop ends it (its queued jobs become `stopped`; a call in flight finishes).
 *
 * A memory is learned from once: a memory some queued, running or finished job already learned from is
 * not counted or queued again (stopped, failed and skipped jobs do not count: a later run may try again).
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { mineScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import { MAX_BATCH, MAX_BATCH_CHARS } from "./extract";
import { enqueueFactJob } from "./queue";

export const RUN_KINDS = ["document", "import", "backfill"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export interface LearnRun {
  id: string;
  kind: RunKind;
  spaceId: string;
  target: string | null;
  status: "running" | "stopped" | "done";
  /** Memories to learn from, and the calls that takes (as counted before it started). */
  total: number;
  calls: number;
  createdAt: string;
  finishedAt: string | null;
  /** Jobs finished (any way), still to do, facts learned. */
  done: number;
  pending: number;
  factsAdded: number;
  /** Replacements it proposed that wait for the person (What Memo knows; issue 48). */
  proposed: number;
  /** Its facts still current (an accepted proposal's too): what undoing it takes back. */
  currentFacts: number;
}

export interface Learnable {
  id: string;
  timestamp: string;
  chars: number;
}

const NOT_LEARNED = `NOT EXISTS (SELECT 1 FROM fact_job_sources s JOIN fact_jobs j ON j.id = s.job_id
  WHERE s.memory_id = m.id AND j.status IN ('queued', 'running', 'done'))`;

/**
 * The live memories a run would learn from, oldest first: a document's chunks, the given memories (an
 * import's), or (back-fill) every memory of the space; never one already learned from.
 */
type LearnableTarget = { spaceId: string; documentId?: string; memoryIds?: string[] };

/** The statement over a target's learnable memories, in the runner's order, selecting `cols`. */
function learnableSql(o: LearnableTarget, cols: string): { sql: string; args: unknown[] } {
  if (o.documentId !== undefined)
    return {
      sql: `SELECT ${cols} FROM document_chunks d JOIN memories m ON m.id = d.memory_id
        WHERE d.document_id = ? AND m.space_id = ? AND m.soft_deleted = 0 AND ${NOT_LEARNED}
        ORDER BY d.chunk_index, m.rid`,
      args: [o.documentId, o.spaceId],
    };
  if (o.memoryIds !== undefined)
    return {
      sql: `SELECT ${cols} FROM json_each(?) i JOIN memories m ON m.id = i.value
        WHERE m.space_id = ? AND m.soft_deleted = 0 AND ${NOT_LEARNED} ORDER BY i.key`,
      args: [JSON.stringify(o.memoryIds), o.spaceId],
    };
  return {
    sql: `SELECT ${cols} FROM memories m WHERE m.space_id = ? AND m.soft_deleted = 0 AND ${NOT_LEARNED}
      ORDER BY m.timestamp, m.rid`,
    args: [o.spaceId],
  };
}

export function learnableMemories(db: Database.Database, o: LearnableTarget): Learnable[] {
  const q = learnableSql(o, "m.id, m.timestamp, length(m.content) AS chars");
  return stmt(db, q.sql).all(...q.args) as Learnable[];
}

/**
 * What learning from a target takes, without reading its memories (issue 48 finding 7: the count made a
 * string per memory, ~450 ms for 300K): SQL counts them and gives only each one's length, and the calls
 * are the runner's batches (extract.ts `batches`: MAX_BATCH memories and MAX_BATCH_CHARS per call) counted
 * from those lengths.
 */
export function countLearnable(db: Database.Database, o: LearnableTarget): { memories: number; calls: number } {
  const q = learnableSql(o, `min(length(m.content), ${MAX_MEMORY_CHARS}) AS chars`);
  const lengths = stmt(db, q.sql)
    .pluck()
    .iterate(...q.args) as IterableIterator<number>;
  return callsForLengths(lengths);
}

/** A memory counts as at most this long (no memory is longer: chunking keeps them far shorter). */
const MAX_MEMORY_CHARS = 100_000;

/** The batches `batches` would make of texts this long: the same rule, on lengths alone. */
export function callsForLengths(lengths: Iterable<number>): { memories: number; calls: number } {
  let memories = 0;
  let calls = 0;
  let inCall = 0;
  let chars = 0;
  for (const len of lengths) {
    memories++;
    if (inCall && (inCall >= MAX_BATCH || chars + len > MAX_BATCH_CHARS)) {
      inCall = 0;
      chars = 0;
    }
    if (inCall === 0) calls++;
    inCall++;
    chars += len;
  }
  return { memories, calls };
}

/** Calls a run over these memories takes: they are asked about in batches, as the runner sends them. */
export function callsForMemories(items: Learnable[]): number {
  return callsForLengths(items.map((m) => Math.min(m.chars, MAX_MEMORY_CHARS))).calls;
}

/** Start a run: the run row and one queued job per memory, in one transaction. */
export function createRun(
  db: Database.Database,
  o: { kind: RunKind; spaceId: string; target?: string | null; memories: Learnable[]; provider?: string | null },
): string {
  const id = crypto.randomUUID();
  db.transaction(() => {
    stmt(db, "INSERT INTO fact_learn_runs (id, kind, space_id, target, total, calls) VALUES (?, ?, ?, ?, ?, ?)").run(
      id,
      o.kind,
      o.spaceId,
      o.target ?? null,
      o.memories.length,
      callsForMemories(o.memories),
    );
    for (const m of o.memories)
      enqueueFactJob(db, {
        spaceId: o.spaceId,
        origin: o.kind,
        memoryIds: [m.id],
        at: m.timestamp,
        runId: id,
        provider: o.provider ?? null,
      });
    if (!o.memories.length)
      stmt(db, "UPDATE fact_learn_runs SET status = 'done', finished_at = created_at WHERE id = ?").run(id);
  })();
  return id;
}

const RUN_COLS = `r.id, r.kind, r.space_id AS spaceId, r.target, r.status, r.total, r.calls, r.created_at AS createdAt,
  r.finished_at AS finishedAt,
  (SELECT count(*) FROM fact_jobs j WHERE j.run_id = r.id AND j.status NOT IN ('queued', 'running')) AS done,
  (SELECT count(*) FROM fact_jobs j WHERE j.run_id = r.id AND j.status IN ('queued', 'running')) AS pending,
  (SELECT coalesce(sum(j.facts_added), 0) FROM fact_jobs j WHERE j.run_id = r.id) AS factsAdded,
  (SELECT count(*) FROM fact_proposals p WHERE p.run_id = r.id AND p.status = 'pending') AS proposed,
  (SELECT count(*) FROM facts f WHERE f.learn_run_id = r.id AND f.deleted_at IS NULL AND f.superseded_by IS NULL
     AND f.valid_to IS NULL) AS currentFacts`;

/** A run of the acting person's spaces (another's reads as missing). */
export function getRun(db: Database.Database, id: string): LearnRun | undefined {
  return stmt(db, `SELECT ${RUN_COLS} FROM fact_learn_runs r WHERE r.id = ? AND ${mineScan("r.space_id")}`).get(id) as
    | LearnRun
    | undefined;
}

/** The acting person's runs, newest first; optionally of one kind and target (a document's, an import's). */
export function listRuns(
  db: Database.Database,
  o: { kind?: RunKind; target?: string; limit?: number } = {},
): LearnRun[] {
  return stmt(
    db,
    `SELECT ${RUN_COLS} FROM fact_learn_runs r WHERE ${mineScan("r.space_id")}
       AND (? IS NULL OR r.kind = ?) AND (? IS NULL OR r.target = ?)
     ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?`,
  ).all(o.kind ?? null, o.kind ?? null, o.target ?? null, o.target ?? null, o.limit ?? 20) as LearnRun[];
}

/** Stop a run: its queued jobs become `stopped` (a call already in flight finishes). Another person's: false. */
export function stopRun(db: Database.Database, id: string, now = Date.now()): boolean {
  return db.transaction(() => {
    const run = getRun(db, id);
    if (!run) return false;
    if (run.status !== "running") return true;
    const at = new Date(now).toISOString();
    stmt(
      db,
      "UPDATE fact_jobs SET status = 'stopped', finished_at = ?, last_error = 'stopped' WHERE run_id = ? AND status = 'queued'",
    ).run(at, id);
    stmt(db, "UPDATE fact_learn_runs SET status = 'stopped', finished_at = ? WHERE id = ?").run(at, id);
    return true;
  })();
}

/** Runs whose jobs have all finished are done (the runner calls this after each call). */
export function settleFinishedRuns(db: Database.Database, now = Date.now()): number {
  return stmt(
    db,
    `UPDATE fact_learn_runs SET status = 'done', finished_at = ? WHERE status = 'running'
       AND NOT EXISTS (SELECT 1 FROM fact_jobs j WHERE j.run_id = fact_learn_runs.id AND j.status IN ('queued', 'running'))`,
  ).run(new Date(now).toISOString()).changes;
}
