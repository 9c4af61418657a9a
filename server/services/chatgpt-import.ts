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
import { chatParts, chunkSaid, saidText } from "../memory/store/chunker";
import { ServiceError } from "../core/errors";
import { spaceName } from "../core/validators";
import type { ImportGroup, ImportPlan } from "./transfer-service";

export interface ChatGptExchange {
  conversationId: string;
  title: string;
  /** ISO time of the user message (or the earliest time known for the exchange). */
  timestamp: string;
  /** No time in the file for this exchange or its conversation: the import time was used. */
  undated: boolean;
  user: string;
  assistant: string;
}

export interface ChatGptParse {
  conversations: number;
  exchanges: ChatGptExchange[];
  /** Messages left out: system, tool, hidden, tool calls, non-text content. */
  skippedMessages: number;
}

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

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Unix seconds (float) → ISO, or null. */
function epochToIso(v: unknown): string | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return null;
  const ms = v > 1e12 ? v : v * 1000; // seconds in the export; tolerate milliseconds
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The text of a message, or null when it is not something a person said or read. */
function messageText(m: RawMessage): { role: "user" | "assistant"; text: string; time: string | null } | null {
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
  const text = parts
    .join("\n")
    .replace(/\u0000/g, "")
    .trim();
  if (!text) return null;
  return { role, text, time: epochToIso(m.create_time) };
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

/**
 * Read conversations.json (already JSON-parsed). The top level must be the export's list of conversations,
 * each with a `mapping` object; anything else is a 400 that names the problem. Malformed nodes inside a
 * conversation are skipped, not fatal (exports vary across years).
 */
export function parseChatGptExport(data: unknown, now = new Date()): ChatGptParse {
  if (isObj(data) && data.format === "memo-export")
    throw new ServiceError(400, "this is a Memo export, not a ChatGPT conversations.json: use the Memo import");
  if (!Array.isArray(data)) {
    throw new ServiceError(
      400,
      "conversations.json must be a JSON array of conversations (the file named conversations.json inside a ChatGPT data export)",
    );
  }
  const exchanges: ChatGptExchange[] = [];
  let skippedMessages = 0;
  data.forEach((conv, i) => {
    if (!isObj(conv) || !isObj(conv.mapping)) {
      throw new ServiceError(
        400,
        `conversation ${i + 1} has no 'mapping' object: this is not a ChatGPT conversations.json`,
      );
    }
    const convId =
      typeof conv.conversation_id === "string"
        ? conv.conversation_id
        : typeof conv.id === "string"
          ? conv.id
          : `index-${i}`;
    const title = typeof conv.title === "string" ? conv.title : "";
    const convTime = epochToIso(conv.create_time) ?? epochToIso(conv.update_time);
    let current: { user: string; assistant: string[]; time: string | null } | null = null;
    const flush = () => {
      if (!current) return;
      const time = current.time ?? convTime;
      exchanges.push({
        conversationId: convId,
        title,
        timestamp: time ?? now.toISOString(),
        undated: time === null,
        user: current.user,
        assistant: current.assistant.join("\n\n"),
      });
      current = null;
    };
    for (const node of activePath(conv.mapping as Record<string, RawNode>, conv.current_node)) {
      if (!isObj(node.message)) continue;
      const msg = messageText(node.message as RawMessage);
      if (!msg) {
        skippedMessages++;
        continue;
      }
      if (msg.role === "user") {
        flush();
        current = { user: msg.text, assistant: [], time: msg.time };
      } else if (current) {
        current.assistant.push(msg.text);
        current.time ??= msg.time;
      } else {
        skippedMessages++; // an assistant message before any user message (a custom GPT's greeting)
      }
    }
    flush();
  });
  return { conversations: data.length, exchanges, skippedMessages };
}

/** The stored text of one exchange, as chat persists one (chunker.saidText); a prompt without reply is the prompt alone. */
export function chatGptExchangeText(e: Pick<ChatGptExchange, "user" | "assistant">): string {
  return saidText(chatParts(e.user, e.assistant));
}

/** Validate and plan a ChatGPT import into `space`: one import group (its chunks) per exchange. */
export function planChatGptImport(
  data: unknown,
  space: string,
  now = new Date(),
): ImportPlan & { parse: ChatGptParse } {
  const sp = spaceName.safeParse(space);
  if (!sp.success) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  const parse = parseChatGptExport(data, now);
  const groups: ImportGroup[] = parse.exchanges.map((e) => {
    // Who said what comes from the export's author roles, stored as spans with each chunk.
    const chunks = chunkSaid(chatParts(e.user, e.assistant), 300, 50);
    return chunks.map(({ content, speakers }, i) => ({
      spaceId: space,
      content,
      speakers,
      timestamp: e.timestamp,
      // kind "import": imported history decays only if the user opts in (Settings → Background jobs).
      kind: "import" as const,
      conversationId: `chatgpt:${e.conversationId}`,
      chunkIndex: chunks.length > 1 ? i : null,
    }));
  });
  const undated = parse.exchanges.filter((e) => e.undated).length;
  const detail =
    `${parse.conversations} conversation${parse.conversations === 1 ? "" : "s"}, ${parse.exchanges.length} exchange${parse.exchanges.length === 1 ? "" : "s"}` +
    (parse.skippedMessages ? `, ${parse.skippedMessages} system/tool/non-text messages left out` : "") +
    (undated ? `, ${undated} without a time (stamped with the import time)` : "");
  return { groups, detail, parse };
}
