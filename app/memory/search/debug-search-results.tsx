"use client";

import { candidatePool, rankDepth } from "@/server/memory/retrieval/query-builder";
import { TECHNIQUES, techniqueOn } from "@/server/memory/retrieval/techniques";
import { isoLocalDate as localDate } from "../../_ui/local-time";
import { MATCH_BADGE } from "../../_ui/styles";
import { WouldBePacked } from "./confidence";
import { ResultCard, type DebugSearchResult } from "./debug-search-result";

/** A stage of the pipeline with its time, as a bar relative to the whole search. */
function StageTime({ label, ms, total }: { label: string; ms: number; total: number }) {
  const pct = total > 0 ? Math.max(1, Math.min(100, (ms / total) * 100)) : 0;
  return (
    <div className="flex items-center gap-2 text-xs" data-testid="stage">
      <span className="w-28 shrink-0 text-zinc-600 dark:text-zinc-400">{label}</span>
      <div className="h-2 flex-1 rounded bg-zinc-200 dark:bg-zinc-800" aria-hidden="true">
        <div className="h-2 rounded bg-emerald-600 dark:bg-emerald-400" style={{ width: `${pct}%` }} />
      </div>
      <span className="w-20 shrink-0 text-right tabular-nums">{ms.toFixed(2)} ms</span>
    </div>
  );
}

/**
 * What a debug search found (the page's form is debug-search.tsx): its timings per stage, the queries and
 * settings it ran with, each result with its scores, and the candidates the quality filter dropped.
 */
