import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { cancelImport, listImportJobs } from "../../services/import-jobs";
import * as manager from "../../services/manager-service";
import { loadJobSettings } from "../../jobs/settings";

const ids = z.strictObject({ ids: manager.memoryIdsInput });

/** Memory Manager: listing with filters, edits, bulk actions, and the import jobs' progress. */
export const managerRouter = createTRPCRouter({
  list: publicProcedure
    .input(manager.listFilterInput)
    .query(({ ctx, input }) =>
      manager.listMemories(ctx.memo.db, input, loadJobSettings(ctx.memo.db).decay.retentionDays),
    ),
  get: publicProcedure
    .input(z.strictObject({ id: z.string().uuid("id must be a memory id") }))
    .query(({ ctx, input }) =>
      manager.getManagedMemory(ctx.memo.db, input.id, loadJobSettings(ctx.memo.db).decay.retentionDays),
    ),
  edit: publicProcedure
    .input(manager.editInput)
    .mutation(({ ctx, input }) => manager.editMemory(ctx.memo, input.id, input.content)),
  setPinned: publicProcedure
    .input(z.strictObject({ ids: manager.memoryIdsInput, pinned: z.boolean() }))
    .mutation(({ ctx, input }) => manager.setPinnedMany(ctx.memo.db, input.ids, input.pinned)),
  setImportance: publicProcedure
    .input(
      z.strictObject({
        ids: manager.memoryIdsInput,
        importance: z.number().int().min(0, "importance must be 0–5").max(5, "importance must be 0–5"),
      }),
    )
    .mutation(({ ctx, input }) => manager.setImportanceMany(ctx.memo.db, input.ids, input.importance)),
  delete: publicProcedure.input(ids).mutation(({ ctx, input }) => manager.softDeleteMany(ctx.memo.db, input.ids)),
  restore: publicProcedure.input(ids).mutation(({ ctx, input }) => manager.restoreMany(ctx.memo.db, input.ids)),
  purge: publicProcedure.input(ids).mutation(({ ctx, input }) => manager.purgeMany(ctx.memo.db, input.ids)),
  imports: publicProcedure.query(({ ctx }) => listImportJobs(ctx.memo.db)),
  /** Stop a queued or running import, keeping what it stored or (forget) sending it to the trash. */
  cancelImport: publicProcedure
    .input(z.object({ id: z.string().uuid("id must be an import job id"), forget: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => cancelImport(ctx.memo.db, input.id, input.forget)),
});
