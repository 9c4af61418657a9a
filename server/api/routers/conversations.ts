import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import * as conversations from "../../services/conversation-service";
import { spaceName } from "../../services/schemas";

const id = z.string().uuid("id must be a conversation id");
const title = z.string().trim().min(1, "title must not be empty").max(conversations.MAX_TITLE, `title must be at most ${conversations.MAX_TITLE} characters`);

/** Conversations of the chat page: list, open, create, rename, delete. */
export const conversationsRouter = createTRPCRouter({
  list: publicProcedure
    .input(z.strictObject({ space: spaceName.optional(), limit: z.number().int().min(1).max(1000).optional() }).optional())
    .query(({ ctx, input }) => conversations.listConversations(ctx.memo.db, input ?? {})),
  get: publicProcedure.input(z.strictObject({ id })).query(({ ctx, input }) => conversations.getConversationWithMessages(ctx.memo.db, input.id)),
  create: publicProcedure
    .input(z.strictObject({ space: spaceName.optional(), title: title.optional() }))
    .mutation(({ ctx, input }) => conversations.createConversation(ctx.memo.db, input)),
  rename: publicProcedure.input(z.strictObject({ id, title })).mutation(({ ctx, input }) => conversations.renameConversation(ctx.memo.db, input.id, input.title)),
  delete: publicProcedure.input(z.strictObject({ id })).mutation(({ ctx, input }) => conversations.deleteConversation(ctx.memo.db, input.id)),
});
