import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { isoLocalDateTime as localDateTime } from "../../_ui/local-time";
import { WhoseBadge } from "../../_ui/whose-badge";
import { MATCH_BADGE } from "../../_ui/styles";
import { ConfidenceLine } from "./confidence";
import { SignalBreakdown } from "./signal-breakdown";

function Bar({
  label,
  value,
  max,
  text,
  tone = "bg-zinc-600 dark:bg-zinc-300",
}: {
  label: string;
  value: number | null;
  max: number;
  text: string;
  tone?: string;
}) {
  const pct = value === null || max <= 0 ? 0 : Math.max(2, Math.min(100, (value / max) * 100));
  return (
    <div className="flex items-center gap-2 text-xs" title={`${label}: ${text}`}>
      <span className="w-20 shrink-0 text-zinc-500">{label}</span>
      <div
        className="h-2 flex-1 rounded bg-zinc-200 dark:bg-zinc-800"
        role="meter"
        aria-label={label}
        aria-valuenow={value ?? 0}
        aria-valuemin={0}
        aria-valuemax={max}
      >
        <div className={`h-2 rounded ${tone}`} style={{ width: `${pct}%` }} />
      </div>
      <span className="w-16 shrink-0 text-right tabular-nums">{text}</span>
    </div>
  );
}

/** One answer of the search-debug query (server/services/memory-service.ts). */
export type DebugSearchResult = inferRouterOutputs<AppRouter>["memory"]["search"];

/**
 * One result of a debug search (debug-search-results.tsx): where it came from, the line a prompt packs it as,
 * its scores, its confidence with what moved it, and every signal the stages recorded.
 */
export function ResultCard({
  r,
  rank,
  poolUsed,
  rrfMax,
  finalMax,
  minConfidence,
}: {
  r: DebugSearchResult["results"][number];
  rank: number;
  poolUsed: number;
  rrfMax: number;
  finalMax: number;
  minConfidence: number;
}) {
  return (
    <li data-testid="result" className="rounded border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold tabular-nums text-zinc-500">#{rank}</span>
        <span data-testid="match-badge" className={`rounded px-2 py-0.5 font-medium ${MATCH_BADGE[r.matchType]}`}>
          {r.matchType}
        </span>
        <time dateTime={r.timestamp} title={r.timestamp} suppressHydrationWarning>
          {localDateTime(r.timestamp)}
        </time>
        <span>importance {r.importance}</span>
        <span>retrieved {r.retrievalCount}×</span>
        {r.pinned && <span className="rounded bg-zinc-200 px-1 dark:bg-zinc-800">pinned</span>}
        <span className="text-zinc-500">{r.kind}</span>
        <WhoseBadge whose={r.whose} />
        {r.documentName && (
          <span
            data-testid="result-source"
            title="The ingested document this memory came from"
            className="min-w-0 break-all rounded bg-emerald-100 px-1.5 py-0.5 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
          >
            from {r.documentName}
            {r.chunkIndex !== null && ` · chunk ${r.chunkIndex + 1}`}
          </span>
        )}
      </div>
      <p className="whitespace-pre-wrap break-words text-sm">{r.content}</p>
      {/* The line a chat prompt packs it as: the writer's label and date the model sees (memory-block.ts packedLine). */}
      <details className="mt-1 text-xs" data-testid="packed-as">
        <summary className="cursor-pointer text-zinc-500">
          in a prompt: {r.source.writer ? `${r.source.writer}'s words` : "the user's own"}
          {r.source.space ? ` · ${r.source.space.owner}'s space “${r.source.space.name}”` : ""}
          {r.source.imported
            ? ` · imported${r.source.imported === "imported" ? "" : ` from ${r.source.imported}`}`
            : ""}
          {r.source.restated ? " · a reply restating recall" : ""}
        </summary>
        <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 font-mono text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
          {r.packedAs}
        </pre>
      </details>
      {(r.via || r.fact) && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="debug-fact">
          {r.via && <span>found through the fact “{r.via.text}”</span>}
          {r.via && r.fact && " · "}
          {r.fact && (
            <span>
              packs “{r.fact.text}” {r.fact.current ? "as current" : "as it held then"}
            </span>
          )}
        </p>
      )}
      <div className="mt-2 space-y-1">
        <Bar
          label="similarity"
          value={r.scores.similarity}
          max={1}
          text={r.scores.similarity === null ? "—" : r.scores.similarity.toFixed(3)}
          tone="bg-sky-600 dark:bg-sky-400"
        />
        <Bar
          label="FTS rank"
          value={r.scores.ftsRank === null ? null : poolUsed + 1 - r.scores.ftsRank}
          max={poolUsed}
          text={r.scores.ftsRank === null ? "—" : `#${r.scores.ftsRank}`}
          tone="bg-amber-600 dark:bg-amber-400"
        />
        <Bar
          label="RRF"
          value={r.scores.rrf}
          max={rrfMax}
          text={r.scores.rrf.toFixed(4)}
          tone="bg-violet-600 dark:bg-violet-400"
        />
        {/* The score the results are ranked by: the configured fusion (RRF or linear) plus importance. */}
        <Bar label="score" value={r.scores.final} max={finalMax} text={r.scores.final.toFixed(3)} />
        <ConfidenceLine confidence={r.scores.confidence} minConfidence={minConfidence} moves={r.moves} />
        <SignalBreakdown signals={r.signals} />
      </div>
    </li>
  );
}
