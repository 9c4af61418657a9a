"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_trpc/client";
import { BTN_MD as BTN } from "../../_ui/styles";
import { localDate } from "../../_ui/local-time";

const UNDO_DAYS = 7;

/** A pair the merge checks refused: why, and (runs since this was kept) the two memories' text. */
interface Skipped {
  reason: string;
  originals?: [string, string];
}

const cut = (t: string) => (t.length > 90 ? `${t.slice(0, 90).trimEnd()}…` : t);

interface Proposal {
  from: [string, string];
  originals: [string, string];
  content: string;
  similarity: number;
}

/** A duplicate fact (server/memory/facts/duplicates.ts): `merge` goes into the older `keep`. */
interface FactProposal {
  keep: { id: string; text: string; validFrom: string };
  merge: { id: string; text: string; validFrom: string };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function useInvalidate() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  return () => {
    for (const key of [
      trpc.jobs.runs.queryKey(),
      trpc.jobs.status.queryKey(),
      trpc.analytics.overview.queryKey(),
      trpc.analytics.lifetime.queryKey(),
    ]) {
      void qc.invalidateQueries({ queryKey: key });
    }
  };
}

/**
 * "Run consolidation now": asks the provider for the merges and checks them, writing nothing; shows the
 * proposals (and the pairs skipped, with why) and applies the chosen ones on confirmation.
 */
