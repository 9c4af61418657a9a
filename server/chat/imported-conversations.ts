/**
 * Imported conversations are conversations (issue 55): one conversation of a ChatGPT or Claude export,
 * once its memories are written, becomes a `conversations` row with its messages, in the space it was
 * imported into, with its own title and original times, marked with the format that wrote it
 * (`imported_from`) and the `conversation_id` its memories carry (`import_source`, "chatgpt:<id>").
 * It is then a chat like any other: listed, searched (conversation_fts triggers), opened, continued,
 * deleted (server/chat/delete-chat.ts forgets the memories of its `import_source` too).
 *
 * Each assistant message that ends an exchange is recorded as persisted with the memories its exchange
 * became (found by content hash, as the import stored them: one exchange, chunked as a chat exchange),
 * so the reply's "remembered" line, regenerate and the start-up recovery treat it as a settled exchange.
 *
 * Idempotent: the row's id is derived from its space and source, and a conversation already imported
 * into that space is left as it is (re-importing a file adds no conversation and no message).
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { chatParts, chunkSaid } from "../memory/store/chunker";
import { contentHash, ensureSpace, findLiveByHash } from "../memory/store";
import { stmt } from "../core/statements";
import { MAX_TITLE, titleFrom } from "./conversations";

/** One message as the export had it; `time` null when the file gave none. */
export interface ImportedMessage {
  role: "user" | "assistant";
  content: string;
  time: string | null;
}

/** One parsed conversation of an export, ready to be written. */
export interface ImportedConversation {
  /** The import format that read it ("chatgpt", "claude"). */
  from: string;
  /** The conversation_id its exchanges' memories carry ("chatgpt:<id in the export>"). */
  source: string;
  /** Its title in the export ("" when it had none: named after its first message). */
  title: string;
  /** The conversation's own time (ISO), for messages without one; null when the file has none. */
  time: string | null;
  /** Its messages in the order they were said (left-out system/tool/non-text messages are not here). */
  messages: ImportedMessage[];
}

export interface WrittenConversation {
  id: string;
  title: string;
  /** False: it was already imported into this space, and nothing was written. */
  created: boolean;
  messages: number;
}

/** The conversation's id: a UUID derived from its space and source, so the same import finds the same row. */
export function importedConversationId(space: string, source: string): string {
  const h = crypto.createHash("sha256").update(`imported-conversation\u0000${space}\u0000${source}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version 5 (name-based)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);

/**
 * Message times in the order said: a message without a time takes the one before it (or the
 * conversation's, or `now`), and a time earlier than the message before it is raised to it, so the
 * messages read back (ordered by time) in the order of the export.
 */
function orderedTimes(conv: ImportedConversation, now: string): string[] {
  let prev = conv.time ?? conv.messages.find((m) => m.time)?.time ?? now;
  return conv.messages.map((m) => (prev = m.time ? later(m.time, prev) : prev));
}

/** The live memories one exchange became in `space` (its chunks, by content hash); null when any is missing. */
function exchangeMemoryIds(db: Database.Database, space: string, user: string, assistant: string): string[] | null {
  const ids: string[] = [];
  for (const { content } of chunkSaid(chatParts(user, assistant), 300, 50)) {
    const m = findLiveByHash(db, space, contentHash(content));
    if (!m) return null;
    ids.push(m.id);
  }
  return ids;
}

/**
 * Write one imported conversation into `space` (a space key of the importer's) in one transaction, unless
 * it is already there. Call it once the conversation's memories are written, so that each reply is linked
 * to the memories its exchange became.
 */
export function writeImportedConversation(
  db: Database.Database,
  space: string,
  conv: ImportedConversation,
  now = new Date(),
): WrittenConversation {
  const firstUser = conv.messages.find((m) => m.role === "user");
  const title =
    conv.title.replace(/\s+/g, " ").trim().slice(0, MAX_TITLE) ||
    (firstUser ? titleFrom(firstUser.content) : "Imported conversation");
  return db.transaction((): WrittenConversation => {
    const existing = stmt(db, "SELECT id, title FROM conversations WHERE space_id = ? AND import_source = ?").get(
      space,
      conv.source,
    ) as { id: string; title: string } | undefined;
    if (existing) return { id: existing.id, title: existing.title, created: false, messages: 0 };
    ensureSpace(db, space);
    // The derived id, unless a row already has it (another space's, should one ever be moved): then a fresh one.
    const derived = importedConversationId(space, conv.source);
    const id = stmt(db, "SELECT 1 FROM conversations WHERE id = ?").get(derived) ? crypto.randomUUID() : derived;
    const times = orderedTimes(conv, now.toISOString());
    const created = times[0] ?? conv.time ?? now.toISOString();
    const updated = times.at(-1) ?? created;
    stmt(
      db,
      "INSERT INTO conversations (id, space_id, title, created_at, updated_at, imported_from, import_source) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(id, space, title, created, updated, conv.from, conv.source);
    const insert = stmt(
      db,
      "INSERT INTO messages (id, conversation_id, role, content, created_at, persisted_at, memory_ids) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    const settled = now.toISOString();
    // A person's message with the replies that follow it is one exchange (server/services/import/conversations.ts).
    let user: string | null = null;
    let replies: string[] = [];
    conv.messages.forEach((m, i) => {
      if (m.role === "user") {
        user = m.content;
        replies = [];
      } else replies.push(m.content);
      const endsExchange = m.role === "assistant" && conv.messages[i + 1]?.role !== "assistant";
      const memoryIds = endsExchange && user !== null ? exchangeMemoryIds(db, space, user, replies.join("\n\n")) : null;
      insert.run(
        crypto.randomUUID(),
        id,
        m.role,
        m.content,
        times[i],
        m.role === "assistant" ? settled : null,
        m.role === "assistant" ? JSON.stringify(memoryIds ?? []) : null,
      );
    });
    return { id, title, created: true, messages: conv.messages.length };
  })();
}

/** What an import's conversations became, for its job (the import result links to them). */
export interface ImportedConversationsSummary {
  /** Conversations of the file now in the chat list (created now or by an earlier import of it). */
  total: number;
  /** Of those, written by this import. */
  created: number;
  /** The first LINKED_CONVERSATIONS of them, in file order: the result's links. */
  first: { id: string; title: string }[];
}

/** How many conversations an import result names (and links to); the others are counted. */
export const LINKED_CONVERSATIONS = 20;

/** Conversations written between yields to the event loop: a file of many stalls no chat or health check. */
const YIELD_EVERY = 64;

/** Write an import's conversations, each in its own transaction (see writeImportedConversation). */
export async function writeImportedConversations(
  db: Database.Database,
  list: readonly { space: string; conversation: ImportedConversation }[],
  now = new Date(),
): Promise<ImportedConversationsSummary> {
  const out: ImportedConversationsSummary = { total: 0, created: 0, first: [] };
  for (const { space, conversation } of list) {
    const w = writeImportedConversation(db, space, conversation, now);
    out.total++;
    if (w.created) out.created++;
    if (out.first.length < LINKED_CONVERSATIONS) out.first.push({ id: w.id, title: w.title });
    if (out.total % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  }
  return out;
}
