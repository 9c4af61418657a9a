import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import * as conversations from "../../chat/conversations";
import * as extras from "../../services/conversation-extras";
import { deleteChat, deleteChatPreview } from "../../chat/delete-chat";
import { spaceName } from "../../core/validators";
import * as shares from "../../services/shares-service";

const id = z.string().uuid("id must be a conversation id");
const title = z
  .string()
  .trim()
  .min(1, "title must not be empty")
  .max(conversations.MAX_TITLE, `title must be at most ${conversations.MAX_TITLE} characters`);

/** Conversations of the chat page: list, open, create, rename, delete, search, pin, export. */
export const conversationsRouter = createTRPCRouter({
  list: publicProcedure
    .input(
      z.strictObject({ space: spaceName.optional(), limit: z.number().int().min(1).max(1000).optional() }).optional(),
    )
    .query(({ ctx, input }) => conversations.listConversations(ctx.memo.db, input ?? {})),
  get: publicProcedure
    .input(z.strictObject({ id }))
    .query(({ ctx, input }) => conversations.getConversationWithMessages(ctx.memo.db, input.id)),
  create: publicProcedure
    .input(z.strictObject({ space: spaceName.optional(), title: title.optional() }))
    .mutation(({ ctx, input }) => conversations.createConversation(ctx.memo.db, input)),
  rename: publicProcedure
    .input(z.strictObject({ id, title }))
    .mutation(({ ctx, input }) => conversations.renameConversation(ctx.memo.db, input.id, input.title)),
  /** Delete a conversation; `forgetMemories` (default true, as the dialog) also forgets what Memo remembered from it, restorable for 7 days. */
  delete: publicProcedure
    .input(z.strictObject({ id, forgetMemories: z.boolean().default(true) }))
    .mutation(({ ctx, input }) => deleteChat(ctx.memo, input.id, { forget: input.forgetMemories })),
  /** For the delete dialog: how many memories "Also forget" would forget. */
  deletePreview: publicProcedure
    .input(z.strictObject({ id }))
    .query(({ ctx, input }) => deleteChatPreview(ctx.memo.db, input.id)),
  /** "Search conversations": titles and message text, every word, the last as a prefix. */
  search: publicProcedure
    .input(
      z.strictObject({
        query: z
          .string()
          .max(extras.MAX_SEARCH_QUERY, `the search must be at most ${extras.MAX_SEARCH_QUERY} characters`),
        limit: z.number().int().min(1).max(200).optional(),
      }),
    )
    .query(({ ctx, input }) => extras.searchConversations(ctx.memo.db, input.query, { limit: input.limit })),
  pin: publicProcedure
    .input(z.strictObject({ id, pinned: z.boolean() }))
    .mutation(({ ctx, input }) => extras.pinConversation(ctx.memo.db, input.id, input.pinned)),
  /** The conversation as a Markdown file (the page saves it). */
  exportMarkdown: publicProcedure
    .input(z.strictObject({ id }))
    .mutation(({ ctx, input }) => extras.conversationMarkdown(ctx.memo.db, input.id)),
  /** The memories a reply's exchange stored (empty until it is persisted, off the reply path). */
  /** The spaces shared with me that this conversation's recall also reads (added explicitly). */
  spaces: publicProcedure
    .input(z.strictObject({ id }))
    .query(({ ctx, input }) => shares.addedSpaces(ctx.memo.db, input.id)),
  /** Choose the spaces shared with me that this conversation's recall also reads (the only way a shared space reaches a turn). */
  setSpaces: publicProcedure
    .input(shares.conversationSpacesInput)
    .mutation(({ ctx, input }) => shares.setSpacesOfConversation(ctx.memo.db, input)),
  remembered: publicProcedure
    .input(z.strictObject({ messageId: z.string().uuid("messageId must be a message id") }))
    .query(({ ctx, input }) => extras.rememberedBy(ctx.memo.db, input.messageId)),
});