export function ConsolidationReview({ onResult }: { onResult: (text: string, ok: boolean) => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const [preview, setPreview] = useState<{
    runId: number;
    proposals: Proposal[];
    factProposals: FactProposal[];
    skipped: Skipped[];
    note: string | null;
  } | null>(null);
  const [picked, setPicked] = useState<Set<number>>(new Set());
  const [pickedFacts, setPickedFacts] = useState<Set<number>>(new Set());
  const run = useMutation(
    trpc.jobs.previewConsolidation.mutationOptions({
      onSuccess: (r) => {
        invalidate();
        const res = (r.run.result ?? {}) as {
          proposals?: Proposal[];
          factProposals?: FactProposal[];
          skipped?: Skipped[];
          skippedMerging?: string | null;
          reason?: string;
        };
        if (r.run.refused || r.run.status === "failed")
          return onResult(`Consolidation not run: ${r.run.refused ?? r.run.error}`, false);
        const proposals = res.proposals ?? [];
        const factProposals = res.factProposals ?? [];
        setPreview({
          runId: r.run.id,
          proposals,
          factProposals,
          skipped: res.skipped ?? [],
          note: res.skippedMerging ?? res.reason ?? null,
        });
        setPicked(new Set(proposals.map((_, i) => i)));
        setPickedFacts(new Set(factProposals.map((_, i) => i)));
      },
      onError: (e) => onResult(`Consolidation: ${e.message}`, false),
    }),
  );
  const apply = useMutation(
    trpc.jobs.applyConsolidation.mutationOptions({
      onSuccess: (r) => {
        invalidate();
        setPreview(null);
        const res = (r.run.result ?? {}) as { skipped?: unknown[]; factMerges?: unknown[] };
        const facts = res.factMerges?.length ? `, ${plural(res.factMerges.length, "duplicate fact")} merged` : "";
        onResult(
          `Consolidation ${r.run.status}: ${r.counts.merged} merged, ${r.counts.softDeleted} originals soft-deleted${facts}${res.skipped?.length ? `, ${res.skipped.length} skipped` : ""}. Undo it from Last runs for ${UNDO_DAYS} days.`,
          r.run.status !== "failed",
        );
      },
      onError: (e) => onResult(`Consolidation: ${e.message}`, false),
    }),
  );
  return (
    <div className="space-y-2" data-testid="consolidation-review">
      <button
        type="button"
        className={BTN}
        disabled={run.isPending || apply.isPending}
        onClick={() => run.mutate()}
        data-testid="run-consolidate"
      >
        {run.isPending ? "Asking the provider for merges…" : "Run consolidation now"}
      </button>
      {run.isPending && <progress className="block h-2 w-48" aria-label="Consolidation preview in progress" />}
      {preview && (
        <div
          className="space-y-2 rounded border border-amber-300 p-2 text-sm dark:border-amber-800"
          data-testid="consolidation-preview"
        >
          <p className="font-medium">
            {preview.proposals.length} proposed merge{preview.proposals.length === 1 ? "" : "s"}
            {preview.factProposals.length > 0 && `, ${plural(preview.factProposals.length, "duplicate fact")}`}
            {preview.skipped.length
              ? `, ${preview.skipped.length} pair${preview.skipped.length === 1 ? "" : "s"} skipped`
              : ""}
            . Nothing is changed until you apply.
          </p>
          {preview.note && <p className="text-xs text-zinc-500">{preview.note}</p>}
          <ul className="max-h-96 space-y-2 overflow-auto">
            {preview.proposals.map((p, i) => (
              <li key={p.from.join()} className="rounded bg-zinc-50 p-2 dark:bg-zinc-900" data-testid="merge-proposal">
                <label className="flex items-start gap-2">
                  <input
                    type="checkbox"
                    checked={picked.has(i)}
                    onChange={(e) => setPicked((s) => toggled(s, i, e.target.checked))}
                  />
                  <span className="min-w-0 space-y-1">
                    <span className="block text-xs text-zinc-500">1. {p.originals[0]}</span>
                    <span className="block text-xs text-zinc-500">2. {p.originals[1]}</span>
                    <span className="block">→ {p.content}</span>
                    <span className="block text-xs text-zinc-500">similarity {p.similarity}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
          {preview.factProposals.length > 0 && (
            <FactProposals proposals={preview.factProposals} picked={pickedFacts} setPicked={setPickedFacts} />
          )}
          {preview.skipped.length > 0 && (
            <details className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="merge-skipped">
              <summary>Why pairs were skipped</summary>
              <ul className="list-disc pl-5">
                {preview.skipped.map((s, i) => (
                  <li key={i} data-testid="merge-skipped-pair">
                    {s.originals && (
                      <>
                        {s.originals.map((t, k) => (
                          <span key={k}>
                            {k > 0 && " and "}“<span className="text-zinc-900 dark:text-zinc-100">{cut(t)}</span>”
                          </span>
                        ))}
                        :{" "}
                      </>
                    )}
                    {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          <div className="flex gap-2">
            <button
              type="button"
              className={BTN}
              disabled={picked.size + pickedFacts.size === 0 || apply.isPending}
              onClick={() =>
                apply.mutate({
                  runId: preview.runId,
                  pick: [...picked].sort((a, b) => a - b),
                  pickFacts: [...pickedFacts].sort((a, b) => a - b),
                })
              }
              data-testid="apply-consolidation"
            >
              {apply.isPending ? "Applying…" : `Apply ${plural(picked.size + pickedFacts.size, "merge")}`}
            </button>
            <button type="button" className={BTN} onClick={() => setPreview(null)}>
              Discard
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Undo for a consolidation run that merged something, within 7 days (originals restored, merged memories removed). */
export function UndoRunButton({
  run,
}: {
  run: { id: number; job: string; finishedAt: string | null; result: Record<string, unknown> | null };
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidate();
  const undo = useMutation(trpc.jobs.undoRun.mutationOptions({ onSuccess: invalidate }));
  const res = run.result ?? {};
  const n = ((res.merges ?? []) as unknown[]).length + ((res.factMerges ?? []) as unknown[]).length;
  if (run.job !== "consolidate" || res.preview === true || n === 0) return null;
  if (res.undone) return <span className="text-xs text-zinc-500">undone</span>;
  if (!run.finishedAt || Date.now() - Date.parse(run.finishedAt) > UNDO_DAYS * 86_400_000) return null;
  return (
    <span>
      <button
        type="button"
        className="rounded border border-zinc-300 px-2 py-0.5 text-xs dark:border-zinc-700"
        disabled={undo.isPending}
        onClick={() => undo.mutate({ runId: run.id })}
        data-testid="undo-run"
      >
        {undo.isPending ? "Undoing…" : `Undo ${plural(n, "merge")}`}
      </button>
      {undo.error && <span className="ml-2 text-xs text-red-700">{undo.error.message}</span>}
    </span>
  );
}

/** The duplicate facts a preview would merge, each with a checkbox: the newer statement goes into the older one. */
function FactProposals({
  proposals,
  picked,
  setPicked,
}: {
  proposals: FactProposal[];
  picked: Set<number>;
  setPicked: (f: (s: Set<number>) => Set<number>) => void;
}) {
  return (
    <div className="space-y-1" data-testid="fact-proposals">
      <p className="text-xs text-zinc-500">
        Duplicate facts: the same statement twice in one space. The newer goes into the older, which keeps its date and
        gains the newer one’s sources; the newer stays in its history.
      </p>
      <ul className="max-h-64 space-y-2 overflow-auto">
        {proposals.map((p, i) => (
          <li key={p.merge.id} className="rounded bg-zinc-50 p-2 dark:bg-zinc-900" data-testid="fact-proposal">
            <label className="flex items-start gap-2">
              <input
                type="checkbox"
                checked={picked.has(i)}
                onChange={(e) => setPicked((s) => toggled(s, i, e.target.checked))}
              />
              <span className="min-w-0 space-y-1 break-words">
                <span className="block">
                  Keep “{p.keep.text}”{" "}
                  <span className="text-xs text-zinc-500">since {localDate(p.keep.validFrom)}</span>
                </span>
                <span className="block text-xs text-zinc-500">
                  ← merge “{p.merge.text}” (since {localDate(p.merge.validFrom)})
                </span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The picked indexes with `i` in (on) or out. */
function toggled(picked: Set<number>, i: number, on: boolean): Set<number> {
  return on ? new Set(picked).add(i) : new Set([...picked].filter((x) => x !== i));
}
