"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "../../_trpc/client";

const BADGE: Record<string, string> = {
  hybrid: "bg-violet-100 text-violet-800 dark:bg-violet-900 dark:text-violet-100",
  vector: "bg-sky-100 text-sky-800 dark:bg-sky-900 dark:text-sky-100",
  fts: "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-100",
};

function Bar({ label, value, max, text }: { label: string; value: number | null; max: number; text: string }) {
  const pct = value === null || max <= 0 ? 0 : Math.max(2, Math.min(100, (value / max) * 100));
  return (
    <div className="flex items-center gap-2 text-xs" title={`${label}: ${text}`}>
      <span className="w-20 shrink-0 text-zinc-500">{label}</span>
      <div className="h-2 flex-1 rounded bg-zinc-200 dark:bg-zinc-800" role="meter" aria-label={label} aria-valuenow={value ?? 0} aria-valuemin={0} aria-valuemax={max}>
        <div className="h-2 rounded bg-zinc-600 dark:bg-zinc-300" style={{ width: `${pct}%` }} />
      </div>
      <span className="w-16 shrink-0 text-right tabular-nums">{text}</span>
    </div>
  );
}

export function DebugSearch() {
  const trpc = useTRPC();
  const [draft, setDraft] = useState("");
  const [space, setSpace] = useState("personal");
  const [k, setK] = useState(10);
  const [context, setContext] = useState("");
  const [anchorQuery, setAnchorQuery] = useState<boolean | undefined>(undefined);
  const [qualityFilter, setQualityFilter] = useState(true);
  const [submitted, setSubmitted] = useState<string | null>(null);
  const spaces = useQuery(trpc.memory.spaces.queryOptions());
  const input = {
    query: submitted ?? "",
    space,
    k,
    context: context.split("\n").map((s) => s.trim()).filter(Boolean),
    options: { qualityFilter, ...(anchorQuery === undefined ? {} : { anchorQuery }) },
  };
  const result = useQuery({ ...trpc.memory.search.queryOptions(input), enabled: Boolean(submitted?.trim()) });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(draft);
  };
  const rrfMax = Math.max(1e-9, ...(result.data?.results.map((r) => r.scores.rrf) ?? [0]));
  const finalMax = Math.max(1e-9, ...(result.data?.results.map((r) => r.scores.final) ?? [0]));
  const pool = result.data?.pool ?? 20;

  return (
    <div className="space-y-4">
      <form onSubmit={onSubmit} className="space-y-3 rounded border border-zinc-200 p-4 dark:border-zinc-800" aria-label="Search memories">
        <div className="flex flex-col gap-2 sm:flex-row">
          <label className="sr-only" htmlFor="q">
            Query
          </label>
          <input
            id="q"
            name="query"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="What do you want to recall?"
            className="flex-1 rounded border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
          <button type="submit" className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900">
            Search
          </button>
        </div>
        <div className="flex flex-wrap items-center gap-4 text-sm">
          <label className="flex min-w-0 max-w-full items-center gap-2">
            Space
            <select value={space} onChange={(e) => setSpace(e.target.value)} className="min-w-0 max-w-full rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900">
              {(spaces.data ?? ["personal"]).map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-2">
            k
            <input type="number" min={1} max={100} value={k} onChange={(e) => setK(Math.max(1, Math.min(100, Number(e.target.value) || 1)))} className="w-16 rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900" />
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={anchorQuery ?? result.data?.settings.anchorQuery ?? false} onChange={(e) => setAnchorQuery(e.target.checked)} />
            Anchor query
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={qualityFilter} onChange={(e) => setQualityFilter(e.target.checked)} />
            Quality filter
          </label>
        </div>
        <label className="block text-sm">
          Conversation context (earlier user messages, one per line)
          <textarea value={context} onChange={(e) => setContext(e.target.value)} rows={2} className="mt-1 w-full rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900" />
        </label>
      </form>

      {result.error && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {result.error.message}
        </p>
      )}
      {result.isFetching && <p className="text-sm text-zinc-500">Searching…</p>}

      {result.data && (
        <section aria-label="Results" className="space-y-3">
          <p className="text-xs text-zinc-500" data-testid="timings">
            {result.data.results.length} results · model {result.data.model} · fusion {result.data.settings.fusion} · pool {pool} · embed{" "}
            {result.data.timings.embedMs.toFixed(1)} ms · vector {result.data.timings.vectorMs.toFixed(1)} ms · keyword {result.data.timings.keywordMs.toFixed(1)} ms · fuse{" "}
            {result.data.timings.fuseMs.toFixed(1)} ms
          </p>
          {result.data.results.length === 0 && <p className="text-sm">No memory matched.</p>}
          <ol className="space-y-3">
            {result.data.results.map((r) => (
              <li key={r.id} data-testid="result" className="rounded border border-zinc-200 p-3 dark:border-zinc-800">
                <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
                  <span data-testid="match-badge" className={`rounded px-2 py-0.5 font-medium ${BADGE[r.matchType]}`}>
                    {r.matchType}
                  </span>
                  <time dateTime={r.timestamp}>{r.timestamp.slice(0, 10)}</time>
                  <span>importance {r.importance}</span>
                  <span>retrieved {r.retrievalCount}×</span>
                  {r.pinned && <span className="rounded bg-zinc-200 px-1 dark:bg-zinc-800">pinned</span>}
                  <span className="text-zinc-500">{r.kind}</span>
                </div>
                <p className="whitespace-pre-wrap text-sm">{r.content}</p>
                <div className="mt-2 space-y-1">
                  <Bar label="similarity" value={r.scores.similarity} max={1} text={r.scores.similarity === null ? "—" : r.scores.similarity.toFixed(3)} />
                  <Bar label="FTS rank" value={r.scores.ftsRank === null ? null : pool + 1 - r.scores.ftsRank} max={pool} text={r.scores.ftsRank === null ? "—" : `#${r.scores.ftsRank}`} />
                  <Bar label="RRF" value={r.scores.rrf} max={rrfMax} text={r.scores.rrf.toFixed(4)} />
                  {/* The score the results are ranked by: the configured fusion (RRF or linear) plus importance. */}
                  <Bar label="score" value={r.scores.final} max={finalMax} text={r.scores.final.toFixed(3)} />
                </div>
              </li>
            ))}
          </ol>
          {result.data.dropped.length > 0 && (
            <details className="text-sm">
              <summary>{result.data.dropped.length} candidates dropped by the quality filter</summary>
              <ul className="mt-2 space-y-1">
                {result.data.dropped.map((d) => (
                  <li key={d.id} className="text-xs text-zinc-500">
                    {d.reason}: {d.content.slice(0, 120)}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}
    </div>
  );
}
