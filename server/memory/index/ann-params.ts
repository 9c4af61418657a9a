/** The ANN index's tuning (usearch HNSW build parameters, slices, catch-up and heal timings, search width) and its public types. */

export type AnnState = "empty" | "building" | "ready" | "catching-up" | "stale" | "failed";

export const CONNECTIVITY = 16;
export const EXPANSION_ADD = 64;
/** Build parameters recorded with a saved index: a file saved under others is rebuilt. */
export const PARAMS = `usearch-f16-cos-M${CONNECTIVITY}-efc${EXPANSION_ADD}`;
export const SLICE = 512;
/** Log rows replayed before the search that found them; more go to the background. */
export const SYNC_REPLAY = 256;
/** How often a ready index looks for other processes' writes without waiting for a search (ms). */
export const POLL_MS = 1000;
/** Rebuild delays after failures: the first heal starts at once, repeated failures back off. */
export const BACKOFF_MS = [0, 1000, 5000, 30_000, 120_000];
/**
 * One insertion thread: usearch 2.26's JS binding inserts a batch on several threads without giving each
 * its own thread slot, which corrupted the graph here (self-queries returned other vectors). Measured.
 */
export const BUILD_THREADS = 1;

/**
 * Candidates the graph search collects (its ef) for a space of `size` vectors: HNSW recall at a fixed
 * width falls as the graph grows, so it widens with size. Measured with `npm run bench` and a sweep of
 * widths on its two vector sets; the harder one (Gaussian with the spectrum of real embeddings, no
 * clusters) sets the widths: recall@10 at 10K 0.995 with 128; at 100K 0.956 with 192, 0.989 with 384,
 * 0.995 with 512. At 1M (fitted set, `npm run bench -- --sizes 1000000 --sets fitted --queries 400
 * --widths …`), on queries 201–400 (1–200 were the ones first looked at): 0.961 with 1024, 0.975 with
 * 1536, 0.987 with 2048 (p50 ~25 ms), 0.994 with 3072 (~36 ms). 1536 looked enough on the first 200 (0.991)
 * and was not on fresh queries.
 */
export function searchWidth(size: number, k: number): number {
  const ef = size <= 20_000 ? 128 : size <= 200_000 ? 512 : 2048;
  return Math.max(k, ef);
}

export interface AnnSearchHit {
  rid: number;
  similarity: number;
}
