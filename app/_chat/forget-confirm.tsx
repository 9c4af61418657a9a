"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { CommandInfo, StoredMessage } from "@/server/chat/conversations";
import { useTRPC } from "../_trpc/client";
import { BTN, TAP, TAP_FREQUENT } from "../_ui/styles";

type Forget = Extract<CommandInfo, { type: "forget" }>;

/**
 * A /forget that asks first (more than 3 matches, or a pinned one): the matches, then Forget / Keep. After
 * confirming, the forgotten list with Undo (7 days), like a /forget that needed no confirmation.
 */
export function ForgetConfirm({
  messageId,
  command: initial,
  onStored,
}: {
  messageId: string;
  command: Forget;
  /** The reply as stored after the answer (its text says what happened now). */
  onStored?: (m: StoredMessage) => void;
}) {
  const trpc = useTRPC();
  const [command, setCommand] = useState<Forget>(initial);
  const update = (m: StoredMessage) => {
    if (m.command?.type === "forget") setCommand(m.command);
    onStored?.(m);
  };
  const confirm = useMutation(trpc.chat.confirmForget.mutationOptions({ onSuccess: (r) => update(r.message) }));
  const undo = useMutation(trpc.chat.undoForget.mutationOptions({ onSuccess: (r) => update(r.message) }));
  const items = command.items as (Forget["items"][number] & { pinned?: boolean })[];
  const error = confirm.error ?? undo.error;
  return (
    <div className="mt-2 space-y-2 text-sm" data-testid={command.pending ? "forget-confirm" : "forget-result"}>
      {command.pending || command.cancelledAt ? (
        <ul className="max-h-72 space-y-1 overflow-auto rounded border border-amber-300 p-2 dark:border-amber-800">
          {items.map((i) => (
            <li key={i.id} className="break-words" data-testid="forget-match">
              {i.pinned && <span className="mr-1 rounded bg-amber-100 px-1 text-xs text-amber-900">pinned</span>}
              {i.content.length > 300 ? `${i.content.slice(0, 300)}…` : i.content}
            </li>
          ))}
        </ul>
      ) : (
        <ul className="space-y-1 rounded border border-zinc-200 p-2 dark:border-zinc-800">
          {items.map((i) => (
            <li
              key={i.id}
              className="break-words text-zinc-600 line-through decoration-zinc-400 dark:text-zinc-400"
              data-testid="forgotten-item"
            >
              {i.content.length > 300 ? `${i.content.slice(0, 300)}…` : i.content}
            </li>
          ))}
        </ul>
      )}
      {(command.pending?.facts ?? command.facts ?? []).length > 0 && (
        <div className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="forget-facts">
          <p>
            {command.pending
              ? "Forgetting them also removes"
              : command.undoneAt
                ? "Brought back with them"
                : "Removed with them"}{" "}
            what Memo learned only from them:
          </p>
          <ul className="ml-4 list-disc">
            {(command.pending?.facts ?? command.facts ?? []).map((f) => (
              <li key={f.id} className="break-words" data-testid="forget-fact">
                {f.text}
              </li>
            ))}
          </ul>
        </div>
      )}
      {command.pending ? (
        <div className="flex gap-2">
          <button
            type="button"
            className={`${BTN} ${TAP}`}
            disabled={confirm.isPending}
            onClick={() => confirm.mutate({ messageId, confirm: true })}
            data-testid="forget-confirm-yes"
          >
            Forget {command.pending.ids.length} memor{command.pending.ids.length === 1 ? "y" : "ies"}
          </button>
          <button
            type="button"
            className={`${BTN} ${TAP}`}
            disabled={confirm.isPending}
            onClick={() => confirm.mutate({ messageId, confirm: false })}
            data-testid="forget-confirm-no"
          >
            Keep them
          </button>
        </div>
      ) : command.cancelledAt ? (
        <p className="text-xs text-zinc-500" data-testid="forget-cancelled">
          Kept: nothing was forgotten.
        </p>
      ) : command.undoneAt ? (
        <p className="text-xs text-emerald-700 dark:text-emerald-400" data-testid="forget-undone">
          Undone: {command.count} memor{command.count === 1 ? "y" : "ies"} restored.
        </p>
      ) : (
        <button
          type="button"
          className={`${BTN} ${TAP_FREQUENT}`}
          disabled={undo.isPending}
          onClick={() => undo.mutate({ messageId })}
        >
          Undo
        </button>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-700">
          {error.message}
        </p>
      )}
    </div>
  );
}
