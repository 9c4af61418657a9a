/**
 * The chat page's conversation tools beyond list/open/rename/delete: search over titles and message text
 * (conversation_fts, drizzle/0010), pinning, Markdown export, and which memories an exchange stored.
 */
import type Database from "better-sqlite3";
import { quoteFtsTerm } from "../memory/retrieval/keyword-search";
import {
  CONVERSATION_COLUMNS,
  getConversationOr404,
  listMessages,
  rowToConversation,
  type Conversation,
} from "../chat/conversations";
import { ServiceError } from "../core/errors";

export const MAX_SEARCH_QUERY = 200;

export interface ConversationHit extends Conversation {
  /** Where the words matched, with the matches wrapped in « ». Null when only the title matched. */
  snippet: string | null;
}

/**
 * The FTS5 expression for a search box string: every word must occur (AND), the last one as a prefix
 * (so results narrow while typing). Each word is quoted: nothing the user types is FTS syntax.
 */
export function conversationMatch(query: string): string | null {
  const words = query.normalize("NFKC").match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (!words.length) return null;
  return words.map((w, i) => (i === words.length - 1 ? `${quoteFtsTerm(w)}*` : quoteFtsTerm(w))).join(" AND ");
}

/** Conversations whose title or messages contain every word of `query`, best match first (pinned first among them). */
export function searchConversations(
  db: Database.Database,
  query: string,
  opts: { limit?: number } = {},
): ConversationHit[] {
  if (query.length > MAX_SEARCH_QUERY)
    throw new ServiceError(400, `the search must be at most ${MAX_SEARCH_QUERY} characters`);
  const match = conversationMatch(query);
  if (!match) return [];
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const hits = db
    .prepare(
      `SELECT conversation_id AS id, message_id AS mid, snippet(conversation_fts, 2, '«', '»', '…', 12) AS snip
         FROM conversation_fts WHERE conversation_fts MATCH ? ORDER BY rank LIMIT 2000`,
    )
    .all(match) as { id: string; mid: string | null; snip: string }[];
  const best = new Map<string, string | null>();
  for (const h of hits) {
    if (!best.has(h.id)) best.set(h.id, h.mid ? h.snip : null);
    else if (best.get(h.id) === null && h.mid) best.set(h.id, h.snip);
  }
  const ids = [...best.keys()];
  if (!ids.length) return [];
  const rows = db
    .prepare(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.temporary = 0 AND mine(c.space_id) AND c.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as Record<string, unknown>[];
  const byId = new Map(rows.map((r) => [r.id as string, rowToConversation(r)]));
  const ordered = ids.flatMap((id) => (byId.has(id) ? [{ ...byId.get(id)!, snippet: best.get(id) ?? null }] : []));
  return [...ordered.filter((c) => c.pinned), ...ordered.filter((c) => !c.pinned)].slice(0, limit);
}

export function pinConversation(db: Database.Database, id: string, pinned: boolean): Conversation {
  const changed = db
    .prepare("UPDATE conversations SET pinned = ? WHERE id = ? AND mine(space_id)")
    .run(pinned ? 1 : 0, id).changes;
  if (!changed) throw new ServiceError(404, `conversation ${id} not found`);
  return getConversationOr404(db, id);
}

/** A file name from a title: letters, digits and dashes. */
export function exportFileName(title: string): string {
  const base = title
    .normalize("NFKD")
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .toLowerCase();
  return `${base || "conversation"}.md`;
}

/** One conversation as Markdown: title, space and dates, then each message under its speaker and time. */
export function conversationMarkdown(db: Database.Database, id: string): { filename: string; markdown: string } {
  const c = getConversationOr404(db, id);
  const lines = [`# ${c.title}`, "", `Space: ${c.spaceId} · started ${c.createdAt} · last message ${c.updatedAt}`, ""];
  for (const m of listMessages(db, id)) {
    lines.push(
      `## ${m.role === "user" ? "You" : m.role === "assistant" ? "Memo" : "System"} · ${m.createdAt}`,
      "",
      m.content.trimEnd(),
      "",
    );
    if (m.recalled?.length) {
      lines.push(`<details><summary>Recalled memories (${m.recalled.length})</summary>`, "");
      for (const r of m.recalled)
        lines.push(`- ${r.timestamp.slice(0, 10)} (${r.matchType}): ${r.content.replace(/\s+/g, " ").slice(0, 200)}`);
      lines.push("", "</details>", "");
    }
  }
  return { filename: exportFileName(c.title), markdown: `${lines.join("\n").trimEnd()}\n` };
}

/** What an assistant reply's exchange stored in memory (its recorded, still live memories); empty until persisted. */
export function rememberedBy(db: Database.Database, messageId: string): { id: string; content: string }[] {
  const r = db
    .prepare(
      "SELECT role, memory_ids AS ids FROM messages WHERE id = ? AND conversation_id IN (SELECT id FROM conversations WHERE mine(space_id))",
    )
    .get(messageId) as { role: string; ids: string | null } | undefined;
  if (r?.role !== "assistant") throw new ServiceError(404, `no reply ${messageId}`);
  if (!r.ids) return [];
  return db
    .prepare(
      "SELECT id, substr(content, 1, 300) AS content FROM memories WHERE id IN (SELECT value FROM json_each(?)) AND soft_deleted = 0 AND mine(space_id) ORDER BY chunk_index",
    )
    .all(r.ids) as { id: string; content: string }[];
}
