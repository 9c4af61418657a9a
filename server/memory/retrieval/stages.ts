/**
 * Per-stage cost of a turn's retrieval (`npm run bench`'s `stages`): each `mark(stage)` charges the time
 * since the previous mark, so the stages tile the turn. Without a timer `timer?.mark(…)` costs nothing.
 */

/**
 * The stages of a turn, declared once, in pipeline order (server/chat/turn-recall.ts → search.ts → retrieve.ts
 * → candidates.ts, union-scoring.ts, union-ranking.ts, results.ts): each marks its end, and stages.test.ts
 * fails when one does not. A signal names the stage that records it (signals.ts).
 */
export const STAGES = [
  "settings", // space check, active model, the store's retrieval settings (search.ts)
  "queries", // query building, the time intent, the dense leg's cleaned texts (document frequencies)
  "embed", // query embedding (the bench serves precomputed vectors and measures it apart)
  "vector", // every query's ANN (or vec0) search
  "keyword", // every query's term selection and FTS5 search
  "facts", // the space's facts scored for the main query (fact-keys.ts), their sources added to the union
  "dates", // the dates the question names, parsed (chrono-node) into windows
  "union", // the union scored on every signal: stored vectors, cosines, bm25, fusion
  "neighbours", // neighbour context of the leading results
  "filter", // memory rows read, date windows, provenance, quality filter, importance
  "confidence", // calibrated confidence of the head (background, term shares)
  "factLeg", // the current facts the question matches on their own evidence (fact-leg.ts)
  "results", // results and dropped candidates built; document names joined
  "profile", // the profile's facts ranked (profile.ts, turn-recall.ts)
  "pack", // packing under the token budget and promotion (turn-recall.ts)
] as const;

export type Stage = (typeof STAGES)[number];

export class StageTimer {
  readonly ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  /** The stages that recorded a mark: one that did not has charged its time to the next (stages.test.ts). */
  readonly marked = new Set<Stage>();
  private last = performance.now();

  /** Start (or restart) the clock without charging anything: the span before is not a stage. */
  start(): void {
    this.last = performance.now();
  }

  /** Charge the time since the previous mark (or start) to `stage`. */
  mark(stage: Stage): void {
    const now = performance.now();
    this.ms[stage] += now - this.last;
    this.marked.add(stage);
    this.last = now;
  }
}
