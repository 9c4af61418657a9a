import { createTRPCRouter, publicProcedure } from "../trpc";
import * as spaces from "../../services/spaces-service";

/** Spaces for Settings: list with counts, create, rename, delete (with the name repeated as confirmation). */
export const spacesRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => spaces.listSpaceSummaries(ctx.memo.db)),
  create: publicProcedure
    .input(spaces.createSpaceInput)
    .mutation(({ ctx, input }) => spaces.createSpace(ctx.memo.db, input.name)),
  rename: publicProcedure
    .input(spaces.renameSpaceInput)
    .mutation(({ ctx, input }) => spaces.renameSpace(ctx.memo.db, input.from, input.to)),
  delete: publicProcedure
    .input(spaces.deleteSpaceInput)
    .mutation(({ ctx, input }) => spaces.deleteSpace(ctx.memo.db, input.name, input.confirm)),
});
