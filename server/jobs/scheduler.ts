/**
 * The job scheduler (docs/storage.md#what-each-job-may-change): node-cron, started once per server process (server/boot.ts), schedules
 * read from the job settings (default: decay daily at 03:00 server time, consolidation right after it).
 * A tick runs its job through runner.runExclusive with the tick's time as the slot, so when several
 * processes share the store each slot runs once, and an overlapping run is refused by the job's lease.
 * Saving the job settings reschedules (reload()).
 */
import cron, { type ScheduledTask } from "node-cron";
import type Database from "better-sqlite3";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { runConsolidateJob, runDecayJob, type JobRunOptions } from "./jobs";
import type { RunRecord } from "../core/job-runner";
import { dailyCron, loadJobSettings } from "./settings";

export interface SchedulerOptions {
  /** The app context (store and embedder), asked for at each tick. */
  context: () => MemoContext;
  /** Cron expressions instead of the settings' daily times (tests use every-second patterns). */
  expressions?: { decay?: string; consolidate?: string };
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

  /** A decay tick: decay, then consolidation when it is set to run right after. */
  async decayTick(date: Date): Promise<RunRecord[]> {
    const slot = slotOf(date);
    const runs = [
      this.report(await runDecayJob(this.opts.context(), { ...this.opts.runOptions, trigger: "schedule", slot })),
    ];
    const s = loadJobSettings(this.db).consolidate;
    if (s.enabled && s.time === "after-decay" && !this.opts.expressions?.consolidate) {
      runs.push(
        this.report(
          await runConsolidateJob(this.opts.context(), {
            ...this.opts.runOptions,
            trigger: "schedule",
            slot: `after-decay ${slot}`,
          }),
        ),
      );
    }
    return runs;
  }

  async consolidateTick(date: Date): Promise<RunRecord> {
    return this.report(
      await runConsolidateJob(this.opts.context(), {
        ...this.opts.runOptions,
        trigger: "schedule",
        slot: slotOf(date),
      }),
    );
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
    if (s.decay.enabled) {
      const expr = this.opts.expressions?.decay ?? dailyCron(s.decay.time);
      this.tasks.push(
        cron.schedule(expr, (c) => catching("decay", this.decayTick(c.date)), { name: "memo-decay", noOverlap: true }),
      );
    }
    // "Right after decay" with decay switched off: at decay's time, on its own.
    const consolidateExpr =
      this.opts.expressions?.consolidate ??
      (s.consolidate.time !== "after-decay"
        ? dailyCron(s.consolidate.time)
        : !s.decay.enabled
          ? dailyCron(s.decay.time)
          : null);
    if (s.consolidate.enabled && consolidateExpr) {
      this.tasks.push(
        cron.schedule(consolidateExpr, (c) => catching("consolidate", this.consolidateTick(c.date)), {
          name: "memo-consolidate",
          noOverlap: true,
        }),
      );
    }
  }

  /** Re-read the settings and reschedule (after they are saved). */
  reload(): void {
    if (this.started) this.start();
  }

  /** When each job runs next (null: not scheduled; "after-decay": right after the next decay). */
  nextRuns(): { decay: string | null; consolidate: string | null } {
    const s = loadJobSettings(this.db);
    const decayTask = this.tasks.find((t) => t.name === "memo-decay");
    const consTask = this.tasks.find((t) => t.name === "memo-consolidate");
    const decay = decayTask?.getNextRun()?.toISOString() ?? null;
    const consolidate =
      consTask?.getNextRun()?.toISOString() ??
      (s.consolidate.enabled && s.consolidate.time === "after-decay" && decayTask ? decay : null);
    return { decay, consolidate };
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

export function getScheduler(): JobScheduler | undefined {
  return g.__memoScheduler;
}
