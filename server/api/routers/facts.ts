import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import * as facts from "../../services/facts-service";
import { factSourcesFor } from "../../services/fact-sources";

const byId = z.strictObject({ id: facts.factId });

/** "What Memo knows" (issue 42): the person's facts by space, their history, edits, confirmations and deletions. */
export const factsRouter = createTRPCRouter({
  list: publicProcedure.input(facts.listFactsInput).query(({ ctx, input }) => facts.listFactsFor(ctx.memo, input)),
  history: publicProcedure.input(byId).query(({ ctx, input }) => facts.factHistoryFor(ctx.memo, input.id)),
  sources: publicProcedure.input(byId).query(({ ctx, input }) => factSourcesFor(ctx.memo, input.id)),
  edit: publicProcedure
    .input(facts.editFactInput)
    .mutation(({ ctx, input }) => facts.editFact(ctx.memo, input.id, input.text, input.validFrom)),
  confirm: publicProcedure.input(byId).mutation(({ ctx, input }) => facts.confirmFactFor(ctx.memo, input.id)),
  delete: publicProcedure.input(byId).mutation(({ ctx, input }) => facts.deleteFact(ctx.memo, input.id)),
  restore: publicProcedure.input(byId).mutation(({ ctx, input }) => facts.restoreFact(ctx.memo, input.id)),
});
