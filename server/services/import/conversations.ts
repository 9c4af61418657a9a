/**
 * What every conversation export shares once its own shape is read (chatgpt.ts, claude.ts): a list of
 * conversations, each read on its own, so that a malformed one is reported by number and left out while
 * the good ones are imported; the messages of one conversation turned into exchanges (a person's message
 * with the replies that follow it); and the plan that stores each exchange like a chat exchange.
 */
import { chatParts, chunkSaid, saidText } from "../../memory/store/chunker";
import { ServiceError } from "../../core/errors";
import { spaceName } from "../../core/validators";
import type { ImportGroup, ImportPlan } from "../transfer-service";
import type { ImportedConversation } from "../../chat/imported-conversations";
import { importedFrom } from "./formats";

export interface Exchange {
  conversationId: string;
  title: string;
  /** ISO time of the person's message (or the earliest time known for the exchange). */
  timestamp: string;
  /** No time in the file for this exchange or its conversation: the import time was used. */
  undated: boolean;
  user: string;
  assistant: string;
}

export interface ConversationsParse {
  conversations: number;
  exchanges: Exchange[];
  /** Messages left out: system, tool, hidden, tool calls, non-text content. */
  skippedMessages: number;
  /** One line per conversation left out because it is malformed ("conversation 3 (id …): no 'mapping' object"). */
  problems: string[];
  /** The conversations read, in file order (each becomes a chat: server/chat/imported-conversations.ts). */
  read: ReadConversation[];
}

/** One message as the exporter read it: who, the text, and its time (ISO) when the file has one. */
export interface ReadMessage {
  role: "user" | "assistant";
  text: string;
  time: string | null;
}

/** A conversation as the exporter read it; `messages` null entries are messages left out. */
export interface ReadConversation {
  id: string;
  title: string;
  /** The conversation's own time, for exchanges without one. */
  time: string | null;
  messages: (ReadMessage | null)[];
}

/** Thrown by a format's conversation reader: this conversation is malformed (the message says how). */
export class MalformedConversation extends Error {}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Text as stored: NULs removed (a stored string never holds one), trimmed. */
export const cleanText = (s: string) => s.replace(/\u0000/g, "").trim();

export interface ConversationFormat {
  /** "ChatGPT", "Claude": in error messages. */
  name: string;
  /** Reads one conversation, or throws MalformedConversation. */
  read: (conv: unknown, index: number) => ReadConversation;
  /** Said when the file is not a list, or no conversation in it could be read: which file to send instead. */
  expected: string;
  /** A hint for a file of another format ("this looks like a ChatGPT export: …"), or null. */
  otherFormat: (data: unknown) => string | null;
}

/**
 * A format's hint for a file of another kind (its `otherFormat`): Memo's own export, or the other service's
 * conversations.json, told apart by the shape of its first conversation.
 */
export function otherFormatHint(
  data: unknown,
  name: string,
  other: { name: string; looksLike: (first: Record<string, unknown>) => boolean },
): string | null {
  if (isObj(data) && data.format === "memo-export")
    return `this is a Memo export, not a ${name} conversations.json: use the Memo import`;
  if (Array.isArray(data) && isObj(data[0]) && other.looksLike(data[0]))
    return `this looks like a ${other.name} export's conversations.json, not ${name}'s: use the ${other.name} import`;
  return null;
}

/**
 * A conversation format's two entry points: read its conversations.json (already JSON-parsed; a malformed
 * conversation is a problem line, not fatal), and validate and plan its import into `space` (one import group,
 * its chunks, per exchange).
 */
export function conversationImport(format: ConversationFormat, conversationPrefix: string) {
  const parse = (data: unknown, now = new Date()): ConversationsParse => readConversations(data, format, now);
  const plan = (data: unknown, space: string, now = new Date()): ImportPlan =>
    planConversations(parse(data, now), space, conversationPrefix);
  return { parse, plan };
}

/**
 * Read a conversation export's list. Not a list, or a list none of whose conversations can be read, is a
 * 400 naming the problem (nothing is written); otherwise each malformed conversation is one problem line
 * and the others are imported.
 */
export function readConversations(data: unknown, format: ConversationFormat, now = new Date()): ConversationsParse {
  const other = format.otherFormat(data);
  if (other) throw new ServiceError(400, other);
  if (!Array.isArray(data)) {
    throw new ServiceError(400, `conversations.json must be a JSON array of conversations (${format.expected})`);
  }
  const exchanges: Exchange[] = [];
  const problems: string[] = [];
  const readList: ReadConversation[] = [];
  let skippedMessages = 0;
  data.forEach((conv, i) => {
    let read: ReadConversation;
    try {
      read = format.read(conv, i);
    } catch (e) {
      if (!(e instanceof MalformedConversation)) throw e;
      problems.push(problemLine(conv, i, e));
      return;
    }
    readList.push(read);
    const r = exchangesOf(read, now);
    exchanges.push(...r.exchanges);
    skippedMessages += r.skipped;
  });
  if (data.length > 0 && problems.length === data.length) throw noneReadable(format, problems[0]!, problems.length);
  return { conversations: data.length - problems.length, exchanges, skippedMessages, problems, read: readList };
}

/** The problem line of a malformed conversation: its number, its id when it has one, and what is wrong. */
export function problemLine(conv: unknown, i: number, e: MalformedConversation): string {
  const id =
    isObj(conv) && typeof conv.uuid === "string"
      ? conv.uuid
      : isObj(conv) && typeof conv.id === "string"
        ? conv.id
        : null;
  return `conversation ${i + 1}${id ? ` (${id.slice(0, 80)})` : ""}: ${e.message}`;
}

