"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { DeleteChatResult } from "@/server/chat/delete-chat";
import { useTRPC } from "../_trpc/client";

const BTN =
  "shrink-0 whitespace-nowrap rounded px-1.5 py-0.5 text-xs hover:bg-zinc-200 disabled:opacity-50 dark:hover:bg-zinc-800";

/**
 * Delete a conversation: "Also forget what Memo remembered from this chat (N memories)", on by default
 * (server/chat/delete-chat.ts). Forgotten memories can be brought back for 7 days, here or in the Manager.
 */
export function DeleteChatConfirm({
  id,
  busy,
  onDelete,
  onCancel,
}: {
  id: string;
  busy: boolean;
  onDelete: (forget: boolean) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const preview = useQuery(trpc.conversations.deletePreview.queryOptions({ id }));
  const [forget, setForget] = useState(true);
  const n = preview.data?.memories;
  const box = useRef<HTMLDivElement>(null);
  // Opened on a chat low in the list, the question would sit below the fold: bring it into view (again
  // once the count has arrived and the box has its full height).
  // biome-ignore lint/correctness/useExhaustiveDependencies: again when the count arrives (the box grows)
  useEffect(() => {
    box.current?.scrollIntoView({ block: "nearest" });
  }, [n]);
  return (
    <div
      ref={box}
      role="group"
      aria-label="Delete this conversation"
      className="mt-1 space-y-1 rounded border border-red-200 bg-red-50 p-2 text-xs dark:border-red-900 dark:bg-red-950"
      data-testid="delete-chat"
    >
      <p className="font-medium">Delete this conversation?</p>
      <label className="flex items-start gap-1.5">
        <input
          type="checkbox"
          className="mt-0.5"
          checked={forget}
          onChange={(e) => setForget(e.target.checked)}
          disabled={n === 0}
        />
        <span>
          Also forget what Memo remembered from this chat{" "}
          <span data-testid="delete-chat-count">
            ({n === undefined ? "counting…" : `${n} memor${n === 1 ? "y" : "ies"}`})
          </span>
        </span>
      </label>
      {forget && n !== 0 && <p className="text-zinc-500">You can undo forgetting for 7 days.</p>}
      <div className="flex justify-end gap-1">
        <button type="button" className={BTN} onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className={`${BTN} font-medium text-red-700 dark:text-red-300`}
          onClick={() => onDelete(forget && n !== 0)}
          disabled={busy || preview.isPending}
        >
          Yes, delete
        </button>
      </div>
    </div>
  );
}

// The last deletion's notice outlives the page it was made on (deleting the open chat goes to a new one).
let last: DeleteChatResult | null = null;
const listeners = new Set<() => void>();
const subscribe = (l: () => void) => (listeners.add(l), () => void listeners.delete(l));
export function announceDeleted(r: DeleteChatResult | null): void {
  last = r;
  for (const l of listeners) l();
}

/** After a delete: what happened to the chat's memories, and Undo for the ones forgotten. */
export function DeletedChatNotice() {
  const trpc = useTRPC();
  const r = useSyncExternalStore(
    subscribe,
    () => last,
    () => null,
  );
  const undo = useMutation(trpc.memory.restore.mutationOptions());
  if (!r) return null;
  const ids = r.forgotten?.undo.ids ?? [];
  return (
    <div role="status" className="rounded bg-zinc-100 px-2 py-1 text-xs dark:bg-zinc-900" data-testid="deleted-chat">
      {undo.data ? (
        <span>
          Brought back {undo.data.restored.length} memor{undo.data.restored.length === 1 ? "y" : "ies"} (the
          conversation itself stays deleted).
        </span>
      ) : (
        <span>{r.message}</span>
      )}{" "}
      {ids.length > 0 && !undo.data && (
        <button
          type="button"
          className="underline disabled:opacity-50"
          onClick={() => undo.mutate({ ids })}
          disabled={undo.isPending}
        >
          Undo forgetting
        </button>
      )}{" "}
      <button
        type="button"
        className="text-zinc-500 underline"
        onClick={() => (announceDeleted(null), undo.reset())}
        aria-label="Dismiss"
      >
        OK
      </button>
      {undo.error && (
        <span role="alert" className="block text-red-700 dark:text-red-300">
          {undo.error.message}
        </span>
      )}
    </div>
  );
}
