/** A chat turn that is a memory command (/remember, /forget, /help; server/chat/turn.ts): answered here, never by the provider. */
import {
  appendMessages,
  getConversationOr404,
  type CommandInfo,
  type Conversation,
  type StoredMessage,
} from "./conversations";
import { FORGET_CONFIRM_OVER, forgetIds, forgetPreview } from "../memory/lifecycle/forget";
import { remember } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { COMMAND_HELP, type parseCommand, SHORTCUT_HELP } from "./commands";
import { markExchangeSettled } from "./exchange-queue";
import { forgetReply } from "./forget-confirm";

/** The events of a memory command's turn (a subset of TurnEvent, server/chat/turn.ts). */
export type CommandEvent =
  | { type: "start"; conversation: Conversation; userMessage: StoredMessage }
  | { type: "command"; message: StoredMessage; command: CommandInfo }
  | { type: "error"; kind: string; status: number; message: string; partial: StoredMessage | null };

/** A memory command this conversation does not allow (a temporary chat changes no memory; storing off refuses /remember). */
function refusedCommand(conv: Conversation, type: string): string | null {
  if (conv.temporary && (type === "remember" || type === "forget"))
    return "This is a temporary chat: it never changes memory, so /remember and /forget are off here.";
  if (!conv.memory.store && type === "remember")
    return "Storing memories is off for this conversation: turn it on in the conversation header to use /remember.";
  return null;
}

export async function* runCommand(
  memo: MemoContext,
  conv: Conversation,
  message: string,
  cmd: NonNullable<ReturnType<typeof parseCommand>>,
): AsyncGenerator<CommandEvent> {
  let reply: string;
  let info: CommandInfo;
  const refused = refusedCommand(conv, cmd.type);
  try {
    if (refused) {
      reply = refused;
      info = { type: "invalid", message: refused };
    } else
      switch (cmd.type) {
        case "remember": {
          const r = await remember(memo, cmd.text, conv.spaceId);
          reply = r.message;
          info = { type: "remember", text: cmd.text, ids: r.ids };
          break;
        }
        case "forget": {
          // More than FORGET_CONFIRM_OVER matches, or a pinned one: show them and ask first.
          const p = forgetPreview(memo, cmd.pattern, conv.spaceId);
          if (p.count > FORGET_CONFIRM_OVER || p.pinned > 0) {
            const shown = p.items
              .slice(0, 50)
              .map((i) => `- ${i.pinned ? "📌 " : ""}${i.content.replace(/\s+/g, " ").slice(0, 200)}`);
            // The facts learned only from them go too (issue 54): said before the person confirms.
            const facts = (p.facts ?? []).map((f) => `- ${f.text}`);
            reply =
              `${p.count} memor${p.count === 1 ? "y matches" : "ies match"} “${cmd.pattern.trim()}”${p.pinned ? `, ${p.pinned} of them pinned` : ""}. Nothing is forgotten until you confirm.\n\n` +
              shown.join("\n") +
              (p.count > shown.length ? `\n- … and ${p.count - shown.length} more` : "") +
              (facts.length
                ? `\n\nForgetting them also removes ${facts.length === 1 ? "this fact" : `these ${facts.length} facts`} Memo learned from them:\n${facts.join("\n")}`
                : "");
            const items = p.items.map((i) => ({
              id: i.id,
              content: i.content,
              timestamp: i.timestamp,
              pinned: i.pinned,
            }));
            info = {
              type: "forget",
              pattern: cmd.pattern,
              count: p.count,
              items,
              undo: { ids: [], until: new Date().toISOString() },
              undoneAt: null,
              pending: {
                ids: p.items.map((i) => i.id),
                pinned: p.pinned,
                ...(p.facts?.length ? { facts: p.facts } : {}),
              },
            };
            break;
          }
          const r = forgetIds(
            memo,
            p.items.map((i) => i.id),
            cmd.pattern.trim(),
          );
          reply = forgetReply(r);
          info = {
            type: "forget",
            pattern: cmd.pattern,
            count: r.count,
            items: r.items,
            undo: r.undo,
            undoneAt: null,
            ...(r.facts?.length ? { facts: r.facts } : {}),
          };
          break;
        }
        case "help":
          reply = `Memory commands:\n${COMMAND_HELP}\n\nKeyboard shortcuts:\n${SHORTCUT_HELP}`;
          info = { type: "help" };
          break;
        case "invalid":
          reply = cmd.message;
          info = { type: "invalid", message: cmd.message };
          break;
      }
  } catch (e) {
    const se = e instanceof ServiceError ? e : null;
    yield {
      type: "error",
      kind: "command",
      status: se?.status ?? 500,
      message: e instanceof Error ? e.message : String(e),
      partial: null,
    };
    return;
  }
  const [user, assistant] = appendMessages(memo.db, conv.id, [
    { role: "user", content: message },
    { role: "assistant", content: reply, command: info },
  ]);
  markExchangeSettled(memo.db, assistant!.id); // a command's answer is not an exchange to remember
  yield { type: "start", conversation: getConversationOr404(memo.db, conv.id), userMessage: user! };
  yield { type: "command", message: assistant!, command: info };
}
