"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../_trpc/client";
import { runLine } from "./learn-run-line";
import { BTN, BTN_PRIMARY } from "./styles";

type Kind = "document" | "import" | "backfill";

/**
 * Opt-in learning of facts from stored memory (docs/facts.md): a document, a ChatGPT import, or the whole
 * space ("learn from my existing memory"). First the count — how many memories, how many calls, to which
 * provider — then Start, a progress bar, and Stop. Nothing is sent before Start. A finished run can be undone
 * as a whole (its facts taken back, its proposals dismissed; issue 48).
 */
export function LearnFacts({
  kind,
  target,
  space,
  label,
}: {
  kind: Kind;
  /** The document or import id (not for the back-fill). */
  target?: string;
  /** The back-fill's space. */
  space?: string;
  /** What is learned from, for names ("pets.md", "my memory in personal"). */
  label: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [asked, setAsked] = useState(false);
  const input = { kind, ...(target ? { target } : {}), ...(space ? { space } : {}) };
  const runs = useQuery(
    trpc.learning.runs.queryOptions(kind === "backfill" ? { kind } : { kind, target }, {
      refetchInterval: (q) => (q.state.data?.some((r) => r.status === "running") ? 1000 : false),
    }),
  );
  const run = (runs.data ?? []).find((r) => kind !== "backfill" || r.spaceId === space || space === undefined);
  const count = useQuery(trpc.learning.count.queryOptions(input, { enabled: asked }));
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.learning.runs.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.learning.count.queryKey() });
    void qc.invalidateQueries({ queryKey: trpc.learning.status.queryKey() });
  };
  const start = useMutation(
    trpc.learning.start.mutationOptions({
      onSuccess: () => {
        setAsked(false);
        refresh();
      },
    }),
  );
  const stop = useMutation(trpc.learning.stop.mutationOptions({ onSuccess: refresh }));
  const [undone, setUndone] = useState<string | null>(null);
  const undo = useMutation(
    trpc.learning.undo.mutationOptions({
      onSuccess: (r) => {
        setUndone(
          `Undone: ${r.forgotten} fact${r.forgotten === 1 ? "" : "s"} taken back${r.restored ? `, ${r.restored} brought back` : ""}${r.dismissed ? `, ${r.dismissed} proposal${r.dismissed === 1 ? "" : "s"} dismissed` : ""}.`,
        );
        refresh();
        void qc.invalidateQueries({ queryKey: trpc.facts.pathKey() });
      },
    }),
  );
  const error = start.error ?? stop.error ?? count.error ?? undo.error;

  if (run?.status === "running") {
    const pct = run.total ? Math.round((run.done / run.total) * 100) : 100;
    return (
      <div className="mt-1 space-y-1 text-xs" data-testid="learn-facts" data-state="running">
        <div
          className="h-2 rounded bg-zinc-200 dark:bg-zinc-800"
          role="progressbar"
          aria-label={`Learning facts from ${label}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={pct}
        >
          <div className="h-2 rounded bg-violet-600 transition-[width] duration-300" style={{ width: `${pct}%` }} />
        </div>
        <div className="flex flex-wrap items-center gap-2 text-zinc-600 dark:text-zinc-400">
          <span data-testid="learn-progress">
            Learning facts: {run.done}/{run.total} memories · {run.factsAdded} fact{run.factsAdded === 1 ? "" : "s"}{" "}
            learned
          </span>
          <button
            type="button"
            className={BTN}
            disabled={stop.isPending}
            onClick={() => stop.mutate({ id: run.id })}
            aria-label={`Stop learning facts from ${label}`}
          >
            Stop
          </button>
        </div>
      </div>
    );
  }

  const c = count.data;
  return (
    <div className="mt-1 space-y-1 text-xs" data-testid="learn-facts" data-state={asked ? "counted" : "idle"}>
      {run && !asked && (
        <p className="flex flex-wrap items-center gap-x-2 text-zinc-600 dark:text-zinc-400" data-testid="learn-last">
          <span>
            {runLine(run)}
            {run.proposed > 0 && (
              <>
                {" "}
                · {run.proposed} change{run.proposed === 1 ? "" : "s"} to confirm on{" "}
                <a href="/memory/knows" className="text-blue-700 underline dark:text-blue-400">
                  What Memo knows
                </a>
              </>
            )}
            .
          </span>
          {undone ? (
            <span data-testid="learn-undone">{undone}</span>
          ) : (
            (run.currentFacts > 0 || run.proposed > 0) && (
              <button
                type="button"
                className={BTN}
                disabled={undo.isPending}
                onClick={() => undo.mutate({ id: run.id })}
                aria-label={`Undo what learning from ${label} changed`}
              >
                Undo this run
              </button>
            )
          )}
        </p>
      )}
      {!asked ? (
        <button type="button" className={BTN} onClick={() => setAsked(true)} aria-label={`Learn facts from ${label}`}>
          Learn facts…
        </button>
      ) : !c ? (
        <p className="text-zinc-500">Counting…</p>
      ) : (
        <div className="flex flex-wrap items-center gap-2" data-testid="learn-count">
          <span>
            {c.memories === 0
              ? "Nothing new to learn from: every memory here was learned from already."
              : c.blocked
                ? `${c.memories} memor${c.memories === 1 ? "y" : "ies"} · cannot learn now: ${c.blocked}`
                : `${c.memories} memor${c.memories === 1 ? "y" : "ies"} → ${c.calls} call${c.calls === 1 ? "" : "s"} to ${c.provider}${c.local ? " (stays on this machine)" : " (a remote provider: each call sends the text with known facts)"}`}
          </span>
          {c.memories > 0 && !c.blocked && (
            <button
              type="button"
              className={BTN_PRIMARY}
              disabled={start.isPending}
              onClick={() => start.mutate(input)}
              aria-label={`Start learning facts from ${label}`}
            >
              Start
            </button>
          )}
          <button type="button" className={BTN} onClick={() => setAsked(false)}>
            Cancel
          </button>
        </div>
      )}
      {error && (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {error.message}
        </p>
      )}
    </div>
  );
}
