/**
 * Deleting a chat, and what Memo remembered from it. The delete dialog (and DELETE
 * /api/v1/conversations/:id) offers to forget the memories its exchanges became, on by default: they go
 * to the trash with the same 7-day undo as /forget (server/memory/lifecycle/forget.ts forgetIds; restore them with
 * memory.restore or POST /api/v1/memories/restore). Kept, they stay recallable, as before.
 * A /remember typed in the chat is not the chat's memory (it carries no conversation): it stays. An imported
 * conversation's memories are its exchanges' (stored by the import), and go with it the same way.
 */
import type Database from "better-sqlite3";
import type { MemoContext } from "../core/context";
import { forgetIds, FORGET_UNDO_DAYS } from "../memory/lifecycle/forget";
import { deleteConversation, getConversationOr404 } from "./conversations";

export interface DeleteChatResult {
  id: string;
  /** How many messages went with it. */
  messages: number;
  /** What was forgotten (null: memories kept); undo with `undo.ids` until `undo.until`. */
  forgotten: { count: number; undo: { ids: string[]; until: string } } | null;
  message: string;
}

/**
 * The live memories a conversation's exchanges became: those it wrote, and for an imported conversation
 * those its import wrote in its space (they carry the export's conversation id, server/chat/imported-conversations.ts).
 */
export function chatMemoryIds(db: Database.Database, conversationId: string): string[] {
  return (
    db
      .prepare(
        `SELECT id FROM memories WHERE soft_deleted = 0 AND (conversation_id = @id OR (conversation_id, space_id) IN
           (SELECT import_source, space_id FROM conversations WHERE id = @id AND import_source IS NOT NULL)) ORDER BY rid`,
      )
      .all({ id: conversationId }) as { id: string }[]
  ).map((r) => r.id);
}

/** For the delete dialog: how many memories "Also forget" would forget. */
export function deleteChatPreview(db: Database.Database, id: string): { id: string; title: string; memories: number } {
  const conv = getConversationOr404(db, id);
  return { id, title: conv.title, memories: chatMemoryIds(db, id).length };
}

const plural = (n: number) => `${n} memor${n === 1 ? "y" : "ies"}`;

export function deleteChat(ctx: MemoContext, id: string, opts: { forget: boolean }): DeleteChatResult {
  const conv = getConversationOr404(ctx.db, id); // 404 before anything is forgotten
  const f = opts.forget ? forgetIds(ctx, chatMemoryIds(ctx.db, id), conv.title) : null;
  const { messages } = deleteConversation(ctx.db, id);
  const forgotten = f && { count: f.count, undo: f.undo };
  return {
    id,
    messages,
    forgotten,
    message: !forgotten
      ? `Deleted “${conv.title}”; what Memo remembered from it is kept.`
      : forgotten.count
        ? `Deleted “${conv.title}” and forgot ${plural(forgotten.count)} from it. Undo is possible for ${FORGET_UNDO_DAYS} days.`
        : `Deleted “${conv.title}”; it had left nothing in memory.`,
  };
}
