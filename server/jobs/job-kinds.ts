/**
 * The background-job registry (docs/architecture.md#background-jobs), like the provider families: one entry per
 * job in JOB_NAMES (server/core/job-runner.ts) saying how it starts, whether "Run now" may start it, its schedule
 * and its section of the job settings, and what its result counts are called. A `Record` over the job names, so
 * a job without an entry does not compile. Read by the scheduler (scheduler.ts), "Run now" (jobs.ts runJobNow,
 * whose runner table is a `Record` over RUNNABLE_JOBS), the tRPC router and `POST /api/v1/jobs/<job>/run`, the
 * household settings merge (settings.ts) and the jobs panel (app/memory/analytics/jobs-panel.tsx). Plain data,
 * no server imports, so the page can read it.
 */
import type { JobName } from "../core/job-runner";
import type { JobSettings } from "./settings";

/** The counts a run reports (flat in its result), with the words the jobs panel shows for each. */
export const RUN_COUNT_LABELS = {
  promoted: "promoted by recall",
  decayed: "decayed while idle",
  softDeleted: "soft-deleted",
  purged: "purged",
  merged: "merged",
  embedded: "re-embedded",
} as const;
export type RunCountName = keyof typeof RUN_COUNT_LABELS;

/** The sections of the job settings (settings.ts jobSettingsSchema) a job's schedule reads (`lifetime` is each person's). */
export type JobSettingsSectionName = Exclude<keyof JobSettings, "lifetime">;

export interface JobKind {
  label: string;
  /**
   * How it starts: "schedule" — daily at its settings section's `time` (when `enabled`), or right after
   * `after`'s run when its time is "after-<that job>"; "model-change" — by the embedding-model check
   * (server/memory/index/model-check.ts activeModel) when the embedder serves another model than the store's.
   */
  startedBy: { kind: "schedule"; section: JobSettingsSectionName; after?: JobName } | { kind: "model-change" };
  /**
   * Whether "Run now" (tRPC jobs.run, `POST /api/v1/jobs/<job>/run`) may start it, and how the jobs panel offers
   * it: "run" — a Run now button; "preview" — a review of what it would do, applied once confirmed
   * (consolidation: app/memory/analytics/consolidation-review.tsx); false — never on request.
   */
  runNow: "run" | "preview" | false;
  /** The counts its runs report, in the order the jobs panel shows them. */
  counts: readonly RunCountName[];
}

export const JOB_KINDS = {
  decay: {
    label: "Decay",
    startedBy: { kind: "schedule", section: "decay" },
    runNow: "run",
    counts: ["promoted", "decayed", "softDeleted", "purged"],
  },
  consolidate: {
    label: "Consolidation",
    startedBy: { kind: "schedule", section: "consolidate", after: "decay" },
    runNow: "preview",
    counts: ["merged", "softDeleted"],
  },
  reindex: {
    label: "Re-index",
    startedBy: { kind: "model-change" },
    runNow: false,
    counts: ["embedded"],
  },
} as const satisfies Record<JobName, JobKind>;

type Kinds = typeof JOB_KINDS;
/** The jobs "Run now" may start. */
export type RunnableJob = { [J in JobName]: Kinds[J]["runNow"] extends false ? never : J }[JobName];
/** The jobs that run on a schedule. */
export type ScheduledJob = { [J in JobName]: Kinds[J]["startedBy"]["kind"] extends "schedule" ? J : never }[JobName];

const names = Object.keys(JOB_KINDS) as JobName[];
export const RUNNABLE_JOBS = names.filter((j) => JOB_KINDS[j].runNow !== false) as [RunnableJob, ...RunnableJob[]];
export const SCHEDULED_JOBS = names.filter((j) => JOB_KINDS[j].startedBy.kind === "schedule") as [
  ScheduledJob,
  ...ScheduledJob[],
];

/** A run's counts as the jobs panel shows them ("3 promoted by recall · 0 decayed while idle …"). */
export function countsLine(job: string, result: Record<string, unknown>): string {
  const kind = (JOB_KINDS as Record<string, JobKind>)[job];
  return (kind?.counts ?? [])
    .map((k) => `${typeof result[k] === "number" ? result[k] : 0} ${RUN_COUNT_LABELS[k]}`)
    .join(" · ");
}
