/**
 * Import of a Claude data export's `conversations.json` (docs/api.md#export-and-import).
 *
 * The file is a JSON array of conversations, each `{ uuid, name, created_at, updated_at, chat_messages }`;
 * a message is `{ uuid, sender: "human" | "assistant", text, content, created_at, attachments, files }`,
 * where `content` (newer exports) is a list of parts: `{ type: "text", text }`, or tool use and tool
 * results, thinking, and others. The conversation is a plain list (no branches). Only what a person or
 * Claude said as text is kept: the text parts of `content` when it has any, else `text`; attachments,
 * files, tool calls and thinking are left out. Times are ISO strings.
 */
import { dateRangeMessage, keptIso } from "../../core/dates";
import {
  cleanText,
  type ConversationFormat,
  isObj,
  MalformedConversation,
  type ReadConversation,
  type ReadMessage,
  conversationImport,
  otherFormatHint,
} from "./conversations";
import { IMPORT_FORMATS } from "./formats";

/**
 * An ISO (or other Date-readable) time string → ISO, or null when there is none. A readable time outside
 * the dates Memo keeps (server/core/dates.ts) makes its conversation a problem line, never a stored time.
 */
function isoTime(v: unknown, field: string): string | null {
  if (typeof v !== "string" || v.length > 64) return null;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return null;
  const kept = keptIso(v);
  if (kept === null) throw new MalformedConversation(dateRangeMessage(field));
  return kept;
}

/** The text of a message, or null when it is not text a person or Claude said. */
function messageText(m: unknown): ReadMessage | null {
  if (!isObj(m)) return null;
  const role = m.sender === "human" ? "user" : m.sender === "assistant" ? "assistant" : null;
  if (!role) return null;
  const parts = Array.isArray(m.content)
    ? m.content.filter((p) => isObj(p) && p.type === "text" && typeof p.text === "string").map((p) => p.text as string)
    : [];
  const raw = parts.some((p) => p.trim()) ? parts.join("\n") : typeof m.text === "string" ? m.text : "";
  const text = cleanText(raw);
  if (!text) return null;
  return { role, text, time: isoTime(m.created_at, "a message's created_at") };
}

function readConversation(conv: unknown, i: number): ReadConversation {
  if (!isObj(conv)) throw new MalformedConversation("not an object");
  if (!Array.isArray(conv.chat_messages))
    throw new MalformedConversation("no 'chat_messages' list (the messages of the conversation)");
  return {
    id: typeof conv.uuid === "string" && conv.uuid ? conv.uuid : `index-${i}`,
    title: typeof conv.name === "string" ? conv.name : "",
    time: isoTime(conv.created_at, "created_at") ?? isoTime(conv.updated_at, "updated_at"),
    messages: conv.chat_messages.map(messageText),
  };
}

export const claudeFormat: ConversationFormat = {
  name: "Claude",
  read: readConversation,
  expected: "the file named conversations.json inside a Claude data export",
  otherFormat: (data) =>
    otherFormatHint(data, "Claude", {
      name: "ChatGPT",
      looksLike: (first) => isObj(first.mapping) && !("chat_messages" in first),
    }),
};

const claudeImport = conversationImport(claudeFormat, IMPORT_FORMATS.claude.conversationPrefix);

/** Read a Claude conversations.json (already JSON-parsed); a malformed conversation is a problem line, not fatal. */
export const parseClaudeExport = claudeImport.parse;

/** Validate and plan a Claude import into `space`: one import group (its chunks) per exchange. */
export const planClaudeImport = claudeImport.plan;
