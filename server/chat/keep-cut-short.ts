/**
 * "Remember this anyway": an exchange whose reply the person stopped, or whose page went away mid-reply,
 * is not stored as memory (server/chat/cut-short.ts) until they keep it. Keeping writes it through the
 * persistence queue like any exchange: the text they saw, without the note, recorded on its message.
 */
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { getConversationOr404, getMessage, listMessages } from "./conversations";
import { keptOnlyOnRequest, splitCutNote } from "./cut-short";
import { persistQueue, type PersistQueue } from "./exchange-queue";
import { provenanceOfRecalled } from "./exchange-provenance";

export async function keepCutShortExchange(
  memo: MemoContext,
  messageId: string,
  persist: PersistQueue = persistQueue(),
): Promise<{ ids: string[] }> {
  const { db } = memo;
  const m = getMessage(db, messageId);
  if (m?.role !== "assistant") throw new ServiceError(404, `no reply ${messageId}`);
  const { text, reason } = splitCutNote(m.content);
  if (!keptOnlyOnRequest(reason))
    throw new ServiceError(409, "only a reply that was stopped or left by its page waits to be kept; this one is not");
  if (!text.trim())
    throw new ServiceError(409, "this reply was stopped before it said anything: there is nothing to remember");
  const conv = getConversationOr404(db, m.conversationId);
  if (conv.temporary || !conv.memory.store || m.sent?.stored === false)
    throw new ServiceError(409, "storing memories is off for this conversation");
  const all = listMessages(db, conv.id);
  const prev = all[all.findIndex((x) => x.id === messageId) - 1];
  if (prev?.role !== "user") throw new ServiceError(409, "this reply has no message of yours before it");
  // The reply was settled as "no memory": open its record again, unless it was kept already.
  const row = db.prepare("SELECT memory_ids AS ids FROM messages WHERE id = ?").get(messageId) as {
    ids: string | null;
  };
  const kept = row.ids ? (JSON.parse(row.ids) as string[]) : [];
  if (kept.length) return { ids: kept };
  db.prepare("UPDATE messages SET persisted_at = NULL, memory_ids = NULL WHERE id = ?").run(messageId);
  const ids = await persist.enqueue({
    space: conv.spaceId,
    conversationId: conv.id,
    user: prev.content,
    assistant: m.content,
    timestamp: prev.createdAt,
    source: "kept chat",
    record: { messageId },
    recalled: provenanceOfRecalled(m.recalled, m.sent),
  });
  if (!ids) throw new ServiceError(503, "it could not be written to memory now; Memo writes it at the next start");
  return { ids };
}
