"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_trpc/client";
import { ConsolidationReview, UndoRunButton } from "./consolidation-review";
import { BTN_MD as BTN, CARD } from "../../_ui/styles";
import { localDateTime as fmt } from "../../_ui/local-time";

import { countsLine, JOB_KINDS, RUNNABLE_JOBS, type RunnableJob } from "@/server/jobs/job-kinds";

// The jobs, their labels and what each count is called come from the registry (server/jobs/job-kinds.ts); each
// count says what happened to those memories (the legend under Last runs says why).
type Job = RunnableJob;

/** What a run's result says, in a line: its job's counts, or why it was skipped. */
function resultLine(r: {
  job: string;
  status: string;
  result: Record<string, unknown> | null;
  error: string | null;
}): string {
  const res = r.result ?? {};
  const reason = (res.reason ?? res.skippedMerging ?? res.decaySkipped) as string | undefined;
  const parts: string[] = [];
  const counts = countsLine(r.job, { ...((res.counts as object | undefined) ?? {}), ...res });
  if (counts) parts.push(counts);
  if (typeof res.pairs === "number") parts.push(`${res.pairs} similar pairs`);
  const facts = Array.isArray(res.factMerges) ? res.factMerges.length : 0;
  if (facts) parts.push(`${facts} duplicate fact${facts === 1 ? "" : "s"} merged`);
  else if (typeof res.factPairs === "number" && res.factPairs > 0) parts.push(`${res.factPairs} duplicate facts`);
  if (reason) parts.push(reason);
  return parts.join(" — ");
}

/**
 * Background jobs on the Analytics page: Run now for decay and consolidation (with what the run did),
 * the last runs, when the next ones are scheduled, and the progress of a re-index for a new embedding model.
 */
