/**
 * Conversations and their messages (tables `conversations`, `messages`). Every write is one transaction.
 *
 * `messages.recalled` (JSON) holds, for an assistant reply, the memories recalled into its prompt with
 * their scores (an array of RecalledMemory); for the reply to a memory command it holds
 * `{ "command": CommandInfo }` instead (what /remember stored, what /forget matched and its undo).
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { parseCommand } from "./commands";
import type { SentMemory } from "./memory-policy";
import type { ChatMessage } from "./providers";
import type { MatchType } from "../memory/retrieval/union-fusion";
import type { KnownFact } from "../memory/retrieval/fact-block";
import { estimateTokens } from "../memory/retrieval/token-estimate";
import type { ScoreBreakdown } from "../memory/retrieval/retrieve";
import { ensureSpace, spaceExists, type MemoryKind, type Whose } from "../memory/store";
import { DEFAULT_SPACE } from "../core/space-name";
import { ServiceError } from "../core/errors";
import { privacyNow, sweepTemporaryChats, temporaryColumns } from "./temporary-chats";
import { stripCutNote } from "./cut-short";
import { mySpaceOf } from "../core/acting";

export const DEFAULT_TITLE = "New conversation";
export const MAX_TITLE = 200;

export interface RecalledMemory {
  id: string;
  content: string;
  timestamp: string;
  kind: MemoryKind;
  matchType: MatchType;
  importance: number;
  pinned: boolean;
  scores: ScoreBreakdown;
  /**
   * What moved it in the ranking (date window, neighbour, recency, about you, newer than a near-duplicate):
   * Debug Search's moves without the confidence's features. Absent on replies stored before it was kept.
   */
  moves?: string[];
  /** A document chunk's file name and the section heading it sits under (absent for other memories). */
  documentName?: string | null;
  section?: string | null;
  /** Whose it is, when it came from a space shared with the person (or was written by a sharee). */
  whose?: Whose | null;
  /** The fact it brought to the prompt's "What I know" block (server/memory/retrieval/fact-block.ts). */
  fact?: KnownFact;
}

export type CommandInfo =
  | { type: "remember"; text: string; ids: string[] }
  | {
      type: "forget";
      pattern: string;
      count: number;
      items: { id: string; content: string; timestamp: string }[];
      undo: { ids: string[]; until: string };
      undoneAt: string | null;
      /** Set while the /forget waits for confirmation (more than 3 matches, or a pinned one): what it would remove. */
      pending?: { ids: string[]; pinned: number; facts?: { id: string; text: string }[] } | null;
      /** The facts it removed (or, pending, would remove) with the memories: learned from them alone (issue 54). */
      facts?: { id: string; text: string }[];
      /** The user declined the pending /forget. */
      cancelledAt?: string | null;
    }
  | { type: "help" }
  | { type: "invalid"; message: string };

export interface StoredMessage {
  id: string;
  conversationId: string;
  role: "user" | "assistant" | "system";
  content: string;
  createdAt: string;
  /** Memories recalled into the prompt of this reply (null for user messages and command replies). */
  recalled: RecalledMemory[] | null;
  /** For the reply to a memory command: what it did. */
  command: CommandInfo | null;
  /** For a reply: the memory that went to the provider with its prompt (null for older replies). */
  sent: SentMemory | null;
}

export interface Conversation {
  id: string;
  spaceId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  pinned: boolean;
  messageCount: number;
  /** The start of the last message, for the list. */
  preview: string | null;
  /** Memory per conversation (server/chat/temporary-chats.ts). */
  memory: { recall: boolean; store: boolean };
  /** A temporary chat: never stored as memory, deleted when its tab closes or at expiresAt. */
  temporary: boolean;
  expiresAt: string | null;
  /**
   * The import format that wrote it ("chatgpt", "claude": server/services/import/formats.ts); null for a
   * chat started in Memo (server/chat/imported-conversations.ts).
   */
  importedFrom: string | null;
}

export interface NewMessage {
  role: "user" | "assistant";
  content: string;
  recalled?: RecalledMemory[];
  command?: CommandInfo;
  sent?: SentMemory;
  /** ISO time; default now (consecutive messages of one call get increasing times). */
  createdAt?: string;
}

