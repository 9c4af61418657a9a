/**
 * The job scheduler (docs/storage.md#what-each-job-may-change): node-cron, started once per server process (server/boot.ts), schedules
 * read from the job settings (default: decay daily at 03:00 server time, consolidation right after it) for every
 * job the registry (job-kinds.ts) says runs on a schedule.
 * A tick runs its job through runner.runExclusive with the tick's time as the slot, so when several
 * processes share the store each slot runs once, and an overlapping run is refused by the job's lease.
 * Saving the job settings reschedules (reload()).
 */
import cron, { type ScheduledTask } from "node-cron";
import type Database from "better-sqlite3";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { JOB_RUNNERS, type JobRunOptions } from "./jobs";
import type { RunRecord } from "../core/job-runner";
import { JOB_KINDS, SCHEDULED_JOBS, type ScheduledJob } from "./job-kinds";
import { dailyCron, type JobSettings, loadJobSettings } from "./settings";

export interface SchedulerOptions {
  /** The app context (store and embedder), asked for at each tick. */
  context: () => MemoContext;
  /** Cron expressions instead of the settings' daily times (tests use every-second patterns). */
  expressions?: Partial<Record<ScheduledJob, string>>;
  /** Options passed to every run (tests: a merge function, a clock). */
  runOptions?: Omit<JobRunOptions, "trigger" | "slot">;
  log?: (msg: string) => void;
  /** Called with each finished (or refused) run. */
  onRun?: (run: RunRecord) => void;
}

/** The tick's scheduled time to the second: the same slot in every process. */
export function slotOf(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString();
}

/**
 * When a scheduled job runs under these settings (its registry entry, job-kinds.ts): a cron expression; right
 * after another job's run ("after-<job>" as its time, that job enabled); or never (switched off).
 */
export function scheduleOf(
  job: ScheduledJob,
  s: JobSettings,
  expressions: SchedulerOptions["expressions"] = {},
): { expr: string } | { after: ScheduledJob } | null {
  const kind = JOB_KINDS[job].startedBy;
  const own = s[kind.section];
  if (!own.enabled) return null;
  const given = expressions[job];
  if (given) return { expr: given };
  const after = "after" in kind ? (kind.after as ScheduledJob) : undefined;
  if (after && own.time === `after-${after}`) {
    const prev = s[JOB_KINDS[after].startedBy.section];
    // "Right after" a job switched off: at that job's time, on its own.
    return prev.enabled ? { after } : { expr: dailyCron(prev.time) };
  }
  return { expr: dailyCron(own.time) };
}

const taskName = (job: ScheduledJob) => `memo-${job}`;

export class JobScheduler {
  private tasks: ScheduledTask[] = [];
  private busy = new Set<Promise<unknown>>();
  private started = false;

  constructor(private readonly opts: SchedulerOptions) {}

  private get db(): Database.Database {
    return this.opts.context().db;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.busy.add(p);
    void p.finally(() => this.busy.delete(p));
    return p;
  }

  private report(run: RunRecord): RunRecord {
    if (run.refused) this.opts.log?.(`[jobs] ${run.job} not run: ${run.refused}`);
    else
      this.opts.log?.(
        `[jobs] ${run.job} ${run.status}${run.error ? `: ${run.error}` : ""} (${run.durationMs ?? 0} ms)`,
      );
    this.opts.onRun?.(run);
    return run;
  }

  /** A job's tick: its run, then the runs of the jobs set to run right after it (slot "after-<job> <slot>"). */
  async tick(job: ScheduledJob, date: Date, slot = slotOf(date)): Promise<RunRecord[]> {
    const runs = [
      this.report(await JOB_RUNNERS[job](this.opts.context(), { ...this.opts.runOptions, trigger: "schedule", slot })),
    ];
    const s = loadJobSettings(this.db);
    for (const next of SCHEDULED_JOBS) {
      const when = scheduleOf(next, s, this.opts.expressions);
      if (when && "after" in when && when.after === job)
        runs.push(...(await this.tick(next, date, `after-${job} ${slotOf(date)}`)));
    }
    return runs;
  }

  /** Schedule from the current settings (replacing any earlier schedule). */
  start(): void {
    this.stopTasks();
    this.started = true;
    const s = loadJobSettings(this.db);
    const catching = (what: string, p: Promise<unknown>) =>
      void this.track(p).catch((e) =>
        this.opts.log?.(`[jobs] ${what} tick failed: ${e instanceof Error ? e.message : String(e)}`),
      );
    for (const job of SCHEDULED_JOBS) {
      const when = scheduleOf(job, s, this.opts.expressions);
      if (!when || !("expr" in when)) continue;
      this.tasks.push(
        cron.schedule(when.expr, (c) => catching(job, this.tick(job, c.date)), {
          name: taskName(job),
          noOverlap: true,
        }),
      );
    }
  }

  /** Re-read the settings and reschedule (after they are saved). */
  reload(): void {
    if (this.started) this.start();
  }

  /** When each scheduled job runs next (null: not scheduled; right after another: that job's next run). */
  nextRuns(): Record<ScheduledJob, string | null> {
    const s = loadJobSettings(this.db);
    const next = (job: ScheduledJob): string | null => {
      const when = scheduleOf(job, s, this.opts.expressions);
      if (when && "after" in when) return next(when.after);
      return (
        this.tasks
          .find((t) => t.name === taskName(job))
          ?.getNextRun()
          ?.toISOString() ?? null
      );
    };
    return Object.fromEntries(SCHEDULED_JOBS.map((j) => [j, next(j)])) as Record<ScheduledJob, string | null>;
  }

  private stopTasks(): void {
    for (const t of this.tasks) {
      void t.stop();
      void t.destroy();
    }
    this.tasks = [];
  }

  /** Stop scheduling and wait for runs in flight. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopTasks();
    await Promise.allSettled([...this.busy]);
  }
}

const g = globalThis as unknown as { __memoScheduler?: JobScheduler };

/**
 * The process's scheduler, once (instrumentation and route handlers are separate bundles: globalThis).
 * It also asks the embedder for its model once it is up, so that a model change starts its re-index
 * (docs/architecture.md#models-and-providers) at start-up rather than at the first request.
 */
export function startScheduler(opts: SchedulerOptions): JobScheduler {
  if (!g.__memoScheduler) {
    g.__memoScheduler = new JobScheduler(opts);
    g.__memoScheduler.start();
    void checkModelAtStart(opts);
  }
  return g.__memoScheduler;
}

async function checkModelAtStart(opts: SchedulerOptions): Promise<void> {
  for (const delayMs of [1_000, 10_000, 30_000, 120_000]) {
    await new Promise<void>((r) => setTimeout(r, delayMs).unref());
    try {
      await activeModel(opts.context());
      return;
    } catch (e) {
      opts.log?.(`[jobs] embedding model check deferred: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** When each scheduled job runs next, in a process without a scheduler: never. */
export function nextRunsHere(): Record<ScheduledJob, string | null> {
  return (
    getScheduler()?.nextRuns() ??
    (Object.fromEntries(SCHEDULED_JOBS.map((j) => [j, null])) as Record<ScheduledJob, string | null>)
  );
}

export function getScheduler(): JobScheduler | undefined {
  return g.__memoScheduler;
}
