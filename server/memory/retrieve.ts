import type Database from "better-sqlite3";
import { defaultOffsetMinutes } from "../core/calendar";
import type { Embedder } from "../core/context";
import { applyImportance, fuse, qualityFilter, type MatchType, type RankedList } from "./fuse";
import { statedQuestions } from "./question-frame";
import {
  cleanDenseQuery,
  keywordSearchScored,
  liveMemoryCount,
  namesToldOf,
  thingsToldOf,
  speakersNamed,
  speakerTest,
  unknownNames,
} from "./keyword-search";
import {
  confidences,
  memoryDate,
  memoryVectors,
  fewerRepeats,
  newerFirst,
  type Staged,
  withIntent,
  withNeighbours,
  withTime,
} from "./rerank";
import { queryIntent, speakerIntent, turnIntent } from "./personal";
import { parseTimeIntent, windowWords, type TimeIntent } from "./time-window";
import { withEventWindows } from "./event-dates";
import { windowList } from "./windows";
import type { Features } from "./confidence-features";
import { TURN_LEADERS } from "./confidence";
import { buildQueries, candidatePool, rankDepth, type RetrievalQuery } from "./query-builder";
import type { RetrievalSettings } from "./settings";
import { readReindexProgress } from "./reindex";
import { getMemoriesByRid, recordRetrievals, reindexTarget, type MemoryKind } from "./store";
import { vectorSearchWithSource, type VectorSource } from "./vector-search";

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
  /**
   * The person's time zone, minutes east of UTC, for calendar days ("yesterday", "in May", "the day after the concert");
   * default: this server's, which for a local-first app is the person's.
   */
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
  matchType: MatchType;
  scores: ScoreBreakdown;
  /** What moved it: neighbour bonus, date window, recency, newer-than-duplicate, and the confidence's main features. */
  moves: string[];
  /** The confidence model's inputs, each in [0, 1] (Debug Search; fitting). */
  features?: Features;
}

export interface RetrieveResult {
  results: RetrievedMemory[];
  /** Candidates the quality filter removed, with the reason. */
  dropped: (RetrievedMemory & { reason: string })[];
  queries: RetrievalQuery[];
  /** What the dense leg embedded for each query (denseTexts); empty when the vector leg did not run. */
  dense?: string[];
  pool: number;
  timings: {
    embedMs: number;
    vectorMs: number;
    keywordMs: number;
    fuseMs: number;
    retrievalMs: number;
    totalMs: number;
  };
  /** Where the vector leg was served from: the in-memory ANN index, or vec0 while it is not ready. */
  vectorSource: VectorSource | null;
  /** Set while results are keyword-only because the store is re-indexing for a new embedding model. */
  notice?: string;
  /** Dates the query named and whether it asked for recent memories. */
  time: TimeIntent;
  /** The threshold in force: results at or above it are what a prompt would get (and what is promoted). */
  minConfidence: number;
}

/** The results a prompt gets: at or above the minimum confidence. */
export function packable<T extends { scores: { confidence: number } }>(results: T[], minConfidence: number): T[] {
  return results.filter((r) => r.scores.confidence >= minConfidence);
}

/**
 * What the dense leg embeds for each query: the text cleaned of very common words and of date words,
 * and its questions stated (question-frame.ts) where the model's settings say so.
 */
