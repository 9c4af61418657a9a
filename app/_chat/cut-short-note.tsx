"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { keptOnlyOnRequest, type CutReason } from "@/server/chat/cut-short";
import { useTRPC } from "../_trpc/client";
import { ACTION_BTN } from "./copy-button";

/**
 * Under a reply cut short: why it ended (server/chat/cut-short.ts). One the person stopped, or whose
 * page went away mid-reply, is not in memory: "Remember this anyway" keeps it (chat.keepExchange).
 */
export function CutShortNote({
  messageId,
  reason,
  note,
  hasText,
  canStore,
}: {
  messageId: string | null;
  reason: CutReason;
  note: string;
  hasText: boolean;
  canStore: boolean;
}) {
  const label =
    reason === "stopped"
      ? hasText
        ? "You stopped this reply."
        : "You stopped this reply before it began."
      : reason === "reload"
        ? "Interrupted by reload: the page was reloaded or closed before the reply finished."
        : `Interrupted: ${note.replace(/^the /, "")}`;
  return (
    <p
      className="mt-2 flex flex-wrap items-center gap-x-2 text-xs text-amber-700 dark:text-amber-400"
      data-testid="reply-interrupted"
      data-reason={reason}
    >
      <span>{label}</span>
      {messageId && hasText && canStore && keptOnlyOnRequest(reason) && <KeepButton messageId={messageId} />}
    </p>
  );
}

function KeepButton({ messageId }: { messageId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const remembered = useQuery(trpc.conversations.remembered.queryOptions({ messageId }));
  const keep = useMutation(
    trpc.chat.keepExchange.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.conversations.remembered.queryKey({ messageId }) }),
    }),
  );
  if (!remembered.data || remembered.data.length > 0) return null; // the memory line says "Remembered"
  return (
    <>
      <span className="text-zinc-500">It is not in memory.</span>
      <button
        type="button"
        className={ACTION_BTN}
        onClick={() => keep.mutate({ messageId })}
        disabled={keep.isPending}
        data-testid="keep-exchange"
      >
        {keep.isPending ? "Remembering…" : "Remember this anyway"}
      </button>
      {keep.error && (
        <span role="alert" className="text-red-700 dark:text-red-300">
          {keep.error.message}
        </span>
      )}
    </>
  );
}
