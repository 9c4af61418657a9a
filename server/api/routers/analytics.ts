import { createTRPCRouter, publicProcedure } from "../trpc";
import { analytics, analyticsInput } from "../../services/analytics-service";
import { ServiceError } from "../../core/errors";
import { spaceExists } from "../../memory/store";
import { loadJobSettings } from "../../jobs/settings";
import { keep, lifetimeOverview } from "../../services/lifetime-service";
import { memoryIdsInput } from "../../services/manager-service";
import { spaceName } from "../../core/validators";
import { z } from "zod";

export const analyticsRouter = createTRPCRouter({
  overview: publicProcedure.input(analyticsInput).query(({ ctx, input }) => {
    if (input.space && !spaceExists(ctx.memo.db, input.space))
      throw new ServiceError(404, `space '${input.space}' does not exist`);
    // Purge timing follows the decay job's retention setting (default 30 days).
    return analytics(ctx.memo.db, input, { retentionDays: loadJobSettings(ctx.memo.db).decay.retentionDays });
  }),
  /** The lifetime policy per kind and what decay removes within 7 days (shown in Analytics and the Manager). */
  lifetime: publicProcedure
    .input(z.strictObject({ space: spaceName.optional() }).optional())
    .query(({ ctx, input }) => lifetimeOverview(ctx.memo.db, { space: input?.space })),
  /** One-click keep: restore (if in the trash) and pin. */
  keep: publicProcedure
    .input(z.strictObject({ ids: memoryIdsInput }))
    .mutation(({ ctx, input }) => keep(ctx.memo.db, input.ids)),
});
