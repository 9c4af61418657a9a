/**
 * A /forget typed in the chat that asked first (more than 3 matches, or a pinned one; turn.ts): confirm
 * it — forget exactly the memories it listed that are still live — or decline it. The memories and the
 * reply's record change in one transaction.
 */
import { writeTransaction } from "../memory/store";
import { getMessage, updateCommand, type StoredMessage } from "./conversations";
import { forgetIds } from "../memory/forget";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";

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
    if (!confirm)
      return {
        message: updateCommand(memo.db, m.id, { ...cmd, pending: null, cancelledAt: new Date().toISOString() }),
        forgotten: 0,
      };
    const r = forgetIds(memo, cmd.pending.ids, cmd.pattern.trim());
    return {
      message: updateCommand(memo.db, m.id, { ...cmd, pending: null, count: r.count, items: r.items, undo: r.undo }),
      forgotten: r.count,
    };
  });
}