export function denseTexts(
  db: Database.Database,
  spaceId: string,
  queries: RetrievalQuery[],
  settings: RetrievalSettings,
  time: TimeIntent,
): string[] {
  return queries.map((q) => {
    let text = q.text;
    for (const w of [...time.windows.map((x) => x.text), ...time.events.map((e) => e.lead)])
      text =
        text
          .replace(w, " ")
          .replace(/\s{2,}/g, " ")
          .replace(/\s+(?=[?.!,;:])/g, "")
          .trim() || q.text;
    const cleaned = cleanDenseQuery(db, spaceId, text, settings.denseMaxDocFraction).text;
    return settings.denseQuestionAsStatement ? statedQuestions(cleaned) : cleaned;
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
): Promise<RetrieveResult> {
  const t0 = process.hrtime.bigint();
  // docs/architecture.md#models-and-providers: while the store re-embeds for a new model, memory_vec holds the old model's vectors and the
  // embedder serves the new one, so no query vector can be compared with them: keyword leg only until
  // the swap (server/memory/reindex.ts), and the result says so.
  const reindex = reindexTarget(db);
  if (reindex) settings = { ...settings, weights: { ...settings.weights, vector: 0 } };
  const queries = buildQueries(req.query, req.context ?? [], {
    contextMessages: settings.contextMessages,
    anchorQuery: settings.anchorQuery,
  });
  const time = parseTimeIntent(req.query, new Date(req.now ?? Date.now()));
  const dense = settings.weights.vector > 0 ? denseTexts(db, req.spaceId, queries, settings, time) : [];
  const vectors = dense.length ? await embedder.embedQueries(dense) : [];
  const embedMs = ms(t0);
  const out = searchWithVectors(db, req, settings, queries, vectors);
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
): RetrieveResult {
  const k = req.k ?? settings.topN;
  // One ranking for every k up to RANK_DEPTH: the chat's top 6 is Debug Search's and the eval's (query-builder.ts).
  const depth = rankDepth(k);
  const pool = req.pool ?? candidatePool(depth);
  const lists: RankedList[] = [];
  let ftsTerms: { stem: string; idf: number }[] = [];
  let vectorMs = 0;
  let keywordMs = 0;
  let vectorSource: VectorSource | null = null;
  const tStart = process.hrtime.bigint();
  queries.forEach((q, i) => {
    const roleWeight = q.role === "anchor" ? settings.weights.anchor : 1;
    let t = process.hrtime.bigint();
    if (settings.weights.vector > 0) {
      const { hits, source } = vectorSearchWithSource(db, req.spaceId, vectors[i]!, pool);
      vectorSource = source;
      lists.push({
        kind: "vector",
        weight: settings.weights.vector * roleWeight,
        items: hits.map((h) => ({ rid: h.rid, score: h.similarity })),
      });
    }
    vectorMs += ms(t);
    t = process.hrtime.bigint();
    if (settings.weights.fts > 0) {
      const { hits, ceiling, terms } = keywordSearchScored(db, req.spaceId, q.text, pool, settings);
      if (q.role === "main") ftsTerms = terms;
      lists.push({
        kind: "fts",
        weight: settings.weights.fts * roleWeight,
        ceiling,
        items: hits.map((h) => ({ rid: h.rid, score: -h.bm25 })),
      });
    }
    keywordMs += ms(t);
  });
  const tf = process.hrtime.bigint();
  const nowMs = Date.parse(req.now ?? new Date().toISOString());
  const mainVector = lists.find((l) => l.kind === "vector");
  const offset = req.tzOffsetMinutes ?? defaultOffsetMinutes(nowMs);
  const time = withEventWindows(
    db,
    req.spaceId,
    parseTimeIntent(req.query, new Date(nowMs), offset),
    nowMs,
    mainVector?.items ?? [],
    offset,
  );
  // Memories inside a named date window join as candidates (windows.ts), ranked by similarity to the query.
  const inWindow =
    settings.weights.vector > 0 && vectors[0]
      ? windowList(db, req.spaceId, time.windows, vectors[0], settings.windowWeight * settings.weights.vector)
      : null;
  if (inWindow) lists.push(inWindow);
  const fusedRaw = fuse(lists, settings.fusion, settings.rrfK);
  // The 10 leading results (the ranking depth) pass a share to their neighbours: 20 cost 0.4–0.6 ms a
  // turn for the same recall (docs/retrieval.md#neighbour-context).
  const staged0 = withNeighbours(db, fusedRaw, settings, depth);
  const rows = getMemoriesByRid(
    db,
    staged0.map((c) => c.rid),
  );
  // The personal boost reorders by the message's own first-person words; the confidence also reads the
  // turn's other signs (a request to recount, "pops", the conversation's frame: "Is he walking yet?" after
  // a message about Dad). Boosting those too cost recall on the eval's tuning half
  // (docs/retrieval.md#filtering-and-confidence).
  const own = queryIntent(req.query);
  // A question naming a speaker of an imported conversation asks about their life (personal.ts speakerIntent).
  const speaks = speakerTest(db, req.spaceId);
  const named = own === "general" ? speakersNamed(db, req.spaceId, req.query, speaks) : [];
  const bySpeaker = speakerIntent(req.query, named);
  const speakers = bySpeaker ? named : [];
  const intent = bySpeaker ?? own;
  const timed = withTime(staged0, rows, time, settings, nowMs);
  // A past date window the query names that holds memories of the space ("What happened with the garden
  // in May?"): the turn asks about the person's history, whoever it names (personal.ts turnIntent).
  const historyDate = historyWindowText(timed, nowMs);
  const turn = turnIntent(
    req.query,
    req.context ?? [],
    (t) => namesToldOf(db, req.spaceId, t, speaks),
    historyDate,
    speakers,
  );
  // Only a turn nothing else reads as personal asks whether it names a thing the person told of.
  const things = turn.intent === "general" ? thingsToldOf(db, req.spaceId, req.query, speaks) : [];
  const staged = withIntent(timed, rows, intent, settings, speakers);
  const { kept, dropped } = settings.qualityFilter ? qualityFilter(staged, settings) : { kept: staged, dropped: [] };
  const live = kept.filter((c) => rows.get(c.rid) && !rows.get(c.rid)!.softDeleted);
  const weighted = applyImportance(live, (rid) => rows.get(rid), settings.importanceWeight);
  // Near-duplicate check and confidence need the stored vectors of the leading results only.
  const head = weighted.slice(0, depth + 10);
  const vecs = memoryVectors(
    db,
    head.map((c) => c.rid),
  );
  const dated = (rid: number) => memoryDate(rows.get(rid)!);
  const orderedHead = fewerRepeats(
    newerFirst(head, dated, vecs, settings.duplicateSimilarity),
    vecs,
    settings.repeatSimilarity,
  );
  const ordered = orderedHead.slice(0, k);
  const ceiling = lists.find((l) => l.kind === "fts")?.ceiling ?? 0;
  const unknown = unknownNames(db, req.spaceId, req.query);
  // The turn's evidence reads the first TURN_LEADERS whatever k is (confidence.ts withTurnEvidence).
  const conf = confidences(orderedHead.slice(0, Math.max(k, TURN_LEADERS)), {
    model: req.model ?? "universal-sentence-encoder-lite",
    rows,
    queryVector: vectors[0] ?? null,
    vectors: vecs,
    ceiling,
    terms: ftsTerms,
    docs: liveMemoryCount(db),
    intent: turn.intent,
    speakers,
    unknownNames: unknown,
    thingsToldOf: things,
  });
  const toResult = (
    c: (typeof ordered)[number] | (typeof dropped)[number],
    final: number,
    confidence: number,
    because: string[],
    f?: Features,
  ): RetrievedMemory | null => {
    const m = rows.get(c.rid);
    if (!m || m.softDeleted) return null;
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
      matchType: c.matchType,
      scores: {
        similarity: c.similarity,
        ftsRank: c.ftsRank,
        rrf: c.rrf,
        bm25: c.bm25,
        vectorRank: c.vectorRank,
        fused: c.fused,
        final,
        confidence,
      },
      moves: [...c.moves, ...because],
      ...(f ? { features: f } : {}),
    };
  };
  const results = ordered
    .map((c, i) =>
      toResult(
        c,
        c.final,
        conf[i]!.confidence,
        [
          ...conf[i]!.because.slice(0, 2).map((b) => `confidence: ${b.feature} +${b.logit.toFixed(2)}`),
          ...(conf[i]!.turnLift >= 0.005
            ? [`confidence: a strong match in this turn +${conf[i]!.turnLift.toFixed(2)}`]
            : []),
          ...(unknown.length ? [`confidence: no memory mentions ${unknown.join(", ")}`] : []),
          ...(turn.sign ? [`confidence: about the person's life (${turn.sign})`] : []),
          ...(things.length ? [`confidence: the person has told about the ${things.join(", the ")}`] : []),
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
    queries,
    pool,
    vectorSource,
    time,
    minConfidence: settings.minConfidence,
    timings: { embedMs: 0, vectorMs, keywordMs, fuseMs, retrievalMs: ms(tStart), totalMs: ms(tStart) },
  };
}

/**
 * The words of the first date window that lies wholly before the turn and holds one of its candidates
 * (withTime records each candidate's window), or null. A window around now ("today", "this week")
 * holds the person's latest memories whatever they ask ("What should I cook today?"), so it is no sign
 * that they ask about their history.
 */
function historyWindowText(cands: Staged[], nowMs: number): string | null {
  const w = cands.find((c) => c.dateWindow && Date.parse(c.dateWindow.end) < nowMs)?.dateWindow;
  return w ? windowWords(w) : null;
}
