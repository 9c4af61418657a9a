import type Database from "better-sqlite3";
import { defaultOffsetMinutes } from "../../core/calendar";
import type { Embedder } from "../../core/context";
import { cleanDenseQuery } from "./keyword-search";
import { parseTimeIntent, type TimeIntent } from "./time-window";
import { buildQueries, candidatePool, rankDepth, type RetrievalQuery } from "./query-builder";
import type { RetrievalSettings } from "./settings";
import { readReindexProgress } from "../index/reindex";
import { liveInSpace, recordRetrievals, reindexTarget } from "../store";
import type { VectorSource } from "./vector-search";
import type { StageTimer } from "./stages";
import { factsToPack, type KnownFact } from "./fact-block";
import { findCandidates } from "./candidates";
import { scoreUnion } from "./union-scoring";
import { rankUnion } from "./union-ranking";
import { informativeWindows } from "./window-coverage";
import { backgroundOf } from "./background";
import { factLeg, type LegFact } from "./fact-leg";
import { currentFactStrengths } from "./fact-keys";
import { droppedResults, rankedResults } from "./results";

export interface RetrieveRequest {
  query: string;
  spaceId: string;
  /** Results wanted (default: settings.topN). */
  k?: number;
  /** Earlier user messages of the conversation, oldest first. */
  context?: string[];
  /** Count this as a recall into a prompt (retrieval_count +1, importance promoted). */
  promote?: boolean;
  /** Candidate pool per list; default candidatePool(k) (docs/retrieval.md#hybrid-search). Debug Search overrides it. */
  pool?: number;
  /** The turn's date (ISO), what "last week" is resolved against: now, or an imported conversation's date. */
  now?: string;
  /** The person's time zone, minutes east of UTC, for calendar days; default this server's (local-first: theirs). */
  tzOffsetMinutes?: number;
  /** Embedding model id (picks the confidence coefficients); default USE-lite's. */
  model?: string;
}

export type { RetrievedMemory, ScoreBreakdown } from "./results";
import type { RetrievedMemory } from "./results";

export interface RetrieveResult {
  results: RetrievedMemory[];
  /** Candidates the quality filter removed, with the reason. */
  dropped: (RetrievedMemory & { reason: string })[];
  queries: RetrievalQuery[];
  /** What the dense leg embedded for each query (denseTexts); empty when the vector leg did not run. */
  dense?: string[];
  pool: number;
  timings: Record<"embedMs" | "vectorMs" | "keywordMs" | "fuseMs" | "retrievalMs" | "totalMs", number>;
  /** Where the vector leg was served from: the in-memory ANN index, or vec0 while it is not ready. */
  vectorSource: VectorSource | null;
  /** Set while results are keyword-only because the store is re-indexing for a new embedding model. */
  notice?: string;
  /** Dates the query named and whether it asked for recent memories. */
  time: TimeIntent;
  /** The threshold in force: results at or above it are what a prompt would get (and what is promoted). */
  minConfidence: number;
  /** The facts the results carry (fact-block.ts), current ones first, in the results' order. */
  facts: KnownFact[];
  /** Current facts the question matched on their own evidence (fact-leg.ts), best first. */
  factLeg: LegFact[];
  /** Every current fact's strength for the question (fact-keys.ts factStrength), by id: orders the profile's lines. */
  factStrengths: Map<string, number>;
}

/** The results a prompt gets: at or above the minimum confidence. */
export function packable<T extends { scores: { confidence: number } }>(results: T[], minConfidence: number): T[] {
  return results.filter((r) => r.scores.confidence >= minConfidence);
}

