/**
 * Confidence coefficients per embedding model (see confidence.ts), fitted on the eval's tuning half and
 * written here by `npm run eval:retrieval -- --fit` (USE-lite) or `-- --model <nomic GGUF> --fit`
 * (nomic-embed-text). Until nomic's are fitted (the model is not bundled, so not here), nomic uses
 * USE-lite's over its own similarity range.
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

// BEGIN FITTED USE_LITE (written by npm run eval:retrieval -- --fit)
const USE_LITE: ConfidenceModel = {
  bias: -8.061,
  weights: {
    similarity: 2.139,
    keyword: 0,
    agreement: 0.338,
    termShare: 1.859,
    rareMatch: 0.123,
    dateMatch: 1.821,
    suitsIntent: 0.579,
    personalQuery: 3.712,
    namesKnown: 2.228,
    thingToldOf: 1.842,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0,
};
// END FITTED USE_LITE

// BEGIN FITTED NOMIC (written by npm run eval:retrieval -- --model <nomic-embed-text GGUF> --fit)
const NOMIC: ConfidenceModel | null = null;
// END FITTED NOMIC

export const CONFIDENCE_MODELS: { match: string; model: ConfidenceModel }[] = [
  { match: "universal-sentence-encoder", model: USE_LITE },
  // nomic's cosines sit higher (unrelated text ≈ 0.4, paraphrases ≈ 0.6–0.8 in its model card's examples):
  // unfitted, the same features and weights over its own similarity range, so the threshold means the same.
  { match: "nomic-embed-text", model: NOMIC ?? { ...USE_LITE, similarityRange: [0.4, 0.8] } },
];
