/**
 * Calibrated relevance: a logistic function of a result's own evidence, never of what kind of question
 * was asked; similarity read against the space's background (background.ts), so one model serves every
 * embedder. Fitted on LoCoMo's tuning half (`--fit`, confidence-models.ts) with every weight ≥ 0, so
 * confidence never falls when a feature rises: the threshold cannot drop a result for getting better.
 */
import { FEATURES, type FeatureName, type Features } from "./confidence-features";
import { CONFIDENCE_MODELS, type ConfidenceModel } from "./confidence-models";
import type { Background } from "./background";

export interface RawSignals {
  /** Cosine similarity to the query (null when unknown). */
  similarity: number | null;
  /** −bm25 over the query's bm25 ceiling (0 when it matches no query term). */
  keywordShare: number;
  /** The smaller of its two min–max scores (union-fusion.ts): both legs rank it. */
  agreement: number;
  /** Share of the query's keyword idf the memory's words cover. */
  termShare: number;
  /** The rarest query term it contains: that term's idf over the largest idf possible in the store. */
  rareMatch: number;
  /** In a date window the query named. */
  dateMatch: boolean;
  /** Its fused score's lead over the next result, as a share of the first result's. */
  gap: number;
  /** Its cosine above the query's own background (its cosines to random memories), in sd; null without one. */
  standout: number | null;
  /** Share of the query's words the space holds at all (keyword-search.ts `known`); the same for every result of a turn. */
  known: number;
  /**
   * Its best fact's −bm25 over the fact leg's bm25 ceiling (fact-keys.ts; 0 without a matching fact): a
   * question that matches a fact strongly is about something Memo knows.
   */
  factKeywordShare: number;
  /** Its best fact's cosine to the query (null: no fact vector). */
  factSimilarity: number | null;
}

const clip = (x: number) => Math.min(1, Math.max(0, x));

/** Sd above the background (background.ts) that make the similarity feature 1 (the best matches of a real history). */
export const SIMILARITY_SPAN_SD = 8;

/**
 * Features in [0, 1]. Similarity is (cos − mean) / sd of the space's background over SIMILARITY_SPAN_SD
 * (0.5: "4 sd above two random memories" for every model); without one, over the model's fallback range.
 */
export function features(s: RawSignals, model: ConfidenceModel, background: Background | null = null): Features {
  const sim =
    s.similarity === null
      ? 0
      : background
        ? clip((s.similarity - background.mean) / background.sd / SIMILARITY_SPAN_SD)
        : clip((s.similarity - model.similarityRange[0]) / (model.similarityRange[1] - model.similarityRange[0]));
  return {
    similarity: sim,
    keyword: clip(s.keywordShare),
    agreement: clip(s.agreement),
    termShare: clip(s.termShare),
    rareMatch: clip(s.rareMatch),
    dateMatch: s.dateMatch ? 1 : 0,
    gap: clip(s.gap),
    // Without a background (a space of < 10 memories) the query's own background is unknown too: the
    // cosine over the model's range stands for both, or a new store could never pack a plain answer.
    standout: s.standout !== null ? clip(s.standout / SIMILARITY_SPAN_SD) : background ? 0 : sim,
    known: clip(s.known),
    factKeyword: clip(s.factKeywordShare),
    // Read against the space's background as the memory's own similarity is: "above chance" alike for every model.
    factSimilarity:
      s.factSimilarity === null
        ? 0
        : background
          ? clip((s.factSimilarity - background.mean) / background.sd / SIMILARITY_SPAN_SD)
          : clip((s.factSimilarity - model.similarityRange[0]) / (model.similarityRange[1] - model.similarityRange[0])),
  };
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export function confidenceOf(f: Features, model: ConfidenceModel): number {
  let z = model.bias;
  for (const k of FEATURES) z += model.weights[k] * f[k];
  return sigmoid(z);
}

/** What moved a result's confidence most: each feature's share of the logit, largest first. */
export function contributions(f: Features, model: ConfidenceModel): { feature: FeatureName; logit: number }[] {
  return FEATURES.map((k) => ({ feature: k, logit: model.weights[k] * f[k] }))
    .filter((c) => c.logit > 0)
    .sort((a, b) => b.logit - a.logit);
}

/** The leading results (the default packing size) whose strongest own confidence is the turn's evidence. */
export const TURN_LEADERS = 6;

const logit = (p: number) => Math.log(Math.max(p, 1e-12) / Math.max(1 - p, 1e-12));

/**
 * Confidence given the turn: each own logit moved `turnShare` of the way toward the strongest among the
 * first TURN_LEADERS (when one memory plainly answers, the next on its subject are likelier relevant).
 * Never lowers a confidence; `lift` is the logit added (what Debug Search shows).
 */
export function withTurnEvidence(own: number[], turnShare: number): { confidence: number; lift: number }[] {
  if (turnShare <= 0) return own.map((confidence) => ({ confidence, lift: 0 }));
  const z = own.map(logit);
  const best = Math.max(-Infinity, ...z.slice(0, TURN_LEADERS));
  return z.map((zi, i) => {
    const lift = best > zi ? turnShare * (best - zi) : 0;
    return { confidence: lift > 0 ? sigmoid(zi + lift) : own[i]!, lift };
  });
}

/**
 * The coefficients for an embedding model; `withFacts`: for a space that holds facts (their two features
 * carry weight there, and the rest is fitted beside them). A space without facts keeps the model fitted
 * without them, so its confidences are what they were before facts existed.
 */
export function confidenceModelFor(model: string, opts: { withFacts?: boolean } = {}): ConfidenceModel {
  const m = CONFIDENCE_MODELS.find((c) => new RegExp(c.match, "i").test(model)) ?? CONFIDENCE_MODELS[0]!;
  return opts.withFacts ? m.withFacts : m.model;
}

/** Logistic regression with weights kept ≥ 0 (projected gradient descent, L2): fits the models above. */
export function fitLogistic(
  rows: { f: Features; y: 0 | 1; w?: number }[],
  opts: { iterations?: number; rate?: number; l2?: number } = {},
): { bias: number; weights: Features; loss: number } {
  const it = opts.iterations ?? 4000;
  const lr = opts.rate ?? 0.5;
  const l2 = opts.l2 ?? 1e-3;
  const w = Object.fromEntries(FEATURES.map((k) => [k, 0])) as Features;
  let b = 0;
  const n = Math.max(1, rows.length);
  // Balance the classes: positives are rare among candidates, and an unweighted fit would put every
  // confidence near the base rate.
  const pos = rows.filter((r) => r.y === 1).length;
  const wPos = pos ? n / (2 * pos) : 1;
  const wNeg = n - pos ? n / (2 * (n - pos)) : 1;
  let loss = 0;
  for (let i = 0; i < it; i++) {
    const g = Object.fromEntries(FEATURES.map((k) => [k, 0])) as Features;
    let gb = 0;
    loss = 0;
    for (const r of rows) {
      let z = b;
      for (const k of FEATURES) z += w[k] * r.f[k];
      const p = sigmoid(z);
      const cw = (r.y ? wPos : wNeg) * (r.w ?? 1);
      const e = cw * (p - r.y);
      loss -= cw * (r.y ? Math.log(Math.max(p, 1e-12)) : Math.log(Math.max(1 - p, 1e-12)));
      gb += e;
      for (const k of FEATURES) g[k] += e * r.f[k];
    }
    b -= (lr * gb) / n;
    for (const k of FEATURES) w[k] = Math.max(0, w[k] - lr * (g[k] / n + l2 * w[k]));
  }
  return { bias: b, weights: w, loss: loss / n };
}
