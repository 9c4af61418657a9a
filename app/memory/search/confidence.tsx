/** Debug Search: each result's calibrated confidence with what moved it, and what a prompt would get. */

export function ConfidenceLine({
  confidence,
  minConfidence,
  moves,
}: {
  confidence: number | undefined;
  minConfidence: number;
  moves: string[] | undefined;
}) {
  const c = confidence ?? 0;
  const packed = c >= minConfidence;
  return (
    <div className="space-y-1 text-xs" data-testid="confidence">
      <div
        className="flex items-center gap-2"
        title="Calibrated confidence that this memory is relevant (0–1); packed into a prompt at or above the minimum confidence"
      >
        <span className="w-20 shrink-0 text-zinc-500">confidence</span>
        <div
          className="relative h-2 flex-1 rounded bg-zinc-200 dark:bg-zinc-800"
          role="meter"
          aria-label="confidence"
          aria-valuenow={c}
          aria-valuemin={0}
          aria-valuemax={1}
        >
          <div
            className={`h-2 rounded ${packed ? "bg-emerald-600 dark:bg-emerald-400" : "bg-zinc-400 dark:bg-zinc-600"}`}
            style={{ width: `${Math.max(2, c * 100)}%` }}
          />
          <div
            className="absolute top-[-2px] h-3 w-px bg-red-600"
            style={{ left: `${minConfidence * 100}%` }}
            aria-hidden="true"
          />
        </div>
        <span className="w-16 shrink-0 text-right tabular-nums" data-testid="confidence-value">
          {c.toFixed(2)}
        </span>
      </div>
      {moves && moves.length > 0 && (
        <ul className="flex flex-wrap gap-1" aria-label="What moved it" data-testid="moves">
          {moves.map((m, i) => (
            <li key={i} className="rounded bg-zinc-100 px-1.5 py-0.5 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
              {m}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function WouldBePacked({
  results,
  minConfidence,
  topN,
  pool,
  chatPool,
}: {
  results: { scores: { confidence?: number } }[];
  minConfidence: number;
  topN: number;
  /** This search's candidate pool per list, and a chat turn's: when they differ, so can the ranking. */
  pool?: number;
  chatPool?: number;
}) {
  const ranks = results
    .map((r, i) => ((r.scores.confidence ?? 0) >= minConfidence ? i + 1 : 0))
    .filter(Boolean)
    .slice(0, topN);
  return (
    <p className="rounded border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800" data-testid="would-be-packed">
      Would be packed at minimum confidence {minConfidence.toFixed(2)}:{" "}
      {ranks.length ? (
        <strong>
          {ranks.length} of {results.length} (#{ranks.join(", #")})
        </strong>
      ) : (
        <strong>none — no memory used</strong>
      )}
      {pool !== undefined && chatPool !== undefined && pool !== chatPool ? (
        <span className="block text-xs text-zinc-500" data-testid="pool-differs">
          This search ranks with a pool of {pool} per list; a chat turn uses {chatPool} (k up to 10), so its top {topN}{" "}
          can differ.
        </span>
      ) : null}
    </p>
  );
}
