"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../_trpc/client";
import { BTN, BTN_PRIMARY } from "../../_ui/styles";

const FROM: Record<string, string> = {
  document: "a document",
  import: "an import",
  backfill: "your existing memory",
  chat: "a chat",
  api: "the API",
};

type Proposal = inferRouterOutputs<AppRouter>["facts"]["proposals"]["proposals"][number];

/** Where a group of proposals came from: its learning run (a document, an import, a back-fill), or the chats. */
function sourceOf(p: Proposal): string {
  const from = p.targetName ?? FROM[p.kind ?? p.origin ?? ""] ?? "stored text";
  return p.writer ? `${from}, written by ${p.writer}` : from;
}

/** What confirming one does, in words: what it replaces or brings back, or that it adds a fact. */
function effectOf(p: Proposal): string {
  if (p.replaces.length) return `would replace ${p.replaces.map((r) => `“${r.text}”`).join(", ")}`;
  if (p.revives)
    return `would bring back “${p.revives.text}”${p.revives.successor ? `, which “${p.revives.successor}” replaced` : ""}`;
  return "a new fact";
}

/** Proposals grouped by their learning run (chat proposals, which have none, by their space), oldest first. */
function byRun(items: Proposal[]): { key: string; label: string; items: Proposal[] }[] {
  const groups = new Map<string, { key: string; label: string; items: Proposal[] }>();
  for (const p of items) {
    const key = p.runId ?? `chat:${p.spaceId}`;
    const g = groups.get(key) ?? { key, label: `From ${sourceOf(p)} · ${p.spaceId}`, items: [] };
    g.items.push(p);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * Untrusted text proposes; the person decides (issues 48 and 54): every fact a document, an import, another
 * person's words or a back-fill of them taught, and any fact that would bring back a replaced value, waits
 * here — not in what Memo states as known — until the reader accepts it. Grouped per learning run: accept
 * all, accept or dismiss one by one, dismiss all.
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
      onSuccess: (_r, v) => {
        refresh();
        const p = list.data?.proposals.find((x) => x.id === v.id);
        onDone(
          p?.replaces.length
            ? "Accepted: the new fact replaced the old ones, which stay in its history."
            : `Accepted: “${p?.text ?? "the fact"}” is current now.`,
        );
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
  const decide = useMutation(
    trpc.facts.decideProposals.mutationOptions({
      onSuccess: (r, v) => {
        refresh();
        const n = r.done.length;
        const did =
          v.decision === "accept"
            ? `Accepted ${n} fact${n === 1 ? "" : "s"}: current now.`
            : `Dismissed ${n} proposal${n === 1 ? "" : "s"}: nothing changed.`;
        onDone(r.failed.length ? `${did} ${r.failed.length} could not be: ${r.failed[0]!.reason}` : did);
      },
      onError,
    }),
  );
  const items = list.data?.proposals ?? [];
  if (!items.length) return null;
  const busy = accept.isPending || dismiss.isPending || decide.isPending;
  return (
    <section
      aria-labelledby="proposals-h"
      className="rounded border border-amber-300 bg-amber-50 px-3 py-2 dark:border-amber-800 dark:bg-amber-950/40"
      data-testid="fact-proposals"
    >
      <h2 id="proposals-h" className="text-base font-semibold">
        To confirm ({items.length})
      </h2>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Learned from text that is not your own words in a chat — a document, an import, someone else’s memories — or
        bringing back a value that was replaced. Anyone may have written it, so Memo does not treat these as known until
        you accept them.
      </p>
      {byRun(items).map((g) => (
        <div
          key={g.key}
          className="mt-2 border-t border-amber-200 pt-2 dark:border-amber-900"
          data-testid="proposal-run"
        >
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 className="break-words text-sm font-medium">
              {g.label} · {g.items.length} to confirm
            </h3>
            {g.items.length > 1 && (
              <div className="flex gap-2">
                <button
                  type="button"
                  className={BTN_PRIMARY}
                  disabled={busy}
                  onClick={() => decide.mutate({ ids: g.items.map((p) => p.id), decision: "accept" })}
                  aria-label={`Accept all ${g.items.length}: ${g.label}`}
                >
                  Accept all
                </button>
                <button
                  type="button"
                  className={BTN}
                  disabled={busy}
                  onClick={() => decide.mutate({ ids: g.items.map((p) => p.id), decision: "dismiss" })}
                  aria-label={`Dismiss all ${g.items.length}: ${g.label}`}
                >
                  Dismiss all
                </button>
              </div>
            )}
          </div>
          <ul className="divide-y divide-amber-200 dark:divide-amber-900">
            {g.items.map((p) => (
              <li key={p.id} className="space-y-1 py-2 text-sm" data-testid="fact-proposal">
                <p className="break-words">
                  <span className="font-medium">“{p.text}”</span>
                </p>
                <p className="break-words text-xs text-zinc-600 dark:text-zinc-400">
                  {effectOf(p)} · from {sourceOf(p)} · {p.spaceId}
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
        </div>
      ))}
    </section>
  );
}
