import { z } from "zod";
import { runAsSystem } from "../../core/acting";
import { adminProcedure, createTRPCRouter, ownerProcedure, personalProcedure, publicProcedure } from "../trpc";
import { runCounts, runJobNow, RUNNABLE_JOBS, type RunnableJob } from "../../jobs/jobs";
import { leaseHolder } from "../../core/lease";
import { reindexStatus } from "../../memory/index/reindex-job";
import { JOB_NAMES, listRuns } from "../../core/job-runner";
import { getScheduler, nextRunsHere } from "../../jobs/scheduler";
import {
  consolidationThreshold,
  jobSettingsPatchSchema,
  loadJobSettings,
  loadPersonLifetime,
  personLifetimeSchema,
  savePersonLifetime,
  saveJobSettings,
} from "../../jobs/settings";
import { boundModel } from "../../memory/store";
import { applyConsolidationPreview, previewConsolidation, undoConsolidationRun } from "../../jobs/consolidation-runs";

/** Background jobs: run now, history, schedule settings, re-index progress. */
export const jobsRouter = createTRPCRouter({
  run: adminProcedure.input(z.strictObject({ job: z.enum(RUNNABLE_JOBS) })).mutation(async ({ ctx, input }) => {
    const run = await runJobNow(ctx.memo, input.job, { trigger: "manual" });
    return { run, counts: runCounts(run) };
  }),
  /** "Run consolidation now": the proposed merges, nothing written. */
  previewConsolidation: adminProcedure.mutation(async ({ ctx }) => {
    const run = await runAsSystem(() => previewConsolidation(ctx.memo, { trigger: "manual" }));
    return { run, counts: runCounts(run) };
  }),
  /** Apply a preview's proposals and duplicate facts (all, or those picked by index) after the user confirmed them. */
  applyConsolidation: adminProcedure
    .input(
      z.strictObject({
        runId: z.number().int().positive(),
        pick: z.array(z.number().int().min(0)).max(1000).optional(),
        /** The duplicate facts to merge, by index in the preview's factProposals (default all). */
        pickFacts: z.array(z.number().int().min(0)).max(1000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const run = await runAsSystem(() =>
        applyConsolidationPreview(ctx.memo, input.runId, input.pick, input.pickFacts),
      );
      return { run, counts: runCounts(run) };
    }),
  /** Undo a consolidation run (within 7 days). */
  undoRun: adminProcedure
    .input(z.strictObject({ runId: z.number().int().positive() }))
    .mutation(({ ctx, input }) => runAsSystem(() => undoConsolidationRun(ctx.memo, input.runId))),
  runs: adminProcedure
    .input(
      z
        .strictObject({ limit: z.number().int().min(1).max(500).optional(), job: z.enum(JOB_NAMES).optional() })
        .optional(),
    )
    .query(({ ctx, input }) => listRuns(ctx.memo.db, { limit: input?.limit ?? 20, job: input?.job })),
  status: publicProcedure.query(({ ctx }) => {
    const db = ctx.memo.db;
    const settings = loadJobSettings(db);
    const model = boundModel(db)?.model ?? null;
    return {
      next: nextRunsHere(),
      schedulerRunning: getScheduler() !== undefined,
      running: Object.fromEntries(RUNNABLE_JOBS.map((j) => [j, leaseHolder(db, j)?.owner ?? null])) as Record<
        RunnableJob,
        string | null
      >,
      reindex: reindexStatus(db),
      model,
      threshold: consolidationThreshold(settings, model ?? undefined),
    };
  }),
  settings: ownerProcedure.query(({ ctx }) => {
    const settings = loadJobSettings(ctx.memo.db);
    const model = boundModel(ctx.memo.db)?.model ?? null;
    return { settings, model, threshold: consolidationThreshold(settings, model ?? undefined) };
  }),
  /** The caller's own lifetime rules (decay days, which kinds decay): the decay job applies each person's. */
  lifetime: publicProcedure.query(({ ctx }) => loadPersonLifetime(ctx.memo.db)),
  saveLifetime: personalProcedure
    .input(
      personLifetimeSchema
        .omit({ lifetime: true })
        .partial()
        .extend({ lifetime: personLifetimeSchema.shape.lifetime.partial().optional() }),
    )
    .mutation(({ ctx, input }) => savePersonLifetime(ctx.memo.db, input)),
  saveSettings: ownerProcedure.input(jobSettingsPatchSchema).mutation(({ ctx, input }) => {
    const settings = saveJobSettings(ctx.memo.db, input);
    getScheduler()?.reload();
    return { settings, next: nextRunsHere() };
  }),
});
