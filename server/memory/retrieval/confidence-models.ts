/**
 * Confidence coefficients (confidence.ts), fitted on LoCoMo's tuning half (`npm run eval:locomo -- --fit`).
 * Similarity is read against the space's background, so nomic uses them too (its range is only a fallback).
 */
import type { FeatureName } from "./confidence-features";

export interface ConfidenceModel {
  bias: number;
  weights: Record<FeatureName, number>;
  /** Cosine mapped to the similarity feature's 0 and 1 when the space has no background yet. */
  similarityRange: [number, number];
  /** Share of the way a logit moves toward the turn's strongest leader's (`withTurnEvidence`); 0 = off. */
  turnShare: number;
}

// BEGIN FITTED (npm run eval:locomo -- --fit: 18,200 results of LoCoMo's tuning half, 774 covering evidence)
const FITTED: ConfidenceModel = {
  bias: -5.281,
  weights: {
    similarity: 0.261,
    keyword: 0,
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: a fitted weight that happens to round like log10(e)
    agreement: 0.434,
    termShare: 2.186,
    rareMatch: 1.137,
    dateMatch: 2.09,
    gap: 2.912,
    standout: 2.343,
    known: 3.355,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0,
};
// END FITTED

export const CONFIDENCE_MODELS: { match: string; model: ConfidenceModel }[] = [
  { match: "universal-sentence-encoder", model: FITTED },
  // nomic's cosines sit higher (unrelated text ≈ 0.4): only the fallback range differs.
  { match: "nomic-embed-text", model: { ...FITTED, similarityRange: [0.4, 0.8] } },
];