export function DebugSearchResults({ data }: { data: DebugSearchResult }) {
  const rrfMax = Math.max(1e-9, ...data.results.map((r) => r.scores.rrf));
  const finalMax = Math.max(1e-9, ...data.results.map((r) => r.scores.final));
  const poolUsed = data.pool ?? 20;
  const techniquesOff = TECHNIQUES.filter((t) => !techniqueOn(t, data.settings));
  return (
    <section aria-label="Results" className="space-y-3">
      <p className="text-xs text-zinc-500" data-testid="timings">
        {data.results.length} results · model {data.model} · fusion {data.settings.fusion} · pool {poolUsed} · embed{" "}
        {data.timings.embedMs.toFixed(1)} ms · vector {data.timings.vectorMs.toFixed(1)} ms · keyword{" "}
        {data.timings.keywordMs.toFixed(1)} ms · fuse {data.timings.fuseMs.toFixed(1)} ms
      </p>

      {data.notice && (
        <div
          role="status"
          className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
          data-testid="search-notice"
        >
          {data.notice}
        </div>
      )}
      <div className="grid gap-3 md:grid-cols-2">
        <div className="rounded border border-zinc-200 p-3 dark:border-zinc-800" data-testid="stage-timings">
          <h2 className="mb-2 text-sm font-semibold">Timings per stage</h2>
          <div className="space-y-1">
            <StageTime label="Embed queries" ms={data.timings.embedMs} total={data.timings.totalMs} />
            <StageTime label="Vector KNN" ms={data.timings.vectorMs} total={data.timings.totalMs} />
            <StageTime label="Keyword (FTS5)" ms={data.timings.keywordMs} total={data.timings.totalMs} />
            <StageTime label="Fuse + filter" ms={data.timings.fuseMs} total={data.timings.totalMs} />
            <StageTime label="Total" ms={data.timings.totalMs} total={data.timings.totalMs} />
          </div>
          <div className="mt-2 text-xs" data-testid="vector-source">
            Vector leg served by{" "}
            {data.vectorSource === "ann" ? (
              <strong>the in-memory ANN index (HNSW)</strong>
            ) : data.vectorSource === "vec0" ? (
              <strong>vec0 exact scan (the index is not ready)</strong>
            ) : (
              <strong>nothing (vector weight 0)</strong>
            )}
          </div>
        </div>
        <div className="rounded border border-zinc-200 p-3 text-xs dark:border-zinc-800" data-testid="queries">
          <h2 className="mb-2 text-sm font-semibold">Queries and settings</h2>
          <ol className="space-y-1">
            {data.queries.map((q, i) => (
              <li key={i} className="flex gap-2">
                <span className="shrink-0 self-start rounded bg-zinc-200 px-1.5 font-medium dark:bg-zinc-800">
                  {q.role}
                </span>
                <div className="min-w-0">
                  <span className="whitespace-pre-wrap break-words">{q.text}</span>
                  {data.dense?.[i] !== undefined && data.dense[i] !== q.text && (
                    <span className="block whitespace-pre-wrap break-words text-zinc-500" data-testid="dense-text">
                      embedded as “{data.dense[i]}”
                    </span>
                  )}
                </div>
              </li>
            ))}
          </ol>
          <dl className="mt-2 grid grid-cols-2 gap-x-3 gap-y-0.5 text-zinc-600 dark:text-zinc-400">
            <dt>candidate pool</dt>
            <dd className="tabular-nums">{poolUsed} per list</dd>
            <dt>context messages</dt>
            <dd>{data.settings.contextMessages}</dd>
            <dt>anchor query</dt>
            <dd>{data.settings.anchorQuery ? "on" : "off"}</dd>
            <dt>quality filter</dt>
            <dd>
              {data.settings.qualityFilter
                ? `on (similarity ≥ ${data.settings.minSimilarity}, FTS ≥ ${data.settings.ftsFloor})`
                : "off"}
            </dd>
            <dt>weights</dt>
            <dd>
              vector {data.settings.weights.vector} · FTS {data.settings.weights.fts} · anchor{" "}
              {data.settings.weights.anchor}
            </dd>
            <dt>importance weight</dt>
            <dd>{data.settings.importanceWeight}</dd>
            <dt>minimum confidence</dt>
            <dd>{data.minConfidence}</dd>
            <dt>memory techniques</dt>
            <dd data-testid="techniques-off">
              {techniquesOff.length ? `off: ${techniquesOff.map((t) => t.label.toLowerCase()).join(", ")}` : "all on"}
            </dd>
            <dt>dates in the query</dt>
            <dd data-testid="time-windows">
              {data.time.windows.length
                ? data.time.windows.map((w) => `“${w.text}” ${localDate(w.start)}…${localDate(w.end)}`).join("; ")
                : "none"}
            </dd>
          </dl>
        </div>
      </div>

      {data.results.length === 0 ? (
        <p className="text-sm">No memory matched.</p>
      ) : (
        <WouldBePacked
          results={data.results}
          minConfidence={data.minConfidence}
          topN={data.settings.topN}
          pool={data.pool}
          chatPool={candidatePool(rankDepth(data.settings.topN))}
        />
      )}
      <ol className="space-y-3">
        {data.results.map((r, i) => (
          <ResultCard
            key={r.id}
            r={r}
            rank={i + 1}
            poolUsed={poolUsed}
            rrfMax={rrfMax}
            finalMax={finalMax}
            minConfidence={data.minConfidence}
          />
        ))}
      </ol>
      {data.dropped.length > 0 && (
        <details open className="rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800" data-testid="dropped">
          <summary className="cursor-pointer">{data.dropped.length} candidates dropped by the quality filter</summary>
          <ul className="mt-2 space-y-2">
            {data.dropped.map((d) => (
              <li key={d.id} className="text-xs" data-testid="dropped-item">
                <div className="flex flex-wrap items-center gap-2">
                  <span className={`rounded px-2 py-0.5 font-medium ${MATCH_BADGE[d.matchType]}`}>{d.matchType}</span>
                  <span className="text-zinc-500">{d.reason}</span>
                </div>
                <div className="mt-0.5 break-words text-zinc-700 dark:text-zinc-300">
                  {d.content.length > 200 ? `${d.content.slice(0, 200)}…` : d.content}
                </div>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
