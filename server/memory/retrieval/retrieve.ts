import type Database from "better-sqlite3";
import { defaultOffsetMinutes } from "../../core/calendar";
import type { Embedder } from "../../core/context";
import { applyImportance, qualityFilter, type MatchType } from "./fuse";
import { cleanDenseQuery, keywordSearchScored, type ScoredKeywordHits } from "./keyword-search";
import { confidences, withNeighbours, withTime } from "./rerank";
import { parseTimeIntent, type TimeIntent } from "./time-window";
import type { Features } from "./confidence-features";
import { TURN_LEADERS } from "./confidence";
import { backgroundOf } from "./background";
import { buildQueries, candidatePool, rankDepth, type RetrievalQuery } from "./query-builder";
import { dot, fuseUnion, type Signal } from "./score-union";
import type { RetrievalSettings } from "./settings";
import { readReindexProgress } from "../index/reindex";
import {
  getMemoriesByRid,
  liveInSpace,
  recordRetrievals,
  reindexTarget,
  storedVectors,
  type MemoryKind,
} from "../store";
import { vectorSearchManyWithSource, type VectorSource } from "./vector-search";
import type { StageTimer } from "./stages";
import type { SpeakerSpan } from "../store/chunker";
import { factKeys, NO_FACT_KEYS } from "./fact-keys";
import { factsToPack, knownFactOf, type KnownFact } from "./fact-block";

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

export interface ScoreBreakdown {
  similarity: number | null;
  ftsRank: number | null;
  rrf: number;
  bm25: number | null;
  vectorRank: number | null;
  fused: number;
  final: number;
  /** Calibrated confidence in [0, 1] (confidence.ts); packed and promoted only at or above minConfidence. */
  confidence: number;
}

export interface RetrievedMemory {
  id: string;
  content: string;
  timestamp: string;
  /** When the content was last edited (null: never); recency is the later of the two (recency.ts). */
  updatedAt?: string | null;
  kind: MemoryKind;
  importance: number;
  pinned: boolean;
  retrievalCount: number;
  documentId: string | null;
  chunkIndex: number | null;
  conversationId: string | null;
  /** Who said which part of the content (stored with it); null when not known. */
  speakers: SpeakerSpan[] | null;
  matchType: MatchType;
  scores: ScoreBreakdown;
  /** What moved it: the neighbour bonus, the date window it is in, and the largest parts of its confidence. */
  moves: string[];
  /** The confidence model's inputs, each in [0, 1] (Debug Search; fitting). */
  features?: Features;
  /** Found through one of its facts (fact-keys.ts): that fact. */
  via?: { factId: string; text: string };
  /** The fact it brings to the prompt's "What I know" block when packed (fact-block.ts). */
  fact?: KnownFact;
}

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