/** The 400 for a file none of whose conversations could be read (`malformed` of them, the first `first`). */
export function noneReadable(format: ConversationFormat, first: string, malformed: number): ServiceError {
  return new ServiceError(
    400,
    `no conversation in the file could be read (${first}${malformed > 1 ? `; and ${malformed - 1} more` : ""}): this is not a ${format.name} conversations.json (${format.expected})`,
  );
}

/** A person's message with the replies that follow it, up to their next message, is one exchange. */
export function exchangesOf(conv: ReadConversation, now: Date): { exchanges: Exchange[]; skipped: number } {
  const exchanges: Exchange[] = [];
  let skipped = 0;
  let current: { user: string; assistant: string[]; time: string | null } | null = null;
  const flush = () => {
    if (!current) return;
    const time = current.time ?? conv.time;
    exchanges.push({
      conversationId: conv.id,
      title: conv.title,
      timestamp: time ?? now.toISOString(),
      undated: time === null,
      user: current.user,
      assistant: current.assistant.join("\n\n"),
    });
    current = null;
  };
  for (const msg of conv.messages) {
    if (!msg) {
      skipped++;
      continue;
    }
    if (msg.role === "user") {
      flush();
      current = { user: msg.text, assistant: [], time: msg.time };
    } else if (current) {
      current.assistant.push(msg.text);
      current.time ??= msg.time;
    } else {
      skipped++; // a reply before anything the person said (a custom GPT's greeting)
    }
  }
  flush();
  return { exchanges, skipped };
}

/** The stored text of one exchange, as chat persists one (chunker.saidText); a prompt without reply is the prompt alone. */
export function exchangeStoredText(e: Pick<Exchange, "user" | "assistant">): string {
  return saidText(chatParts(e.user, e.assistant));
}

/** Most problem lines kept on a plan (and so on a job); the rest are counted. */
export const MAX_PROBLEMS = 20;

/**
 * Plan a conversation import into `space`: one import group (its chunks, 300/50 words like a chat
 * exchange) per exchange, `kind` "import", stamped with the exchange's original time, in conversation
 * `<prefix><id>`.
 */
export function planConversations(parse: ConversationsParse, space: string, conversationPrefix: string): ImportPlan {
  const sp = spaceName.safeParse(space);
  if (!sp.success) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  const groups: ImportGroup[] = parse.exchanges.map((e) => exchangeGroup(e, space, conversationPrefix));
  const bad = parse.problems.length;
  const detail = conversationsDetail({
    conversations: parse.conversations,
    exchanges: parse.exchanges.length,
    skippedMessages: parse.skippedMessages,
    undated: parse.exchanges.filter((e) => e.undated).length,
    malformed: bad,
  });
  const problems = parse.problems.slice(0, MAX_PROBLEMS);
  if (bad > MAX_PROBLEMS) problems.push(`and ${bad - MAX_PROBLEMS} more malformed conversations`);
  return { groups, detail, problems, conversations: asConversations(parse, space, conversationPrefix) };
}

/** The conversations read, as chats to write once their memories are (a conversation with no message is left out). */
function asConversations(
  parse: ConversationsParse,
  space: string,
  conversationPrefix: string,
): { space: string; conversation: ImportedConversation }[] {
  return parse.read.flatMap((c) => {
    const conversation = asImportedConversation(c, conversationPrefix);
    return conversation ? [{ space, conversation }] : [];
  });
}

/**
 * A conversation as read, as the chat it becomes (server/chat/imported-conversations.ts); null when it has
 * no message left, or the prefix is no conversation format's.
 */
export function asImportedConversation(c: ReadConversation, conversationPrefix: string): ImportedConversation | null {
  const from = importedFrom(conversationPrefix);
  if (!from) return null;
  const messages = c.messages.flatMap((m) => (m ? [{ role: m.role, content: m.text, time: m.time }] : []));
  if (!messages.length) return null;
  return { from, source: `${conversationPrefix}${c.id}`, title: c.title, time: c.time, messages };
}

/**
 * One exchange as an import group: its chunks (300/50 words like a chat exchange), `kind` "import", stamped
 * with the exchange's original time, in conversation `<prefix><id>`.
 */
export function exchangeGroup(e: Exchange, space: string, conversationPrefix: string): ImportGroup {
  // Who said what comes from the export's author roles, stored as spans with each chunk.
  const chunks = chunkSaid(chatParts(e.user, e.assistant), 300, 50);
  return chunks.map(({ content, speakers }, i) => ({
    spaceId: space,
    content,
    speakers,
    timestamp: e.timestamp,
    // kind "import": imported history decays only if the user opts in (Settings → Background jobs).
    kind: "import" as const,
    conversationId: `${conversationPrefix}${e.conversationId}`,
    chunkIndex: chunks.length > 1 ? i : null,
  }));
}

/** What a conversation file held so far, counted (a job keeps these as it reads). */
export interface ConversationCounts {
  conversations: number;
  exchanges: number;
  skippedMessages: number;
  undated: number;
  malformed: number;
}

/** "4 conversations, 6 exchanges, 4 system/tool/non-text messages left out": what the file held, for people. */
export function conversationsDetail(c: ConversationCounts): string {
  return (
    `${c.conversations} conversation${c.conversations === 1 ? "" : "s"}, ${c.exchanges} exchange${c.exchanges === 1 ? "" : "s"}` +
    (c.skippedMessages ? `, ${c.skippedMessages} system/tool/non-text messages left out` : "") +
    (c.undated ? `, ${c.undated} without a time (stamped with the import time)` : "") +
    (c.malformed ? `, ${c.malformed} malformed conversation${c.malformed === 1 ? "" : "s"} left out` : "")
  );
}
