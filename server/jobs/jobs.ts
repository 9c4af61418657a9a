/**
 * The jobs "Run now" may start (job-kinds.ts RUNNABLE_JOBS) as runs: settings read, lease taken, job_runs
 * recorded (runner.ts). Used by the scheduler, the "Run now" buttons (tRPC) and
 * `POST /api/v1/jobs/<decay|consolidate>/run`, all through JOB_RUNNERS.
 */
import { runDecay, type JobCounts } from "../memory/lifecycle/decay";
import { consolidate, type MergeFn } from "../memory/lifecycle/consolidate";
import { runAsSystem } from "../core/acting";
import { boundModel, reindexTarget } from "../memory/store";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { providerMerge } from "./merge";
import { runExclusive, type RunRecord, type Trigger } from "../core/job-runner";
import { OWNER_ID } from "../core/space-name";
import { consolidationThreshold, decayRulesOf, loadJobSettings, loadPersonLifetime } from "./settings";
import { RUNNABLE_JOBS, type RunnableJob, type ScheduledJob } from "./job-kinds";

export { RUNNABLE_JOBS, type RunnableJob };

export interface JobRunOptions {
  trigger?: Trigger;
  slot?: string;
  /** Clock for the decay's day arithmetic (tests simulate days). */
  now?: () => Date;
  /** Consolidation's merge function; default: the configured chat provider (null: none). */
  merge?: MergeFn | null;
  /** Consolidation test hook (see ConsolidateOptions.beforeSoftDelete). */
  beforeSoftDelete?: (mergedId: string) => void;
  leaseMs?: number;
  /** Consolidation: find and check merges, write nothing (consolidation-runs.ts applies them later). */
  preview?: boolean;
}

const ZERO: JobCounts = { promoted: 0, decayed: 0, softDeleted: 0, purged: 0, merged: 0 };

/** The five counts a run reports (zeros for what it does not do). */
export function runCounts(run: RunRecord): JobCounts {
  const c = (run.result?.counts ?? {}) as Partial<JobCounts>;
  return { ...ZERO, ...c };
}

export function runDecayJob(ctx: Pick<MemoContext, "db">, opts: JobRunOptions = {}): Promise<RunRecord> {
  const { db } = ctx;
  return runExclusive(
    db,
    "decay",
    async () => {
      // Everyone's memories, each person's by their own lifetime settings (issue 32).
      const r = runDecay(db, {
        ...decayRulesOf(loadPersonLifetime(db, OWNER_ID)),
        rulesFor: (personId) => decayRulesOf(loadPersonLifetime(db, personId)),
        now: opts.now,
      });
      // The five counts first (flat, for compact summaries), then everything, `counts` included.
      return { status: "ok", result: { ...r.counts, ...r } };
    },
    { trigger: opts.trigger, slot: opts.slot, leaseMs: opts.leaseMs },
  );
}

export function runConsolidateJob(ctx: MemoContext, opts: JobRunOptions = {}): Promise<RunRecord> {
  const { db } = ctx;
  return runExclusive(
    db,
    "consolidate",
    async (run) => {
      const s = loadJobSettings(db).consolidate;
      if (reindexTarget(db)) {
        return {
          status: "skipped",
          result: {
            counts: ZERO,
            reason: "the store is re-indexing for a new embedding model; consolidation runs after it",
          },
        };
      }
      const bound = boundModel(db);
      if (!bound)
        return {
          status: "ok",
          result: { counts: ZERO, spaces: 0, candidates: 0, pairs: 0, note: "the store is empty" },
        };
      const { merge, reason, mayMergeIn } =
        opts.merge !== undefined
          ? { merge: opts.merge, reason: opts.merge ? null : "no merge function given", mayMergeIn: undefined }
          : providerMerge(db);
      // The merged statements are embedded: the embedder must serve the store's model (this also starts
      // a re-index if it does not, in which case consolidation waits for it).
      const model = merge ? (await activeModel(ctx)).model : bound.model;
      if (reindexTarget(db)) {
        return {
          status: "skipped",
          result: {
            counts: ZERO,
            reason: "the embedding model changed; the store is re-indexing and consolidation runs after it",
          },
        };
      }
      const threshold = consolidationThreshold(loadJobSettings(db), model);
      const r = await consolidate(ctx, model, {
        threshold,
        maxPerSpace: s.maxPerSpace,
        merge,
        noMergeReason: reason ?? undefined,
        mayMergeIn,
        onPair: () => run.renew(),
        beforeSoftDelete: opts.beforeSoftDelete,
        now: opts.now,
        preview: opts.preview,
      });
      if (r.failed > 0 && r.counts.merged === 0) {
        throw Object.assign(new Error(`every merge failed: ${r.errors[0]?.error ?? "unknown error"}`), {
          partial: { ...r },
        });
      }
      return {
        // Duplicate facts are merged without a provider: a run that merged (or proposes) some did work.
        status: merge || r.factMerges.length > 0 || r.factProposals.length > 0 ? "ok" : "skipped",
        result: { ...r.counts, model, ...r, ...(opts.preview ? { preview: true } : {}) },
      };
    },
    { trigger: opts.trigger, slot: opts.slot, leaseMs: opts.leaseMs ?? 5 * 60_000 },
  );
}

/**
 * Decay and consolidation go over every person's memories (consolidation pairs within one space, so never
 * across people), even when an admin's request starts them: they run as the household, not as that admin.
 */
export function runJobNow(ctx: MemoContext, job: RunnableJob, opts: JobRunOptions = {}): Promise<RunRecord> {
  const run = JOB_RUNNERS[job];
  return runAsSystem(() => run(ctx, opts));
}

/** How each job "Run now" and the scheduler may start runs: a `Record`, so a runnable job without one does not compile. */
export const JOB_RUNNERS: Record<
  RunnableJob | ScheduledJob,
  (ctx: MemoContext, opts?: JobRunOptions) => Promise<RunRecord>
> = {
  decay: runDecayJob,
  consolidate: runConsolidateJob,
};