type Row = Record<string, unknown>;

export function rowToConversation(r: Row): Conversation {
  return {
    id: r.id as string,
    spaceId: r.space_id as string,
    title: r.title as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    pinned: Boolean(r.pinned),
    messageCount: Number(r.message_count ?? 0),
    preview: (r.preview as string | null) ?? null,
    memory: { recall: r.recall_memory !== 0, store: r.store_memory !== 0 },
    temporary: r.temporary === 1,
    expiresAt: (r.expires_at as string | null) ?? null,
    importedFrom: (r.imported_from as string | null) ?? null,
  };
}

function parseRecalled(raw: unknown): { recalled: RecalledMemory[] | null; command: CommandInfo | null } {
  if (typeof raw !== "string" || !raw) return { recalled: null, command: null };
  try {
    const v = JSON.parse(raw) as unknown;
    if (Array.isArray(v)) return { recalled: v as RecalledMemory[], command: null };
    if (v && typeof v === "object" && "command" in v)
      return { recalled: null, command: (v as { command: CommandInfo }).command };
  } catch {
    /* a damaged value shows as nothing recalled */
  }
  return { recalled: null, command: null };
}

function parseSent(raw: unknown): SentMemory | null {
  if (typeof raw !== "string" || !raw) return null;
  try {
    return JSON.parse(raw) as SentMemory;
  } catch {
    return null;
  }
}

function rowToMessage(r: Row): StoredMessage {
  return {
    id: r.id as string,
    conversationId: r.conversation_id as string,
    role: r.role as StoredMessage["role"],
    content: r.content as string,
    createdAt: r.created_at as string,
    ...parseRecalled(r.recalled),
    sent: parseSent(r.sent),
  };
}

export const CONVERSATION_COLUMNS = `c.id, c.space_id, c.title, c.created_at, c.updated_at, c.pinned, c.recall_memory, c.store_memory, c.temporary, c.expires_at, c.imported_from,
  (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count,
  (SELECT substr(m.content, 1, 140) FROM messages m WHERE m.conversation_id = c.id ORDER BY m.created_at DESC, m.rowid DESC LIMIT 1) AS preview`;

export function cleanTitle(title: string): string {
  const t = title.replace(/\s+/g, " ").trim();
  if (!t) throw new ServiceError(400, "title must not be empty");
  if (t.length > MAX_TITLE) throw new ServiceError(400, `title must be at most ${MAX_TITLE} characters`);
  return t;
}

/**
 * A title from the first message: its first line, cut at a word boundary near 60 characters. A chat
 * opened with a command is named by what it did, not by the command's syntax ("/remember …").
 */
export function titleFrom(message: string): string {
  const c = parseCommand(message);
  if (c?.type === "remember") return titleFrom(c.text);
  if (c?.type === "forget") return titleFrom(`Forget “${c.pattern}”`);
  if (c?.type === "help") return "Commands and shortcuts";
  const line = message.replace(/\s+/g, " ").trim();
  if (line.length <= 60) return line || DEFAULT_TITLE;
  const cut = line.slice(0, 60);
  const at = cut.lastIndexOf(" ");
  return `${(at > 30 ? cut.slice(0, at) : cut).trimEnd()}…`;
}

/** `temporary`: a temporary chat, which recalls memory only when `readMemory` (server/chat/temporary-chats.ts). */
export function createConversation(
  db: Database.Database,
  input: { space?: string; title?: string; temporary?: boolean; readMemory?: boolean } = {},
): Conversation {
  const space = mySpaceOf(input.space ?? DEFAULT_SPACE);
  if (space === null) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  const title = input.title === undefined ? DEFAULT_TITLE : cleanTitle(input.title);
  const id = crypto.randomUUID();
  db.transaction(() => {
    ensureSpace(db, space);
    if (input.temporary) {
      const t = temporaryColumns(input.readMemory ?? true, privacyNow());
      db.prepare(
        "INSERT INTO conversations (id, space_id, title, temporary, recall_memory, store_memory, expires_at, last_seen_at) VALUES (?, ?, ?, 1, ?, 0, ?, ?)",
      ).run(id, space, title, t.recall ? 1 : 0, t.expiresAt, t.lastSeenAt);
    } else db.prepare("INSERT INTO conversations (id, space_id, title) VALUES (?, ?, ?)").run(id, space, title);
  })();
  return getConversation(db, id)!;
}

