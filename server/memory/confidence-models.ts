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
}

// BEGIN FITTED (written by npm run eval:retrieval -- --fit)
const USE_LITE: ConfidenceModel = {
  bias: -4.105,
  weights: {
    similarity: 1.562,
    keyword: 0,
    agreement: 1.083,
    termShare: 2.517,
    rareMatch: 0,
    dateMatch: 1.941,
    suitsIntent: 0.768,
    personalQuery: 1.508,
  },
  similarityRange: [0.1, 0.7],
};
// END FITTED

export const CONFIDENCE_MODELS: { match: string; model: ConfidenceModel }[] = [
  { match: "universal-sentence-encoder", model: USE_LITE },
  // nomic's cosines sit higher (unrelated text ≈ 0.4, paraphrases ≈ 0.6–0.8 in its model card's examples):
  // the same features and weights over its own similarity range, so the threshold means the same.
  { match: "nomic-embed-text", model: { ...USE_LITE, similarityRange: [0.4, 0.8] } },
];
