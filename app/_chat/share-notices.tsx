"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";
import { SHARE_MODE_LABEL } from "./shared-spaces";

/**
 * On the chat page: each space someone shared with this person that they have not seen yet
 * (server/services/share-notices.ts), said once, until they dismiss it or add the space to a chat with
 * "Shared" in the chat's options.
 */
export function ShareNotices() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const notices = useQuery({ ...trpc.spaces.shareNotices.queryOptions(), refetchInterval: 60_000 });
  const dismiss = useMutation(
    trpc.spaces.dismissShareNotice.mutationOptions({
      onSettled: () => void qc.invalidateQueries({ queryKey: trpc.spaces.shareNotices.queryKey() }),
    }),
  );
  return (notices.data ?? []).map((n) => (
    <div
      key={n.space}
      role="status"
      data-testid="share-notice"
      className="mx-3 mt-2 flex items-start gap-2 rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
    >
      <p className="min-w-0 flex-1">
        {n.ownerName} shared the space “{n.name}” with you ({SHARE_MODE_LABEL[n.mode]}). To recall from it in a chat,
        tick it under <strong>Shared</strong> in the chat’s options.
      </p>
      <button
        type="button"
        onClick={() => dismiss.mutate({ space: n.space })}
        disabled={dismiss.isPending}
        aria-label={`Dismiss: ${n.ownerName} shared ${n.name} with you`}
        className="shrink-0 rounded px-2 py-0.5 text-sm underline hover:bg-sky-100 dark:hover:bg-sky-900"
      >
        Dismiss
      </button>
    </div>
  ));
}