/** What the dense leg embeds for each query: the text cleaned of very common words and of date words. */
export function denseTexts(
  db: Database.Database,
  spaceId: string,
  queries: RetrievalQuery[],
  settings: RetrievalSettings,
  time: TimeIntent,
): string[] {
  return queries.map((q) => {
    let text = q.text;
    for (const w of time.windows.map((x) => x.text))
      text =
        text
          .replace(w, " ")
          .replace(/\s{2,}/g, " ")
          .replace(/\s+(?=[?.!,;:])/g, "")
          .trim() || q.text;
    return cleanDenseQuery(db, spaceId, text, settings.denseMaxDocFraction).text;
  });
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Hybrid retrieval (docs/retrieval.md): build the queries, embed them, run vector KNN and FTS5 for
 * each, fuse, filter weak single-leg results, nudge by importance, and return the top k.
 */
export async function retrieve(
  db: Database.Database,
  embedder: Embedder,
  req: RetrieveRequest,
  settings: RetrievalSettings,
  timer?: StageTimer,
): Promise<RetrieveResult> {
  const t0 = process.hrtime.bigint();
  // While the store re-embeds for a new model (index/reindex.ts) no query vector compares with memory_vec's:
  // keyword leg only until the swap, and the result says so (docs/architecture.md#models-and-providers).
  const reindex = reindexTarget(db);
  if (reindex) settings = { ...settings, weights: { ...settings.weights, vector: 0 } };
  const queries = buildQueries(req.query, req.context ?? [], settings);
  const time = parseTimeIntent(req.query, new Date(req.now ?? Date.now()));
  const dense = settings.weights.vector > 0 ? denseTexts(db, req.spaceId, queries, settings, time) : [];
  timer?.mark("queries");
  const vectors = dense.length ? await embedder.embedQueries(dense) : [];
  timer?.mark("embed");
  const embedMs = ms(t0);
  const out = searchWithVectors(db, req, settings, queries, vectors, timer);
  const p = reindex ? readReindexProgress(db) : null;
  const notice = reindex
    ? `Memories are being re-indexed for ${reindex.model}${p ? ` (${p.done}/${p.total})` : ""}: keyword matches only until it completes.`
    : undefined;
  return { ...out, dense, ...(notice ? { notice } : {}), timings: { ...out.timings, embedMs, totalMs: ms(t0) } };
}

/**
 * The part of retrieval after query embedding (what the benchmarks time), stage by stage: the legs find
 * candidates (candidates.ts), the union is scored (union-scoring.ts), re-ranked (union-ranking.ts), given its
 * confidence (results.ts); the facts leg reads the same fact scores (fact-leg.ts).
 */
export function searchWithVectors(
  db: Database.Database,
  req: RetrieveRequest,
  settings: RetrievalSettings,
  queries: RetrievalQuery[],
  vectors: Float32Array[],
  timer?: StageTimer,
): RetrieveResult {
  const tStart = process.hrtime.bigint();
  const k = req.k ?? settings.topN;
  // One ranking for every k up to RANK_DEPTH: the chat's top 6 is Debug Search's and the eval's (query-builder.ts).
  const depth = rankDepth(k);
  const pool = req.pool ?? candidatePool(depth);
  const model = req.model ?? "universal-sentence-encoder-lite";
  // 1. The legs find candidates.
  const c = findCandidates(db, { spaceId: req.spaceId, model }, settings, queries, vectors, pool, timer);
  const tf = process.hrtime.bigint();
  const nowMs = Date.parse(req.now ?? new Date().toISOString());
  const offset = req.tzOffsetMinutes ?? defaultOffsetMinutes(nowMs);
  // A window that holds most of the space is no signal (window-coverage.ts).
  const { time } = informativeWindows(
    db,
    req.spaceId,
    parseTimeIntent(req.query, new Date(nowMs), offset),
    settings.maxWindowShare,
  );
  timer?.mark("dates");
  // 2. Every candidate of the union scored on every signal, fused.
  const { fused, vectors: stored } = scoreUnion(db, c, settings);
  timer?.mark("union");
  // 3. Re-ranked: neighbours, dates, provenance, filter, importance.
  const { rows, head, dropped } = rankUnion(db, fused, settings, time, { depth, k, timer });
  // 4. Confidence of the head, and the results.
  const docs = liveInSpace(db, req.spaceId);
  const background = backgroundOf(db, req.spaceId, model);
  const results = rankedResults(db, head, k, {
    model,
    rows,
    queryVector: vectors[0] ?? null,
    vectors: stored,
    ...c.main,
    docs,
    background,
    facts: c.facts,
    time,
  });
  timer?.mark("confidence");
  const legFacts = factLeg(
    c.scoredFacts,
    { queryVector: vectors[0] ?? null, terms: c.main.terms, known: c.main.known, docs, background },
    settings.factMinConfidence,
  );
  timer?.mark("factLeg");
  const fuseMs = ms(tf);
  const promoted = packable(results, settings.minConfidence);
  if (req.promote && promoted.length)
    recordRetrievals(
      db,
      promoted.map((r) => r.id),
    );
  return {
    results,
    dropped: droppedResults(db, dropped, rows, c.facts, time),
    facts: factsToPack(results),
    factLeg: legFacts,
    factStrengths: currentFactStrengths(c.scoredFacts),
    queries,
    pool,
    vectorSource: c.vectorSource,
    time,
    minConfidence: settings.minConfidence,
    timings: {
      embedMs: 0,
      vectorMs: c.vectorMs,
      keywordMs: c.keywordMs,
      fuseMs,
      retrievalMs: ms(tStart),
      totalMs: ms(tStart),
    },
  };
}
