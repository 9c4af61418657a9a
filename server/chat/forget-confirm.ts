/**
 * A /forget typed in the chat that asked first (more than 3 matches, or a pinned one; turn.ts): confirm
 * it — forget exactly the memories it listed that are still live — or decline it. The memories and the
 * reply's record change in one transaction.
 */
import { writeTransaction } from "../memory/store";
import { getMessage, updateCommand, type StoredMessage } from "./conversations";
import { forgetIds } from "../memory/lifecycle/forget";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";

/** A /forget's reply: what happened, then what was forgotten, one line each. */
export function forgetReply(r: { message: string; count: number; items: { content: string }[] }): string {
  return r.count
    ? `${r.message}\n\n${r.items.map((i) => `- ${i.content.replace(/\s+/g, " ").slice(0, 200)}`).join("\n")}`
    : r.message;
}

export function confirmForget(
  memo: MemoContext,
  messageId: string,
  confirm: boolean,
): { message: StoredMessage; forgotten: number } {
  return writeTransaction(memo.db, () => {
    const m = getMessage(memo.db, messageId);
    if (m?.command?.type !== "forget") throw new ServiceError(404, "no /forget reply with this id");
    const cmd = m.command;
    if (!cmd.pending) throw new ServiceError(409, "this /forget is not waiting for confirmation");
    // The reply's text changes with it: it no longer says that nothing is forgotten until you confirm.
    if (!confirm) {
      const n = cmd.pending.ids.length;
      const kept = `Kept ${n === 1 ? "the memory" : `all ${n} memories`} matching “${cmd.pattern.trim()}”.`;
      return {
        message: updateCommand(memo.db, m.id, { ...cmd, pending: null, cancelledAt: new Date().toISOString() }, kept),
        forgotten: 0,
      };
    }
    const r = forgetIds(memo, cmd.pending.ids, cmd.pattern.trim());
    return {
      message: updateCommand(
        memo.db,
        m.id,
        {
          ...cmd,
          pending: null,
          count: r.count,
          items: r.items,
          undo: r.undo,
          ...(r.facts?.length ? { facts: r.facts } : {}),
        },
        forgetReply(r),
      ),
      forgotten: r.count,
    };
  });
}
