import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { batchInput, forgetInput, idsInput, newMemoryInput, rememberInput, searchInput } from "../../services/schemas";
import * as memory from "../../services/memory-service";
import { listSpaces } from "../../memory/store";

/** Thin router: validate with the shared schemas, call the service. */
export const memoryRouter = createTRPCRouter({
  add: publicProcedure.input(newMemoryInput).mutation(async ({ ctx, input }) => ({ ids: (await memory.addMemories(ctx.memo, [input]))[0]! })),
  addBatch: publicProcedure.input(batchInput).mutation(async ({ ctx, input }) => ({ ids: await memory.addMemories(ctx.memo, input.items) })),
  search: publicProcedure.input(searchInput).query(({ ctx, input }) => memory.search(ctx.memo, input)),
  remember: publicProcedure.input(rememberInput).mutation(({ ctx, input }) => memory.remember(ctx.memo, input.text, input.space)),
  forget: publicProcedure.input(forgetInput).mutation(({ ctx, input }) => memory.forget(ctx.memo, input.pattern, input.space)),
  restore: publicProcedure.input(idsInput).mutation(({ ctx, input }) => memory.restore(ctx.memo, input.ids)),
  delete: publicProcedure
    .input(z.strictObject({ id: z.string().uuid(), purge: z.boolean().optional() }))
    .mutation(({ ctx, input }) => memory.deleteMemory(ctx.memo, input.id, input.purge)),
  spaces: publicProcedure.query(({ ctx }) => listSpaces(ctx.memo.db)),
});
