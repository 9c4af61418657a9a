"use client";

import { useIsMutating, useQuery } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

/**
 * Under a reply, like "Sent to": whether Memo learned facts from this exchange, and what that extraction
 * sent where — the exchange itself and the known facts listed with it (the exact text). Learning runs
 * after the reply, off its path, so a fresh reply polls until its job has ended (or, none queued, 30 s).
 */
export function LearnedLine({ messageId, createdAt }: { messageId: string; createdAt?: string }) {
  const trpc = useTRPC();
  // Age read at each poll (a reply whose answer never changes is not re-rendered).
  const age = () => (createdAt ? Date.now() - Date.parse(createdAt) : Infinity);
  // While a chat is being deleted its replies may vanish under a poll (a 404): the polls wait for it,
  // and a reply that is gone is not asked for again.
  const deleting = useIsMutating({ mutationKey: trpc.conversations.delete.mutationKey() }) > 0;
  const q = useQuery({
    ...trpc.learning.reply.queryOptions({ messageId }),
    enabled: !deleting,
    retry: (failures, e) => failures < 3 && (e as { data?: { httpStatus?: number } }).data?.httpStatus !== 404,
    refetchInterval: (s) => {
      const st = s.state.data?.status;
      // No job yet: one is queued as the exchange is stored (within seconds), or none comes (learning off,
      // a temporary chat): 30 s. A job: until it ends, for 5 min.
      if (st === undefined) return age() < 30_000 ? 1500 : false;
      return age() < 300_000 && (st === "queued" || st === "running") ? 1500 : false;
    },
  });
  const r = q.data;
  if (!r) return null;
  const what =
    r.status === "done"
      ? `learned ${r.factsAdded} fact${r.factsAdded === 1 ? "" : "s"}`
      : r.status === "queued" || r.status === "running"
        ? r.lastError
          ? `will try again (${r.lastError})`
          : "learning…"
        : r.status === "failed"
          ? `could not learn from it (${r.lastError ?? "unknown"}); the exchange is kept`
          : `not learned from (${r.lastError ?? r.status})`;
  return (
    <details
      className="mt-1 rounded border border-zinc-200 text-xs dark:border-zinc-800"
      data-testid="learned-line"
      data-status={r.status}
    >
      <summary className="cursor-pointer select-none px-2 py-1 text-zinc-600 dark:text-zinc-400">
        <span data-testid="learned-summary">
          Facts:{" "}
          {r.sent
            ? `sent to ${r.sent.provider}: this exchange + ${r.sent.knownFacts} known fact${r.sent.knownFacts === 1 ? "" : "s"} · `
            : ""}
          {what}
        </span>
        {r.sent?.local && <span className="ml-1 text-zinc-400">(stays on this machine)</span>}
      </summary>
      {r.sent ? (
        <pre
          className="max-h-80 overflow-auto whitespace-pre-wrap break-words border-t border-zinc-100 px-2 py-1 font-mono text-zinc-800 dark:border-zinc-800 dark:text-zinc-200"
          data-testid="learned-block"
        >
          {r.sent.block}
        </pre>
      ) : (
        <p className="border-t border-zinc-100 px-2 py-1 text-zinc-500 dark:border-zinc-800">Nothing was sent yet.</p>
      )}
    </details>
  );
}