export function JobsPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const status = useQuery({
    ...trpc.jobs.status.queryOptions(),
    refetchInterval: (q) => (q.state.data?.reindex.active ? 1500 : 10_000),
  });
  const runs = useQuery({
    ...trpc.jobs.runs.queryOptions({ limit: 10 }),
    refetchInterval: status.data?.reindex.active ? 3000 : 15_000,
  });
  const [last, setLast] = useState<{ job: Job; text: string; ok: boolean } | null>(null);
  const run = useMutation(
    trpc.jobs.run.mutationOptions({
      onSuccess: (r, input) => {
        const ok = r.run.status !== "failed";
        const what = r.run.refused ?? (r.run.status === "failed" ? `failed: ${r.run.error}` : resultLine(r.run));
        setLast({
          job: input.job,
          ok,
          text: `${JOB_KINDS[input.job].label} ${r.run.refused ? "not run" : r.run.status}: ${what || countsLine(input.job, r.counts)}`,
        });
        void qc.invalidateQueries({ queryKey: trpc.jobs.runs.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.jobs.status.queryKey() });
        void qc.invalidateQueries({ queryKey: trpc.analytics.overview.queryKey() });
      },
      onError: (e, input) =>
        setLast({ job: input.job, ok: false, text: `${JOB_KINDS[input.job].label}: ${e.message}` }),
    }),
  );
  const s = status.data;
  const p = s?.reindex.progress;
  const pending = run.isPending ? run.variables?.job : undefined;

  return (
    <section aria-labelledby="jobs-heading" aria-busy={!s} className="space-y-3" data-testid="jobs-panel">
      <h2 id="jobs-heading" className="text-lg font-semibold">
        Background jobs
      </h2>

      {p && (s.reindex.active || p.status !== "done" || Date.now() - Date.parse(p.updatedAt) < 86_400_000) && (
        <div className={CARD} role="status" data-testid="reindex-progress">
          <p className="text-sm font-medium">
            {s.reindex.active
              ? "Re-indexing memories"
              : p.status === "done"
                ? "Re-index complete"
                : `Re-index ${p.status}`}{" "}
            for <strong className="break-all">{p.to.model}</strong> ({p.to.dim}-d)
            {p.from ? ` — was ${p.from.model} (${p.from.dim}-d)` : ""}
          </p>
          <progress
            className="mt-1 h-2 w-full"
            max={Math.max(1, p.total)}
            value={p.done}
            aria-label="Re-index progress"
          />
          <p className="text-xs text-zinc-500">
            {p.unit === "percent"
              ? `${p.done}% done`
              : `${p.done.toLocaleString("en-US")} / ${p.total.toLocaleString("en-US")} memories`}
            {s.reindex.active
              ? " · search uses keyword matches only until it completes"
              : ` · ${fmt(p.finishedAt ?? p.updatedAt)}`}
            {p.error ? ` · ${p.error}` : ""}
          </p>
        </div>
      )}

      <div className={`${CARD} space-y-2`}>
        <div className="flex flex-wrap items-center gap-2">
          {RUNNABLE_JOBS.filter((job) => JOB_KINDS[job].runNow === "run").map((job) => (
            <button
              key={job}
              type="button"
              className={BTN}
              disabled={pending !== undefined}
              onClick={() => run.mutate({ job })}
              aria-busy={pending === job}
              data-testid={`run-${job}`}
            >
              {/* The label keeps its width while it runs (aria-busy says so), so nothing below moves. */}
              Run {JOB_KINDS[job].label.toLowerCase()} now
              {pending === job && <span className="sr-only"> (running)</span>}
            </button>
          ))}
          <ConsolidationReview onResult={(text, ok) => setLast({ job: "consolidate", text, ok })} />
        </div>
        <p className="text-xs text-zinc-500">
          Next decay:{" "}
          <time dateTime={s?.next.decay ?? undefined} data-testid="next-decay" suppressHydrationWarning>
            {fmt(s?.next.decay)}
          </time>{" "}
          · next consolidation:{" "}
          {s?.next.consolidate && s.next.consolidate === s.next.decay ? "right after decay" : fmt(s?.next.consolidate)}
          {s && !s.schedulerRunning ? " (the scheduler is not running in this process)" : ""}
          {s?.model ? ` · merge threshold ${s.threshold} for ${s.model}` : ""}
        </p>
        <p
          aria-live="polite"
          className={`min-h-5 text-sm ${last?.ok === false ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-400"}`}
          data-testid="job-result"
        >
          {last?.text}
        </p>
      </div>

      <div className={CARD}>
        <h3 className="mb-1 text-sm font-semibold">Last runs</h3>
        <p className="mb-2 text-xs text-zinc-500" data-testid="jobs-legend">
          Promoted by recall: recalled into a prompt since the run before (importance +1, up to 5). Decayed while idle:
          not recalled for a while (importance −1). Soft-deleted: at importance 0 for too long (restorable in the
          Manager). Purged: deleted longer ago than the retention period, gone for good.
        </p>
        {runs.error && (
          <p role="alert" className="text-sm text-red-700">
            {runs.error.message}
          </p>
        )}
        {runs.data && runs.data.length === 0 && <p className="text-sm text-zinc-500">No job has run yet.</p>}
        {runs.data && runs.data.length > 0 && (
          <ul className="space-y-1 text-sm" data-testid="jobs-panel-runs">
            {runs.data.map((r) => (
              <li key={r.id} className="flex flex-wrap gap-x-3">
                <span className="w-24 shrink-0 font-medium">{r.job}</span>
                <span className="shrink-0 tabular-nums text-zinc-500">{fmt(r.startedAt)}</span>
                <span
                  className={
                    r.status === "failed"
                      ? "text-red-700 dark:text-red-300"
                      : r.status === "ok"
                        ? "text-emerald-700 dark:text-emerald-400"
                        : "text-zinc-500"
                  }
                >
                  {r.status}
                  {r.durationMs !== null ? ` · ${Math.round(r.durationMs)} ms` : ""}
                </span>
                <span className="min-w-0 text-xs text-zinc-600 dark:text-zinc-400">
                  {r.result?.preview === true ? "preview (nothing written): " : ""}
                  {r.error ?? resultLine(r)}
                </span>
                <UndoRunButton run={r} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
