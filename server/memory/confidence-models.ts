/**
 * Confidence coefficients per embedding model (see confidence.ts). USE-lite's are fitted by
 * `npm run eval:retrieval -- --fit` on the tuning half and pasted here by that command; nomic-embed-text
 * shares them with its similarity rescaled to its own range (nothing of nomic can be measured offline).
 */
import type { FeatureName } from "./confidence-features";

export interface ConfidenceModel {
  bias: number;
  weights: Record<FeatureName, number>;
  /** Cosine similarity mapped to the similarity feature's 0 and 1. */
  similarityRange: [number, number];
  /**
   * Share (0–1) of the way a result's logit moves toward the strongest one among the turn's leading
   * results (confidence.ts `withTurnEvidence`); 0 = each result on its own evidence only.
   */
  turnShare: number;
}

// BEGIN FITTED (written by npm run eval:retrieval -- --fit)
const USE_LITE: ConfidenceModel = {
  bias: -4.112,
  weights: {
    similarity: 1.572,
    keyword: 0,
    agreement: 1.084,
    termShare: 2.508,
    rareMatch: 0,
    dateMatch: 1.955,
    suitsIntent: 0.764,
    personalQuery: 1.513,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0.5,
};
// END FITTED

export const CONFIDENCE_MODELS: { match: string; model: ConfidenceModel }[] = [
  { match: "universal-sentence-encoder", model: USE_LITE },
  // nomic's cosines sit higher (unrelated text ≈ 0.4, paraphrases ≈ 0.6–0.8 in its model card's examples):
  // the same features and weights over its own similarity range, so the threshold means the same.
  { match: "nomic-embed-text", model: { ...USE_LITE, similarityRange: [0.4, 0.8] } },
];
