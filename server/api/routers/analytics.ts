import { createTRPCRouter, publicProcedure } from "../trpc";
import { analytics, analyticsInput } from "../../services/analytics-service";
import { ServiceError } from "../../services/memory-service";
import { spaceExists } from "../../memory/store";
import { loadJobSettings } from "../../jobs/settings";

export const analyticsRouter = createTRPCRouter({
  overview: publicProcedure.input(analyticsInput).query(({ ctx, input }) => {
    if (input.space && !spaceExists(ctx.memo.db, input.space)) throw new ServiceError(404, `space '${input.space}' does not exist`);
    // Purge timing follows the decay job's retention setting (default 30 days).
    return analytics(ctx.memo.db, input, { retentionDays: loadJobSettings(ctx.memo.db).decay.retentionDays });
  }),
});
