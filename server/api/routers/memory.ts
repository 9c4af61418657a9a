import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { batchInput, forgetInput, idsInput, newMemoryInput, rememberInput, searchInput } from "../../core/validators";
import { deleteMemory } from "../../services/memory-service";
import { forgetRequest, restore } from "../../memory/lifecycle/forget";
import { search } from "../../memory/retrieval/search";
import { addMemories, remember } from "../../memory/store/add";
import { ensureSpace, listSpaces } from "../../memory/store";
import { mySpace } from "../../core/acting";
import { DEFAULT_SPACE } from "../../core/space-name";

/** Thin router: validate with the shared schemas, call the memory operations. */
export const memoryRouter = createTRPCRouter({
  add: publicProcedure
    .input(newMemoryInput)
    .mutation(async ({ ctx, input }) => ({ ids: (await addMemories(ctx.memo, [input]))[0]! })),
  addBatch: publicProcedure
    .input(batchInput)
    .mutation(async ({ ctx, input }) => ({ ids: await addMemories(ctx.memo, input.items) })),
  search: publicProcedure.input(searchInput).query(({ ctx, input }) => search(ctx.memo, input)),
  remember: publicProcedure
    .input(rememberInput)
    .mutation(({ ctx, input }) => remember(ctx.memo, input.text, input.space)),
  /** `preview: true` lists what would be forgotten and deletes nothing, as POST /api/v1/forget does. */
  forget: publicProcedure.input(forgetInput).mutation(({ ctx, input }) => forgetRequest(ctx.memo, input)),
  restore: publicProcedure.input(idsInput).mutation(({ ctx, input }) => restore(ctx.memo, input.ids)),
  delete: publicProcedure
    .input(z.strictObject({ id: z.string().uuid(), purge: z.boolean().optional() }))
    .mutation(({ ctx, input }) => deleteMemory(ctx.memo, input.id, input.purge)),
  spaces: publicProcedure.query(({ ctx }) => {
    // A new person's default space exists from their first look, as the owner's does.
    ensureSpace(ctx.memo.db, mySpace(DEFAULT_SPACE));
    return listSpaces(ctx.memo.db);
  }),
});
