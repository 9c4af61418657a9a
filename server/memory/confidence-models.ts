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

// BEGIN FITTED
const FITTED: ConfidenceModel = {
  bias: -6,
  weights: {
    similarity: 4,
    keyword: 1,
    agreement: 1,
    termShare: 1,
    rareMatch: 1,
    dateMatch: 1,
    gap: 1,
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
