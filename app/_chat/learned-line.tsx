"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { retryUnlessGone, useChatDeleting } from "./poll-guard";
import { TAP_FREQUENT } from "../_ui/styles";

/**
 * Under a reply, like "Sent to": whether Memo learned facts from this exchange, and what that extraction
 * sent where — the exchange itself and the known facts listed with it (the exact text). Each fact learned
 * is listed with what it replaced and an Undo that takes that learning back (what it replaced is current
 * again), so a wrong fact is seen where it was learned. Learning runs after the reply, off its path, so a
 * fresh reply polls until its job has ended (or, none queued, 30 s).
 */
export function LearnedLine({ messageId, createdAt }: { messageId: string; createdAt?: string }) {
  const trpc = useTRPC();
  // Age read at each poll (a reply whose answer never changes is not re-rendered).
  const age = () => (createdAt ? Date.now() - Date.parse(createdAt) : Infinity);
  // While a chat is being deleted its replies may vanish under a poll (a 404): the polls wait for it,
  // and a reply that is gone is not asked for again.
  const deleting = useChatDeleting();
  const q = useQuery({
    ...trpc.learning.reply.queryOptions({ messageId }),
    enabled: !deleting,
    retry: retryUnlessGone,
    refetchInterval: (s) => {
      const st = s.state.data?.status;
      // No job yet: one is queued as the exchange is stored (within seconds), or none comes (learning off,
      // a temporary chat): 30 s. A job: until it ends, for 5 min.
      if (st === undefined) return age() < 30_000 ? 1500 : false;
      return age() < 300_000 && (st === "queued" || st === "running") ? 1500 : false;
    },
  });
  const qc = useQueryClient();
  const [undone, setUndone] = useState<{ text: string; replaced: string[] } | null>(null);
  const undo = useMutation(
    trpc.learning.undoFact.mutationOptions({
      onSuccess: (next) => qc.setQueryData(trpc.learning.reply.queryKey({ messageId }), next),
    }),
  );
  const r = q.data;
  if (!r) return null;
  const what =
    r.status === "done"
      ? [
          `learned ${r.factsAdded} fact${r.factsAdded === 1 ? "" : "s"}`,
          r.factsUndone > 0 && `${r.factsUndone} undone`,
          r.factsDeleted > 0 && `${r.factsDeleted} deleted`,
          r.factsForgotten > 0 &&
            `${r.factsForgotten} forgotten with ${r.factsForgotten === 1 ? "its" : "their"} messages`,
          r.factsReplaced > 0 && `${r.factsReplaced} replaced since`,
          r.factsProposed > 0 && `${r.factsProposed} to confirm on What Memo knows`,
        ]
          .filter(Boolean)
          .join(" · ")
      : r.status === "queued" || r.status === "running"
        ? r.lastError
          ? `will try again (${r.lastError})`
          : "learning…"
        : r.status === "failed"
          ? `could not learn from it (${r.lastError ?? "unknown"}); the exchange is kept`
          : `not learned from (${r.lastError ?? r.status})`;
  return (
    <div data-testid="learned">
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
      {r.facts.length > 0 && (
        <ul className="mt-1 space-y-1 text-xs" data-testid="learned-facts">
          {r.facts.map((f) => (
            <li
              key={f.id}
              className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5 rounded bg-zinc-50 px-2 py-1 dark:bg-zinc-900"
              data-testid="learned-fact"
            >
              <span className="min-w-0 break-words text-zinc-800 dark:text-zinc-200">
                <span className="text-zinc-500">Learned:</span> {f.text}
                {!f.current && <span className="ml-1 text-zinc-500">(replaced since)</span>}
              </span>
              {f.replaced.length > 0 && (
                <span className="min-w-0 break-words text-zinc-500" data-testid="learned-replaced">
                  replaced {f.replaced.map((o) => `“${o.text}”`).join(", ")}
                </span>
              )}
              {f.current && (
                <button
                  type="button"
                  className={`ml-auto rounded border border-zinc-300 px-2 py-0.5 text-zinc-700 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800 ${TAP_FREQUENT}`}
                  disabled={undo.isPending}
                  onClick={() => {
                    setUndone({ text: f.text, replaced: f.replaced.map((o) => o.text) });
                    undo.mutate({ messageId, factId: f.id });
                  }}
                  aria-label={`Undo learning: ${f.text}`}
                  data-testid="learned-undo"
                >
                  Undo
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {undo.isSuccess && undone && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" role="status" data-testid="learned-undone">
          Undone: “{undone.text}” is forgotten
          {undone.replaced.length ? `; ${undone.replaced.map((t) => `“${t}”`).join(", ")} is current again` : ""}.
        </p>
      )}
      {undo.isError && (
        <p className="mt-1 text-xs text-red-700 dark:text-red-400" role="alert">
          {undo.error.message}
        </p>
      )}
    </div>
  );
}
