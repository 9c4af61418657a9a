import type Database from "better-sqlite3";
import { stmt } from "../core/statements";
import { confidenceModelFor, confidenceOf, contributions, features, withTurnEvidence } from "./confidence";
import type { FeatureName, Features } from "./confidence-features";
import { unscored, type FusedCandidate } from "./fuse";
import { loadNeighbours, propagate } from "./neighbours";
import { textStems } from "./keyword-search";
import type { RetrievalSettings } from "./settings";
import type { MemoryRow } from "./store";
import { recencyOf } from "./recency";
import { inWindows, windowWords, type TimeIntent, type TimeWindow } from "./time-window";
import { suitsIntent, type QueryIntent } from "./personal";

/**
 * Retrieval stages after fusion: neighbour context, time-aware boosts, recency among near-duplicates,
 * and calibrated confidence. Each is a setting (settings.ts) and leaves a line in `moves`, which Debug
 * Search shows.
 */

export interface Staged extends FusedCandidate {
  moves: string[];
  dateMatch: boolean;
  /** The first date window of the query that holds this memory (withTime), when one does. */
  dateWindow?: TimeWindow;
}

/** The date a memory's content is true as of: max(timestamp, updated_at), the one rule in recency.ts. */
export const memoryDate = recencyOf;

/** Neighbour propagation over fused candidates; neighbours that were not candidates join as "neighbour". */
export function withNeighbours(
  db: Database.Database,
  cands: FusedCandidate[],
  s: RetrievalSettings,
  sources: number,
): Staged[] {
  const staged: Staged[] = cands.map((c) => ({ ...c, moves: [], dateMatch: false }));
  if (s.neighbourWeight <= 0 || cands.length === 0) return staged;
  const top = cands.slice(0, sources);
  const adjacent = loadNeighbours(
    db,
    top.map((c) => c.rid),
    s.neighbourGapMinutes,
  );
  const { from } = propagate(new Map(top.map((c) => [c.rid, c.fused])), adjacent, s.neighbourWeight);
  const byRid = new Map(staged.map((c) => [c.rid, c]));
  for (const [rid, f] of from) {
    let c = byRid.get(rid);
    if (!c) {
      c = {
        ...unscored(rid, "neighbour"),
        moves: [],
        dateMatch: false,
      };
      byRid.set(rid, c);
      staged.push(c);
    }
    c.fused = (c.fused ?? 0) + f.bonus;
    c.moves.push(`neighbour +${f.bonus.toFixed(3)} (next to a match)`);
  }
  return staged.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/** A personal question: the person's own statements × (1 + personalBoost) (personal.ts). */
export function withIntent(
  cands: Staged[],
  rows: Map<number, MemoryRow>,
  intent: QueryIntent,
  s: RetrievalSettings,
  speakers: string[] = [],
): Staged[] {
  if (intent !== "personal" || s.personalBoost <= 0) return cands;
  const about = speakers.length ? speakers.join(", ") : "you";
  for (const c of cands) {
    const m = rows.get(c.rid);
    if (!m || !suitsIntent(intent, m.content, speakers)) continue;
    c.fused *= 1 + s.personalBoost;
    c.moves.push(`about ${about} ×${(1 + s.personalBoost).toFixed(2)}`);
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/** Date windows: × (1 + dateBoost) inside; "recently": × (1 + recencyBoost × 2^(−age/half-life)). */
export function withTime(
  cands: Staged[],
  rows: Map<number, MemoryRow>,
  intent: TimeIntent,
  s: RetrievalSettings,
  now: number,
): Staged[] {
  for (const c of cands) {
    const m = rows.get(c.rid);
    if (!m) continue;
    const at = memoryDate(m);
    const w = intent.windows.length ? inWindows(at, intent.windows) : null;
    if (w) {
      c.dateMatch = true;
      c.dateWindow = w;
      if (s.dateBoost > 0) {
        c.fused *= 1 + s.dateBoost;
        c.moves.push(`date ×${(1 + s.dateBoost).toFixed(2)} (in “${windowWords(w)}”)`);
      }
    }
    if (intent.recent && s.recencyBoost > 0) {
      const ageDays = Math.max(0, (now - Date.parse(at)) / 86_400_000);
      const f = 1 + s.recencyBoost * 2 ** (-ageDays / s.recencyHalfLifeDays);
      c.fused *= f;
      c.moves.push(`recent ×${f.toFixed(2)}`);
    }
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/** Cosine similarity of two unit vectors (stored and query vectors are unit length): their dot product. */
export const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Stored vectors of some memories (live ones are in memory_vec; unit length). */
export function memoryVectors(db: Database.Database, rids: number[]): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  const st = stmt(db, "SELECT embedding FROM memory_vec WHERE rowid = ?");
  for (const rid of rids) {
    const r = st.get(BigInt(rid)) as { embedding: Buffer } | undefined;
    if (r)
      out.set(
        rid,
        new Float32Array(
          r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength),
        ),
      );
  }
  return out;
}

/**
 * Recency among near-duplicates: when a newer result is at least `duplicateSimilarity` similar to one
 * ranked above it, it moves just above it (an updated fact outranks the stale one). One pass, top down.
 * Not past one inside a date window the query names ("what were my plans yesterday?" asks for that
 * day's version, not the latest).
 */
export function newerFirst<T extends { rid: number; moves: string[]; dateMatch?: boolean }>(
  ranked: T[],
  date: (rid: number) => string,
  vectors: Map<number, Float32Array>,
  threshold: number,
): T[] {
  if (threshold >= 1) return ranked;
  const out = [...ranked];
  for (let i = 0; i < out.length; i++) {
    const a = out[i]!;
    const va = vectors.get(a.rid);
    if (!va) continue;
    let best = -1;
    for (let j = i + 1; j < out.length; j++) {
      const b = out[j]!;
      const vb = vectors.get(b.rid);
      if (!vb || date(b.rid) <= date(a.rid) || (a.dateMatch && !b.dateMatch)) continue;
      if (cosine(va, vb) >= threshold && (best < 0 || date(b.rid) > date(out[best]!.rid))) best = j;
    }
    if (best > 0) {
      const [b] = out.splice(best, 1);
      b!.moves.push(`recency: newer than a near-duplicate (moved up ${best - i})`);
      out.splice(i, 0, b!);
      i++; // the stale one now sits at i + 1; go on after it
    }
  }
  return out;
}

/**
 * Fewer repeats: a result at least `threshold` similar to one ranked above it moves below the distinct
 * results (in its order). The same ask made twice ("How do I pack a suitcase efficiently?", "I need to
 * pack a suitcase, where do I start?") fills two of the prompt's few slots with one thing, and the
 * stale version of an updated fact sits below its update (newerFirst) and then below the rest
 * (docs/retrieval.md#fewer-repeats). Runs after newerFirst, over the leading results only.
 */
export function fewerRepeats<T extends { rid: number; moves: string[] }>(
  ranked: T[],
  vectors: Map<number, Float32Array>,
  threshold: number,
): T[] {
  if (threshold >= 1) return ranked;
  const distinct: T[] = [];
  const repeats: T[] = [];
  for (const c of ranked) {
    const v = vectors.get(c.rid);
    const of = v
      ? distinct.findIndex((d) => {
          const w = vectors.get(d.rid);
          return w !== undefined && cosine(v, w) >= threshold;
        })
      : -1;
    if (of < 0) distinct.push(c);
    else {
      c.moves.push(`a repeat of result ${of + 1} (moved below the distinct results)`);
      repeats.push(c);
    }
  }
  return repeats.length ? [...distinct, ...repeats] : ranked;
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
 * Calibrated confidence of each ranked result (confidence.ts), its own and then given the turn's
 * leading results: pass at least the first TURN_LEADERS, whatever k is, so that k does not change a
 * confidence.
 */
export function confidences(
  ranked: (Staged & { final: number })[],
  ctx: {
    model: string;
    rows: Map<number, MemoryRow>;
    queryVector: Float32Array | null;
    vectors: Map<number, Float32Array>;
    ceiling: number;
    terms: { stem: string; idf: number }[];
    /** Live memories in the store (bounds idf). */
    docs: number;
    intent: QueryIntent;
    /** Speakers of the space's conversations the query names (keyword-search.ts `speakersNamed`). */
    speakers?: string[];
    /** Names in the query that no memory of the space mentions (keyword-search.ts `unknownNames`). */
    unknownNames: string[];
    /** Things a general-reading query refers to that the person has told about (keyword-search.ts `thingsToldOf`). */
    thingsToldOf?: string[];
  },
): Confidence[] {
  const model = confidenceModelFor(ctx.model);
  const idfSum = ctx.terms.reduce((s, t) => s + t.idf, 0);
  // A general-reading query about a thing the person told of ("Has the knee got any better?") is suited
  // by the person's own statements, as a personal question is (docs/retrieval.md#filtering-and-confidence).
  const thing = ctx.intent === "general" && (ctx.thingsToldOf?.length ?? 0) > 0;
  const suits: QueryIntent = thing ? "personal" : ctx.intent;
  const own = ranked.map((c) => {
    const v = ctx.vectors.get(c.rid);
    const sim = ctx.queryVector && v ? cosine(ctx.queryVector, v) : c.similarity;
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
    const f = features(
      {
        similarity: sim,
        keywordShare: c.bm25 !== null && ctx.ceiling > 0 ? -c.bm25 / ctx.ceiling : 0,
        hybrid: c.matchType === "hybrid",
        termShare,
        rareMatch: rare / Math.log(Math.max(2, ctx.docs) + 0.5),
        dateMatch: c.dateMatch,
        suitsIntent: m ? suitsIntent(suits, m.content, ctx.speakers) : false,
        personalQuery: ctx.intent !== "general",
        namesKnown: ctx.unknownNames.length === 0,
        thingToldOf: thing,
      },
      model,
    );
    return { confidence: confidenceOf(f, model), features: f, because: contributions(f, model) };
  });
  const turn = withTurnEvidence(
    own.map((c) => c.confidence),
    model.turnShare,
  );
  return own.map((c, i) => ({ ...c, confidence: turn[i]!.confidence, turnLift: turn[i]!.lift }));
}
