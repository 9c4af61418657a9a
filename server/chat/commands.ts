/**
 * Memory commands typed in the chat box (docs/architecture.md#a-chat-turn):
 *   /remember <text>    store a pinned memory (importance 5, never decays)
 *   /forget <pattern>   soft-delete the memories containing the pattern (case-insensitive), undo for 7 days
 *   /help               list the commands
 * Anything else, including other text that starts with "/", is an ordinary message for the model.
 * Isomorphic: the chat page uses it to label what it is about to send.
 */

export type ChatCommand =
  | { type: "remember"; text: string }
  | { type: "forget"; pattern: string }
  | { type: "help" }
  | { type: "invalid"; command: "remember" | "forget"; message: string };

export const COMMAND_HELP = [
  "`/remember <text>` — store a pinned memory (importance 5, never decays).",
  "`/forget <pattern>` — forget the memories whose text contains the pattern (case-insensitive); undo for 7 days.",
  "`/help` — this list.",
].join("\n");

/** The chat page's keyboard shortcuts (app/_chat/use-shortcuts.ts), listed by /help. */
export const SHORTCUT_HELP = [
  "- `Enter` — send; `Shift+Enter` — new line.",
  "- `Esc` — stop the reply being written.",
  "- `Ctrl+Shift+O` (`⌘+Shift+O` on a Mac) — new chat.",
  "- `/` — put the cursor in the message box.",
  "- `↑` in an empty message box — edit your last message.",
].join("\n");

const MAX_PATTERN = 1000;

/** Remove one pair of matching quotes around the whole argument: /forget "green tea" → green tea. */
function unquote(s: string): string {
  const m = /^(["'“‘«])([\s\S]*)(["'”’»])$/.exec(s);
  if (!m) return s;
  const pairs: Record<string, string> = { '"': '"', "'": "'", "“": "”", "‘": "’", "«": "»" };
  return pairs[m[1]!] === m[3] ? m[2]!.trim() : s;
}

/** Parse a chat message; null when it is not a command. */
export function parseCommand(message: string): ChatCommand | null {
  const m = /^\s*\/(remember|forget|help)(?=\s|$)([\s\S]*)$/i.exec(message);
  if (!m) return null;
  const name = m[1]!.toLowerCase() as "remember" | "forget" | "help";
  const arg = m[2]!.trim();
  if (name === "help") return { type: "help" };
  if (name === "remember") {
    const text = unquote(arg);
    if (!text) return { type: "invalid", command: "remember", message: "Usage: /remember <text to remember>" };
    return { type: "remember", text };
  }
  const pattern = unquote(arg);
  if (pattern.length < 2)
    return { type: "invalid", command: "forget", message: "Usage: /forget <pattern> (at least 2 characters)" };
  if (pattern.length > MAX_PATTERN)
    return { type: "invalid", command: "forget", message: `The pattern is longer than ${MAX_PATTERN} characters.` };
  return { type: "forget", pattern };
}
