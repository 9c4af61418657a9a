/**
 * Per-stage cost of a chat turn's retrieval (`npm run bench`'s `stages`; issue 35): an optional timer
 * handed down the search path. Each `mark(stage)` charges the time since the previous mark to that
 * stage, so the stages tile the timed span with no gaps and their sum is the turn. Without a timer the
 * call sites are `timer?.mark(…)`: one optional-chain check, nothing measured, nothing allocated.
 */

/** The stages of a turn, in pipeline order (server/chat/turn-recall.ts → search.ts → retrieve.ts). */
export const STAGES = [
  /** Space check, active model, the store's retrieval settings (search.ts). */
  "settings",
  /** Query building, the time intent, the dense leg's cleaned texts (document frequencies). */
  "queries",
  /** Query embedding (the model's cost; the bench serves precomputed vectors and measures it apart). */
  "embed",
  /** The vector leg: every query's ANN (or vec0) search. */
  "vector",
  /** The keyword leg: every query's term selection and FTS5 search. */
  "keyword",
  /** The dates the question names, parsed (chrono-node) into windows. */
  "dates",
  /** The union scored on every signal: stored vectors read, cosines, bm25 within the union, fusion. */
  "union",
  /** Neighbour context of the leading results. */
  "neighbours",
  /** Memory rows read, date windows, quality filter, importance. */
  "filter",
  /** Calibrated confidence of the head (background, term shares). */
  "confidence",
  /** Results and dropped candidates built; document names joined. */
  "results",
  /** Packing under the token budget and promotion (turn-recall.ts). */
  "pack",
] as const;

export type Stage = (typeof STAGES)[number];

export class StageTimer {
  readonly ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  private last = performance.now();

  /** Start (or restart) the clock without charging anything: the span before is not a stage. */
  start(): void {
    this.last = performance.now();
  }

  /** Charge the time since the previous mark (or start) to `stage`. */
  mark(stage: Stage): void {
    const now = performance.now();
    this.ms[stage] += now - this.last;
    this.last = now;
  }
}
