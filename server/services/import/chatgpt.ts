/**
 * Import of a ChatGPT data export's `conversations.json` (docs/architecture.md#apis-for-other-programs).
 *
 * The file is a JSON array of conversations. Each has `mapping`: a tree of nodes keyed by id, each node
 * `{ id, message | null, parent, children }`, where a message has `author.role` (user, assistant, system,
 * tool), `create_time` (Unix seconds, may be null), `content` (`content_type` "text" or
 * "multimodal_text" with `parts`, or other types such as code, thoughts, tether_browsing_display,
 * user_editable_context), `recipient` ("all", or a tool name for tool calls) and `metadata`.
 * Regenerated answers and edited prompts leave branches: the conversation the person saw is the path
 * from `current_node` up to the root.
 *
 * Each user message with the assistant replies that follow it (up to the next user message) becomes one
 * exchange; its text ("User: …\nAssistant: …", as chat stores one) is chunked like a chat exchange (300 words, 50 overlap)
 * into `chat` memories stamped with the user message's ORIGINAL time, in the chosen space.
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

interface RawNode {
  id?: unknown;
  message?: RawMessage | null;
  parent?: unknown;
  children?: unknown;
}
interface RawMessage {
  author?: { role?: unknown } | null;
  create_time?: unknown;
  content?: { content_type?: unknown; parts?: unknown; text?: unknown } | null;
  recipient?: unknown;
  metadata?: Record<string, unknown> | null;
}

const TEXT_TYPES = new Set(["text", "multimodal_text"]);

/** Unix seconds (float) → ISO, or null. */
function epochToIso(v: unknown, field: string): string | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return null;
  const ms = v > 1e12 ? v : v * 1000; // seconds in the export; tolerate milliseconds
  // A time outside the dates Memo keeps (server/core/dates.ts) makes its conversation a problem line.
  const kept = keptIso(ms);
  if (kept === null) throw new MalformedConversation(dateRangeMessage(field));
  return kept;
}

/** The text of a message, or null when it is not something a person said or read. */
function messageText(m: RawMessage): ReadMessage | null {
  const role = m.author?.role;
  if (role !== "user" && role !== "assistant") return null;
  if (
    m.metadata &&
    (m.metadata.is_visually_hidden_from_conversation === true || m.metadata.is_user_system_message === true)
  )
    return null;
  if (typeof m.recipient === "string" && m.recipient !== "all") return null; // a call to a tool (browser, python, dalle…)
  const c = m.content;
  if (!c || typeof c.content_type !== "string" || !TEXT_TYPES.has(c.content_type) || !Array.isArray(c.parts))
    return null;
  const parts = c.parts
    .map((p) => (typeof p === "string" ? p : isObj(p) && typeof p.text === "string" ? p.text : "")) // images and files: left out
    .filter((p) => p.trim().length > 0);
  const text = cleanText(parts.join("\n"));
  if (!text) return null;
  return { role, text, time: epochToIso(m.create_time, "a message's create_time") };
}

/** The nodes of the conversation as shown: current_node up to the root; without it, the newest branch from the root. */
function activePath(mapping: Record<string, RawNode>, currentNode: unknown): RawNode[] {
  const path: RawNode[] = [];
  const seen = new Set<string>();
  if (typeof currentNode === "string" && isObj(mapping[currentNode])) {
    let id: unknown = currentNode;
    while (typeof id === "string" && isObj(mapping[id]) && !seen.has(id)) {
      seen.add(id);
      path.push(mapping[id]!);
      id = mapping[id]!.parent;
    }
    return path.reverse();
  }
  const ids = Object.keys(mapping);
  let id: string | undefined = ids.find((k) => {
    const p = mapping[k]?.parent;
    return !(typeof p === "string" && isObj(mapping[p]));
  });
  while (id !== undefined && isObj(mapping[id]) && !seen.has(id)) {
    seen.add(id);
    path.push(mapping[id]!);
    const children = mapping[id]!.children;
    const next: unknown = Array.isArray(children) ? children[children.length - 1] : undefined;
    id = typeof next === "string" ? next : undefined;
  }
  return path;
}

/** One conversation: its id, title and time, and the messages of the branch that was shown. */
function readConversation(conv: unknown, i: number): ReadConversation {
  if (!isObj(conv)) throw new MalformedConversation("not an object");
  if (!isObj(conv.mapping)) throw new MalformedConversation("no 'mapping' object (the tree of its messages)");
  const id =
    typeof conv.conversation_id === "string"
      ? conv.conversation_id
      : typeof conv.id === "string"
        ? conv.id
        : `index-${i}`;
  return {
    id,
    title: typeof conv.title === "string" ? conv.title : "",
    time: epochToIso(conv.create_time, "create_time") ?? epochToIso(conv.update_time, "update_time"),
    // Malformed nodes inside a conversation are left out, not fatal (exports vary across years).
    messages: activePath(conv.mapping as Record<string, RawNode>, conv.current_node)
      .filter((node) => isObj(node.message))
      .map((node) => messageText(node.message as RawMessage)),
  };
}

export const chatGptFormat: ConversationFormat = {
  name: "ChatGPT",
  read: readConversation,
  expected: "the file named conversations.json inside a ChatGPT data export",
  otherFormat: (data) =>
    otherFormatHint(data, "ChatGPT", {
      name: "Claude",
      looksLike: (first) => Array.isArray(first.chat_messages) && !("mapping" in first),
    }),
};

const chatGptImport = conversationImport(chatGptFormat, IMPORT_FORMATS.chatgpt.conversationPrefix);

/**
 * Read conversations.json (already JSON-parsed). The top level must be the export's list of conversations;
 * anything else is a 400 that names the problem. A conversation without a `mapping` object is one problem
 * line and left out; the others are imported.
 */
export const parseChatGptExport = chatGptImport.parse;

/** Validate and plan a ChatGPT import into `space`: one import group (its chunks) per exchange. */
export const planChatGptImport = chatGptImport.plan;
