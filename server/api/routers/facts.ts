import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import * as facts from "../../services/facts-service";
import { factSourcesFor } from "../../services/fact-sources";
import * as proposals from "../../services/fact-proposals-service";
import { spaceName } from "../../core/validators";

const byId = z.strictObject({ id: facts.factId });
const byProposal = z.strictObject({ id: z.string().uuid("id must be a proposal id") });

/** "What Memo knows" (issue 42): the person's facts by space, their history, edits, confirmations and deletions. */
export const factsRouter = createTRPCRouter({
  list: publicProcedure.input(facts.listFactsInput).query(({ ctx, input }) => facts.listFactsFor(ctx.memo, input)),
  history: publicProcedure.input(byId).query(({ ctx, input }) => facts.factHistoryFor(ctx.memo, input.id)),
  sources: publicProcedure.input(byId).query(({ ctx, input }) => factSourcesFor(ctx.memo, input.id)),
  edit: publicProcedure
    .input(facts.editFactInput)
    .mutation(({ ctx, input }) => facts.editFact(ctx.memo, input.id, input.text, input.validFrom)),
  confirm: publicProcedure.input(byId).mutation(({ ctx, input }) => facts.confirmFactFor(ctx.memo, input.id)),
  delete: publicProcedure
    .input(byId.extend({ sources: z.enum(["keep", "forget"]).optional() }))
    .mutation(({ ctx, input }) => facts.deleteFact(ctx.memo, input.id, { forgetSources: input.sources === "forget" })),
  restore: publicProcedure
    .input(byId.extend({ memories: z.array(z.string().uuid("memories must be memory ids")).max(1000).optional() }))
    .mutation(({ ctx, input }) => facts.restoreFact(ctx.memo, input.id, input.memories)),
  /** Replacements a document, an import or the back-fill proposed (issue 48): the person accepts or dismisses each. */
  summary: publicProcedure.query(({ ctx }) => facts.factsSummary(ctx.memo)),
  proposals: publicProcedure
    .input(z.strictObject({ space: spaceName.optional() }).optional())
    .query(({ ctx, input }) => proposals.factProposals(ctx.memo, input?.space)),
  acceptProposal: publicProcedure
    .input(byProposal)
    .mutation(({ ctx, input }) => proposals.acceptProposal(ctx.memo, input.id)),
  dismissProposal: publicProcedure
    .input(byProposal)
    .mutation(({ ctx, input }) => proposals.dismissProposal(ctx.memo, input.id)),
  decideProposals: publicProcedure
    .input(
      z.strictObject({
        ids: z.array(z.string().uuid("ids must be proposal ids")).min(1).max(500),
        decision: z.enum(["accept", "dismiss"]),
      }),
    )
    .mutation(({ ctx, input }) => proposals.decideProposals(ctx.memo, input.ids, input.decision)),
});