/** The part of retrieval after query embedding (what the benchmarks time). */
export function searchWithVectors(
  db: Database.Database,
  req: RetrieveRequest,
  settings: RetrievalSettings,
  queries: RetrievalQuery[],
  vectors: Float32Array[],
  timer?: StageTimer,
): RetrieveResult {
  const k = req.k ?? settings.topN;
  // One ranking for every k up to RANK_DEPTH: the chat's top 6 is Debug Search's and the eval's (query-builder.ts).
  const depth = rankDepth(k);
  const pool = req.pool ?? candidatePool(depth);
  const found = new Map<number, { vectorRank: number | null; ftsRank: number | null; factRank?: number | null }>();
  const find = (rid: number, leg: "vectorRank" | "ftsRank", rank: number) => {
    const f = found.get(rid) ?? { vectorRank: null, ftsRank: null };
    if (f[leg] === null || f[leg]! > rank) f[leg] = rank;
    found.set(rid, f);
  };
  const matches: { scores: Map<number, number>; weight: number }[] = [];
  const dense: { vector: Float32Array; weight: number }[] = [];
  // The main query's keyword terms (with idf), bm25 ceiling and known share: what the confidence reads.
  let main: Pick<ScoredKeywordHits, "terms" | "ceiling" | "known"> = { terms: [], ceiling: 0, known: 0 };
  let vectorMs = 0;
  let keywordMs = 0;
  let vectorSource: VectorSource | null = null;
  const tStart = process.hrtime.bigint();
  // 1. The legs find candidates: each query's nearest vectors and its best keyword matches. The
  // turn's query vectors are searched in one batched index call (one thread per query).
  let t = process.hrtime.bigint();
  const searched =
    settings.weights.vector > 0 && vectors.length > 0
      ? vectorSearchManyWithSource(db, req.spaceId, vectors.slice(0, queries.length), pool)
      : null;
  vectorMs += ms(t);
  queries.forEach((q, i) => {
    const roleWeight = q.role === "anchor" ? settings.weights.anchor : 1;
    t = process.hrtime.bigint();
    if (searched && vectors[i]) {
      vectorSource = searched.source;
      searched.hits[i]!.forEach((h, r) => find(h.rid, "vectorRank", r + 1));
      dense.push({ vector: vectors[i]!, weight: settings.weights.vector * roleWeight });
    }
    timer?.mark("vector");
    vectorMs += ms(t);
    t = process.hrtime.bigint();
    if (settings.weights.fts > 0) {
      const scored = keywordSearchScored(db, req.spaceId, q.text, pool, settings);
      if (q.role === "main") main = scored;
      scored.hits.forEach((h, r) => find(h.rid, "ftsRank", r + 1));
      if (scored.match) matches.push({ scores: scored.scores, weight: settings.weights.fts * roleWeight });
    }
    timer?.mark("keyword");
    keywordMs += ms(t);
  });
  // Facts as extra keys (fact-keys.ts): the main query's matches among the space's facts, lifted to their
  // source memories, which join the union.
  const mainQuery = queries.find((q) => q.role === "main") ?? queries[0];
  const fk =
    mainQuery && (settings.weights.factVector > 0 || settings.weights.factFts > 0)
      ? factKeys(
          db,
          req.spaceId,
          { text: mainQuery.text, vector: vectors[0] ?? null, model: req.model ?? "universal-sentence-encoder-lite" },
          pool,
          settings,
        )
      : NO_FACT_KEYS;
  for (const [rid, rank] of fk.found) {
    const f = found.get(rid) ?? { vectorRank: null, ftsRank: null };
    found.set(rid, { ...f, factRank: Math.min(f.factRank ?? rank, rank) });
  }
  timer?.mark("facts");
  const tf = process.hrtime.bigint();
  const nowMs = Date.parse(req.now ?? new Date().toISOString());
  const offset = req.tzOffsetMinutes ?? defaultOffsetMinutes(nowMs);
  const time = parseTimeIntent(req.query, new Date(nowMs), offset);
  timer?.mark("dates");
  // 2. Every candidate of the union is scored on every signal (score-union.ts).
  const rids = [...found.keys()];
  const vecs = storedVectors(db, rids);
  const over = (score: (rid: number) => number | undefined) => {
    const out = new Map<number, number>();
    for (const rid of rids) {
      const v = score(rid);
      if (v !== undefined) out.set(rid, v);
    }
    return out;
  };
  const signals: Signal[] = [
    ...dense.map((d) => {
      const scores = over((rid) => (vecs.has(rid) ? dot(d.vector, vecs.get(rid)!) : undefined));
      return { kind: "vector" as const, weight: d.weight, scores };
    }),
    // The keyword leg read every match's bm25 (keywordSearchScored's scores): the union's are looked up.
    ...matches.map((m) => ({ kind: "fts" as const, weight: m.weight, scores: over((rid) => m.scores.get(rid)) })),
    // A memory's facts' best cosine and bm25: two more signals (fact-keys.ts); none when the space has no facts.
    ...(fk.vector.size
      ? [{ kind: "factVector" as const, weight: settings.weights.factVector, scores: over((r) => fk.vector.get(r)) }]
      : []),
    ...(fk.keyword.size
      ? [{ kind: "factFts" as const, weight: settings.weights.factFts, scores: over((r) => fk.keyword.get(r)) }]
      : []),
  ];
  // The main query's own signals: what the breakdown shows.
  const similarity = signals.find((s) => s.kind === "vector")?.scores ?? new Map<number, number>();
  const keyword = signals.find((s) => s.kind === "fts")?.scores ?? new Map<number, number>();
  const fusedRaw = fuseUnion({
    found,
    signals,
    similarity,
    keyword,
    method: settings.fusion,
    rrfK: settings.rrfK,
  });
  timer?.mark("union");
  // The 10 leading results (the ranking depth) pass a share to their neighbours (docs/retrieval.md#neighbour-context).
  const staged0 = withNeighbours(db, fusedRaw, settings, depth);
  timer?.mark("neighbours");
  const rows = getMemoriesByRid(
    db,
    staged0.map((c) => c.rid),
  );
  const timed = withTime(staged0, rows, time, settings);
  const { kept, dropped } = settings.qualityFilter ? qualityFilter(timed, settings) : { kept: timed, dropped: [] };
  const live = kept.filter((c) => rows.get(c.rid) && !rows.get(c.rid)!.softDeleted);
  const weighted = applyImportance(live, (rid) => rows.get(rid), settings.importanceWeight);
  const head = weighted.slice(0, Math.max(k, TURN_LEADERS) + 1);
  timer?.mark("filter");
  // Neighbours lifted into the head were not in the union: their vectors in one read.
  const missing = head.filter((c) => !vecs.has(c.rid)).map((c) => c.rid);
  for (const [rid, v] of storedVectors(db, missing)) vecs.set(rid, v);
  const ordered = head.slice(0, k);
  const conf = confidences(head, {
    model: req.model ?? "universal-sentence-encoder-lite",
    rows,
    queryVector: vectors[0] ?? null,
    vectors: vecs,
    ...main,
    docs: liveInSpace(db, req.spaceId),
    background: backgroundOf(db, req.spaceId, req.model ?? "universal-sentence-encoder-lite"),
    facts: fk,
  });
  timer?.mark("confidence");
  const toResult = (
    c: (typeof ordered)[number] | (typeof dropped)[number],
    final: number,
    confidence: number,
    because: string[],
    f?: Features,
  ): RetrievedMemory | null => {
    const m = rows.get(c.rid);
    if (!m || m.softDeleted) return null;
    const { similarity, ftsRank, rrf, bm25, vectorRank, fused } = c;
    const via = fk.found.has(c.rid) ? fk.best.get(c.rid) : undefined;
    const fact = knownFactOf(db, fk, c.rid, f, time);
    return {
      id: m.id,
      content: m.content,
      timestamp: m.timestamp,
      updatedAt: m.updatedAt,
      kind: m.kind,
      importance: m.importance,
      pinned: m.pinned,
      retrievalCount: m.retrievalCount,
      documentId: m.documentId,
      chunkIndex: m.chunkIndex,
      conversationId: m.conversationId,
      speakers: m.speakers,
      matchType: c.matchType,
      scores: { similarity, ftsRank, rrf, bm25, vectorRank, fused, final, confidence },
      moves: [...c.moves, ...because],
      ...(f ? { features: f } : {}),
      ...(via ? { via: { factId: via.id, text: via.text } } : {}),
      ...(fact ? { fact } : {}),
    };
  };
  const results = ordered
    .map((c, i) =>
      toResult(
        c,
        c.final,
        conf[i]!.confidence,
        [
          ...conf[i]!.because.slice(0, 3).map((b) => `confidence: ${b.feature} +${b.logit.toFixed(2)}`),
          ...(conf[i]!.turnLift >= 0.005
            ? [`confidence: a strong match in this turn +${conf[i]!.turnLift.toFixed(2)}`]
            : []),
        ],
        conf[i]!.features,
      ),
    )
    .filter((r): r is RetrievedMemory => r !== null);
  const droppedOut = dropped
    .slice(0, 50)
    .map((c) => {
      const r = toResult(c, c.fused, 0, []);
      return r ? { ...r, reason: c.reason } : null;
    })
    .filter((r): r is RetrievedMemory & { reason: string } => r !== null);
  const fuseMs = ms(tf);
  const promoted = packable(results, settings.minConfidence);
  if (req.promote && promoted.length)
    recordRetrievals(
      db,
      promoted.map((r) => r.id),
    );
  return {
    results,
    dropped: droppedOut,
    facts: factsToPack(results),
    queries,
    pool,
    vectorSource,
    time,
    minConfidence: settings.minConfidence,
    timings: { embedMs: 0, vectorMs, keywordMs, fuseMs, retrievalMs: ms(tStart), totalMs: ms(tStart) },
  };
}
