import { z } from "zod";
import { createTRPCRouter, personalProcedure, publicProcedure } from "../trpc";
import * as learning from "../../services/learning-service";

const runId = z.strictObject({ id: z.string().uuid("id must be a learning run id") });

/**
 * Learning facts (docs/facts.md): the switch per provider and the calls made, the queue, what each
 * extraction sent, and opt-in learning over stored memory (count first, start, progress, stop).
 */
export const learningRouter = createTRPCRouter({
  status: publicProcedure.query(({ ctx }) => learning.learningOverview(ctx.memo)),
  /** Like memory sharing, a choice about where the household's memory may go: a person signed in, never a token. */
  setProvider: personalProcedure
    .input(z.strictObject({ key: learning.providerKeyInput, on: z.boolean().nullable() }))
    .mutation(({ ctx, input }) => learning.setProviderLearning(ctx.memo, input.key, input.on)),
  count: publicProcedure
    .input(learning.learnTargetInput)
    .query(({ ctx, input }) => learning.countLearning(ctx.memo, input)),
  start: publicProcedure
    .input(learning.learnTargetInput)
    .mutation(({ ctx, input }) => learning.startLearning(ctx.memo, input)),
  runs: publicProcedure
    .input(
      z
        .strictObject({
          kind: learning.learnTargetInput.shape.kind.optional(),
          target: z.string().uuid("target must be a document or import id").optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => learning.learningRuns(ctx.memo, input ?? {})),
  run: publicProcedure.input(runId).query(({ ctx, input }) => learning.learningRunOr404(ctx.memo, input.id)),
  stop: publicProcedure.input(runId).mutation(({ ctx, input }) => learning.stopLearning(ctx.memo, input.id)),
  /** Undo a run as a whole: its facts forgotten, what they replaced current again, its proposals dismissed. */
  undo: publicProcedure.input(runId).mutation(({ ctx, input }) => learning.undoLearning(ctx.memo, input.id)),
  /** Under a reply: learned from or not, and the extraction's "Sent to" record. */
  reply: publicProcedure
    .input(z.strictObject({ messageId: z.string().uuid("messageId must be a message id") }))
    .query(({ ctx, input }) => learning.replyLearning(ctx.memo, input.messageId)),
  /** Under a reply: undo one fact its exchange taught (what that fact replaced is current again). */
  undoFact: publicProcedure
    .input(
      z.strictObject({
        messageId: z.string().uuid("messageId must be a message id"),
        factId: z.string().uuid("factId must be a fact id"),
      }),
    )
    .mutation(({ ctx, input }) => learning.undoReplyLearning(ctx.memo, input.messageId, input.factId)),
});
