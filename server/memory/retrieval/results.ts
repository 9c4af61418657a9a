/**
 * Stage 4 of retrieval: the head's calibrated confidence (`confidences`) and each candidate as a
 * result — its row, scores, what moved it, the fact it was found through and the fact it brings to the prompt.
 */
import type Database from "better-sqlite3";
import type { MemoryKind, MemoryRow } from "../store";
import type { SpeakerSpan } from "../store/chunker";
import type { MatchType } from "./union-fusion";
import type { FeatureName, Features } from "./confidence-features";
import { confidenceModelFor, confidenceOf, contributions, features, withTurnEvidence } from "./confidence";
import { textStems } from "./keyword-search";
import { queryBackground, type Background } from "./background";
import { unitCosine } from "./cosine";
import { knownFactOf, type KnownFact } from "./fact-block";
import type { FactKeys } from "./fact-keys";
import type { Ranked } from "./union-ranking";
import type { Staged } from "./boosts";
import type { TimeIntent } from "./time-window";
import { movesOf, type CandidateSignal } from "./signals";

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
  /** Each signal the stages recorded for it, in stage order (signals.ts): what Debug Search shows. */
  signals: CandidateSignal[];
  /** What moved it, one line per signal that has one (movesOf): the neighbour bonus, the date window it is in, the largest parts of its confidence. */
  moves: string[];
  /** The confidence model's inputs, each in [0, 1] (Debug Search; fitting). */
  features?: Features;
  /** Found through one of its facts (fact-keys.ts): that fact. */
  via?: { factId: string; text: string };
  /** The fact it brings to the prompt's "What I know" block when packed (fact-block.ts). */
  fact?: KnownFact;
}

export interface Confidence {
  confidence: number;
  features: Features;
  /** Features with their share of the logit, largest first (what moved it). */
  because: { feature: FeatureName; logit: number }[];
  /** Logit added for the turn's strongest leading result (withTurnEvidence); 0 when none. */
  turnLift: number;
}

/**
 * Calibrated confidence of each ranked result (confidence.ts), its own and then given the turn's leaders:
 * pass at least the first TURN_LEADERS and one more (the last one's gap), so k does not change it.
 */
export function confidences(
  ranked: (Staged & { final: number; norms?: Record<string, number> })[],
  ctx: {
    model: string;
    rows: Map<number, MemoryRow>;
    queryVector: Float32Array | null;
    vectors: Map<number, Float32Array>;
    /** The main query's kept terms, bm25 ceiling and known share (keyword-search.ts). */
    ceiling: number;
    terms: { stem: string; idf: number }[];
    known: number;
    /** Live memories in the store (bounds idf). */
    docs: number;
    /** The space's background similarity (background.ts); null for a space too small to have one. */
    background: Background | null;
    /** The memories' facts' best scores for the query (fact-keys.ts); absent: no facts. */
    facts?: Pick<FactKeys, "keyword" | "vector" | "ceiling" | "facts">;
  },
): Confidence[] {
  const model = confidenceModelFor(ctx.model, { withFacts: (ctx.facts?.facts.size ?? 0) > 0 });
  const idfSum = ctx.terms.reduce((s, t) => s + t.idf, 0);
  const top = Math.max(1e-9, ranked[0]?.final ?? 0);
  const own0 = queryBackground(ctx.background, ctx.queryVector);
  const own = ranked.map((c, i) => {
    const v = ctx.vectors.get(c.rid);
    const sim = ctx.queryVector && v ? unitCosine(ctx.queryVector, v) : c.similarity;
    const m = ctx.rows.get(c.rid);
    let termShare = 0;
    let rare = 0;
    if (m && idfSum > 0) {
      const stems = textStems(m.content);
      for (const t of ctx.terms) {
        if (!stems.has(t.stem)) continue;
        termShare += t.idf / idfSum;
        rare = Math.max(rare, t.idf);
      }
    }
    const next = ranked[i + 1]?.final ?? 0;
    const f = features(
      {
        similarity: sim,
        keywordShare: c.bm25 !== null && ctx.ceiling > 0 ? -c.bm25 / ctx.ceiling : 0,
        agreement: Math.min(c.norms?.vector ?? 0, c.norms?.fts ?? 0),
        termShare,
        rareMatch: rare / Math.log(Math.max(2, ctx.docs) + 0.5),
        dateMatch: c.dateMatch,
        gap: (c.final - next) / top,
        standout: own0 && sim !== null ? (sim - own0.mean) / own0.sd : null,
        known: ctx.known,
        factKeywordShare:
          ctx.facts && ctx.facts.ceiling > 0 ? (ctx.facts.keyword.get(c.rid) ?? 0) / ctx.facts.ceiling : 0,
        factSimilarity: ctx.facts?.vector.get(c.rid) ?? null,
      },
      model,
      ctx.background,
    );
    return { confidence: confidenceOf(f, model), features: f, because: contributions(f, model) };
  });
  const turn = withTurnEvidence(
    own.map((c) => c.confidence),
    model.turnShare,
  );
  return own.map((c, i) => ({ ...c, confidence: turn[i]!.confidence, turnLift: turn[i]!.lift }));
}