export function getConversation(db: Database.Database, id: string): Conversation | undefined {
  sweepTemporaryChats(db); // an expired temporary chat is gone, whoever asks
  // Another person's conversation reads as missing (mine(): server/core/acting.ts).
  const r = db
    .prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = ? AND mine(c.space_id)`)
    .get(id) as Row | undefined;
  return r ? rowToConversation(r) : undefined;
}

export function getConversationOr404(db: Database.Database, id: string): Conversation {
  const c = getConversation(db, id);
  if (!c) throw new ServiceError(404, `conversation ${id} not found`);
  return c;
}

/** Conversations, pinned first, then most recently active first; optionally of one space. Temporary chats are not listed. */
export function listConversations(
  db: Database.Database,
  opts: { space?: string; limit?: number } = {},
): Conversation[] {
  const limit = Math.min(Math.max(opts.limit ?? 200, 1), 1000);
  if (opts.space !== undefined && !spaceExists(db, opts.space))
    throw new ServiceError(404, `space '${opts.space}' does not exist`);
  const rows = (
    opts.space === undefined
      ? db
          .prepare(
            `SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.temporary = 0 AND mine(c.space_id) ORDER BY c.pinned DESC, c.updated_at DESC, c.rowid DESC LIMIT ?`,
          )
          .all(limit)
      : db
          .prepare(
            `SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.space_id = ? AND c.temporary = 0 ORDER BY c.pinned DESC, c.updated_at DESC, c.rowid DESC LIMIT ?`,
          )
          .all(opts.space, limit)
  ) as Row[];
  return rows.map(rowToConversation);
}

export function listMessages(db: Database.Database, conversationId: string): StoredMessage[] {
  const rows = db
    .prepare("SELECT * FROM messages WHERE conversation_id = ? ORDER BY created_at, rowid")
    .all(conversationId) as Row[];
  return rows.map(rowToMessage);
}

export function getMessage(db: Database.Database, id: string): StoredMessage | undefined {
  const r = db
    .prepare(
      "SELECT * FROM messages WHERE id = ? AND conversation_id IN (SELECT id FROM conversations WHERE mine(space_id))",
    )
    .get(id) as Row | undefined;
  return r ? rowToMessage(r) : undefined;
}

export function getConversationWithMessages(
  db: Database.Database,
  id: string,
): { conversation: Conversation; messages: StoredMessage[] } {
  const conversation = getConversationOr404(db, id);
  return { conversation, messages: listMessages(db, id) };
}

export function renameConversation(db: Database.Database, id: string, title: string): Conversation {
  const t = cleanTitle(title);
  const changed = db.prepare("UPDATE conversations SET title = ? WHERE id = ? AND mine(space_id)").run(t, id).changes;
  if (!changed) throw new ServiceError(404, `conversation ${id} not found`);
  return getConversation(db, id)!;
}

/** Delete a conversation and its messages. The memories made from it stay (manage them in Memory → Manager). */
export function deleteConversation(db: Database.Database, id: string): { id: string; messages: number } {
  return db.transaction(() => {
    const n = (db.prepare("SELECT count(*) AS n FROM messages WHERE conversation_id = ?").get(id) as { n: number }).n;
    const changed = db.prepare("DELETE FROM conversations WHERE id = ? AND mine(space_id)").run(id).changes;
    if (!changed) throw new ServiceError(404, `conversation ${id} not found`);
    db.prepare("DELETE FROM messages WHERE conversation_id = ?").run(id); // in case foreign keys are off
    return { id, messages: n };
  })();
}

/**
 * Append messages to a conversation in one transaction; the conversation's updated_at moves, and a
 * conversation still called "New conversation" is named after its first user message.
 */
export function appendMessages(db: Database.Database, conversationId: string, msgs: NewMessage[]): StoredMessage[] {
  if (msgs.length === 0) return [];
  const insert = db.prepare(
    "INSERT INTO messages (id, conversation_id, role, content, recalled, sent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const ids: string[] = [];
  db.transaction(() => {
    const conv = db.prepare("SELECT title FROM conversations WHERE id = ?").get(conversationId) as
      | { title: string }
      | undefined;
    if (!conv) throw new ServiceError(404, `conversation ${conversationId} not found`);
    // Strictly increasing times: order by created_at must match the order of the exchange.
    const last = db
      .prepare("SELECT max(created_at) AS t FROM messages WHERE conversation_id = ?")
      .get(conversationId) as { t: string | null };
    let t = Math.max(Date.now(), last.t ? Date.parse(last.t) + 1 : 0);
    for (const m of msgs) {
      const created = m.createdAt ?? new Date(t++).toISOString();
      const id = crypto.randomUUID();
      const recalled = m.command
        ? JSON.stringify({ command: m.command })
        : m.recalled
          ? JSON.stringify(m.recalled)
          : null;
      insert.run(id, conversationId, m.role, m.content, recalled, m.sent ? JSON.stringify(m.sent) : null, created);
      ids.push(id);
    }
    const firstUser = msgs.find((m) => m.role === "user");
    if (conv.title === DEFAULT_TITLE && firstUser) {
      db.prepare("UPDATE conversations SET title = ? WHERE id = ?").run(titleFrom(firstUser.content), conversationId);
    }
    db.prepare("UPDATE conversations SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?").run(
      conversationId,
    );
  })();
  return ids.map((id) => getMessage(db, id)!);
}

/** Replace what a command reply recorded (e.g. a /forget that was undone), and its text when it now says something else. */
export function updateCommand(
  db: Database.Database,
  messageId: string,
  command: CommandInfo,
  content?: string,
): StoredMessage {
  const changed = db
    .prepare("UPDATE messages SET recalled = ?, content = coalesce(?, content) WHERE id = ? AND role = 'assistant'")
    .run(JSON.stringify({ command }), content ?? null, messageId).changes;
  if (!changed) throw new ServiceError(404, `message ${messageId} not found`);
  return getMessage(db, messageId)!;
}

/** Is this message part of a memory command exchange (not dialogue for the model)? */
function isCommandMessage(m: StoredMessage): boolean {
  return m.command !== null || (m.role === "user" && parseCommand(m.content) !== null);
}

/** The last `n` user messages of the conversation before `beforeId` (oldest first), commands excluded. */
export function previousUserMessages(
  db: Database.Database,
  conversationId: string,
  n: number,
  beforeId?: string,
): string[] {
  const all = listMessages(db, conversationId);
  const end = beforeId ? all.findIndex((m) => m.id === beforeId) : all.length;
  return all
    .slice(0, end < 0 ? all.length : end)
    .filter((m) => m.role === "user" && !isCommandMessage(m))
    .slice(-n)
    .map((m) => m.content);
}

/**
 * The dialogue so far as prompt messages (commands and their replies left out), newest kept first
 * within a token budget, before the message `beforeId`.
 */
export function promptHistory(
  db: Database.Database,
  conversationId: string,
  tokenBudget: number,
  beforeId?: string,
): ChatMessage[] {
  const all = listMessages(db, conversationId);
  const end = beforeId ? all.findIndex((m) => m.id === beforeId) : all.length;
  const dialogue = all
    .slice(0, end < 0 ? all.length : end)
    .filter((m) => (m.role === "user" || m.role === "assistant") && !isCommandMessage(m))
    .filter((m) => m.role === "user" || stripCutNote(m.content).trim()); // a reply stopped before it began said nothing
  const out: ChatMessage[] = [];
  let used = 0;
  for (let i = dialogue.length - 1; i >= 0; i--) {
    const m = dialogue[i]!;
    const t = estimateTokens(m.content) + 4;
    if (used + t > tokenBudget) break;
    used += t;
    out.unshift({ role: m.role as "user" | "assistant", content: m.content });
  }
  return out;
}
