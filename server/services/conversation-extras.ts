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
import { mineScan } from "../core/acting";

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

/**
 * Conversations whose title or messages contain every word of `query`: pinned first, then those whose title
 * matches, then by how many of their messages match, then the most recently updated.
 *
 * The person's own non-temporary conversations are chosen before anything is ordered or cut (issue 43,
 * finding 2), and the order is computed from those matches alone. FTS5's `rank` (bm25) is not used: it reads
 * document counts and lengths over the whole `conversation_fts` table, i.e. over every person's messages, so
 * ordering by it would let another person's conversations move this person's results. The snippet is the
 * most recently written matching message's (FTS5's snippet() reads that one row only).
 */
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
  // CROSS JOIN keeps the FTS match as the outer loop (one index lookup), with the person's filter on each hit.
  const found = db
    .prepare(
      `SELECT f.conversation_id AS id, max(f.message_id IS NULL) AS titleHit, count(f.message_id) AS messageHits,
              max(CASE WHEN f.message_id IS NOT NULL THEN f.rowid END) AS latest
         FROM conversation_fts f CROSS JOIN conversations c ON c.id = f.conversation_id
        WHERE conversation_fts MATCH ? AND c.temporary = 0 AND ${mineScan("c.space_id")}
        GROUP BY f.conversation_id
        ORDER BY c.pinned DESC, titleHit DESC, messageHits DESC, c.updated_at DESC, c.id
        LIMIT ?`,
    )
    .all(match, limit) as { id: string; latest: number | null }[];
  if (!found.length) return [];
  const latest = found.flatMap((h) => (h.latest === null ? [] : [h.latest]));
  const snippets = new Map(
    (
      db
        .prepare(
          `SELECT conversation_id AS id, snippet(conversation_fts, 2, '«', '»', '…', 12) AS snip
             FROM conversation_fts WHERE conversation_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
        )
        .all(match, JSON.stringify(latest)) as { id: string; snip: string }[]
    ).map((r) => [r.id, r.snip]),
  );
  const rows = db
    .prepare(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id IN (SELECT value FROM json_each(?)) AND mine(c.space_id)`,
    )
    .all(JSON.stringify(found.map((h) => h.id))) as Record<string, unknown>[];
  const byId = new Map(rows.map((r) => [r.id as string, rowToConversation(r)]));
  return found.flatMap((h) => {
    const c = byId.get(h.id);
    return c ? [{ ...c, snippet: snippets.get(h.id) ?? null }] : [];
  });
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
