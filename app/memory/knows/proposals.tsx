"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../../_trpc/client";
import { BTN, BTN_PRIMARY } from "../../_ui/styles";

const FROM: Record<string, string> = {
  document: "a document",
  import: "an import",
  backfill: "your existing memory",
};

/**
 * Changes a document, an import or "learn from my existing memory" proposed (issue 48): a fact learned from
 * stored text that would replace facts Memo knows is not applied until the reader accepts it here — the
 * text may have been written by anyone. Accept writes it (the old facts go to its history); Dismiss drops it.
 */
export function Proposals({
  onDone,
  onError,
}: {
  onDone: (m: string) => void;
  onError: (e: { message: string }) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.facts.proposals.queryOptions());
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.facts.pathKey() });
    void qc.invalidateQueries({ queryKey: trpc.learning.runs.queryKey() });
  };
  const accept = useMutation(
    trpc.facts.acceptProposal.mutationOptions({
      onSuccess: () => {
        refresh();
        onDone("Accepted: the new fact replaced the old ones, which stay in its history.");
      },
      onError,
    }),
  );
  const dismiss = useMutation(
    trpc.facts.dismissProposal.mutationOptions({
      onSuccess: () => {
        refresh();
        onDone("Dismissed: nothing changed.");
      },
      onError,
    }),
  );
  const items = list.data?.proposals ?? [];
  if (!items.length) return null;
  const busy = accept.isPending || dismiss.isPending;
  return (
    <section
      aria-labelledby="proposals-h"
      className="rounded border border-amber-300 bg-amber-50 px-3 py-2 dark:border-amber-800 dark:bg-amber-950/40"
      data-testid="fact-proposals"
    >
      <h2 id="proposals-h" className="text-base font-semibold">
        Changes to confirm ({items.length})
      </h2>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Learned from stored text, not from what you said in a chat: anyone may have written it, so these replace nothing
        until you accept them.
      </p>
      <ul className="divide-y divide-amber-200 dark:divide-amber-900">
        {items.map((p) => (
          <li key={p.id} className="space-y-1 py-2 text-sm" data-testid="fact-proposal">
            <p className="break-words">
              <span className="font-medium">“{p.text}”</span>
            </p>
            <p className="break-words text-xs text-zinc-600 dark:text-zinc-400">
              would replace {p.replaces.map((r) => `“${r.text}”`).join(", ") || "facts that have changed since"} · from{" "}
              {p.targetName ?? FROM[p.kind ?? ""] ?? "stored text"} · {p.spaceId}
            </p>
            <div className="flex gap-2">
              <button
                type="button"
                className={BTN_PRIMARY}
                disabled={busy}
                onClick={() => accept.mutate({ id: p.id })}
                aria-label={`Accept: ${p.text}`}
              >
                Accept
              </button>
              <button
                type="button"
                className={BTN}
                disabled={busy}
                onClick={() => dismiss.mutate({ id: p.id })}
                aria-label={`Dismiss: ${p.text}`}
              >
                Dismiss
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
