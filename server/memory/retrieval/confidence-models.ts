/**
 * Confidence coefficients (see confidence.ts), fitted on LoCoMo's tuning half by
 * `npm run eval:locomo -- --fit` with the bundled model. Similarity enters as "sd above the space's
 * background" (background.ts), so nomic-embed-text uses the same coefficients; `similarityRange` is only
 * the fallback for spaces too small to have a background.
 */
import type { FeatureName } from "./confidence-features";

export interface ConfidenceModel {
  bias: number;
  weights: Record<FeatureName, number>;
  /** Cosine mapped to the similarity feature's 0 and 1 when the space has no background yet. */
  similarityRange: [number, number];
  /**
   * Share (0–1) of the way a result's logit moves toward the strongest one among the turn's leading
   * results (confidence.ts `withTurnEvidence`); 0 = each result on its own evidence only.
   */
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