type ConfidenceContext = Parameters<typeof confidences>[1] & { time: TimeIntent; facts: FactKeys };

function toResult(
  db: Database.Database,
  c: Staged & { norms?: Record<string, number> },
  m: MemoryRow | undefined,
  scores: { final: number; confidence: number },
  because: CandidateSignal[],
  fk: FactKeys,
  time: TimeIntent,
  f?: Features,
): RetrievedMemory | null {
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
    scores: { similarity, ftsRank, rrf, bm25, vectorRank, fused, ...scores },
    signals: [...c.signals, ...because],
    moves: movesOf([...c.signals, ...because]),
    ...(f ? { features: f } : {}),
    ...(via ? { via: { factId: via.id, text: via.text } } : {}),
    ...(fact ? { fact } : {}),
  };
}

/** The three largest parts of a result's confidence, and the turn's lift when it counts. */
function confidenceSignals(c: Confidence): CandidateSignal[] {
  return [
    ...c.because.slice(0, 3).map(
      (b): CandidateSignal => ({
        name: "confidence",
        value: c.features[b.feature],
        effect: b.logit,
        note: b.feature,
      }),
    ),
    ...(c.turnLift >= 0.005 ? [{ name: "turnLift" as const, value: c.confidence, effect: c.turnLift }] : []),
  ];
}

/** The first k of the head with their confidence (read given the whole head: the last one's gap needs the next). */
export function rankedResults(
  db: Database.Database,
  head: Ranked[],
  k: number,
  ctx: ConfidenceContext,
): RetrievedMemory[] {
  const conf = confidences(head, ctx);
  return head
    .slice(0, k)
    .map((c, i) =>
      toResult(
        db,
        c,
        ctx.rows.get(c.rid),
        { final: c.final, confidence: conf[i]!.confidence },
        confidenceSignals(conf[i]!),
        ctx.facts,
        ctx.time,
        conf[i]!.features,
      ),
    )
    .filter((r): r is RetrievedMemory => r !== null);
}

/** What the quality filter removed (the first 50), with the reason. */
export function droppedResults(
  db: Database.Database,
  dropped: (Staged & { reason: string })[],
  rows: Map<number, MemoryRow>,
  fk: FactKeys,
  time: TimeIntent,
): (RetrievedMemory & { reason: string })[] {
  return dropped
    .slice(0, 50)
    .map((c) => {
      const r = toResult(db, c, rows.get(c.rid), { final: c.fused, confidence: 0 }, [], fk, time);
      return r ? { ...r, reason: c.reason } : null;
    })
    .filter((r): r is RetrievedMemory & { reason: string } => r !== null);
}
