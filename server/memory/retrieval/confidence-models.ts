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

// BEGIN FITTED (npm run eval:locomo -- --fit: 18,200 results of LoCoMo's tuning half, 783 covering evidence,
// keyword statistics per space). The fit's bias −5.272 is moved by logit(0.5) − logit(0.53) = −0.120: on the
// tuning half 0.53 is the lowest threshold at which another conversation's questions pack ≤ 0.15 of 6 and
// everyday prompts ≤ 0.3 (the fit prints it as shiftedBias), and the shift makes the minimum confidence 0.5 mean it.
const FITTED: ConfidenceModel = {
  bias: -5.392,
  weights: {
    similarity: 0.304,
    keyword: 0.195,
    agreement: 0.585,
    termShare: 2.214,
    rareMatch: 0.824,
    dateMatch: 2.105,
    gap: 2.878,
    standout: 2.312,
    known: 3.4,
    factKeyword: 0,
    factSimilarity: 0,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0,
};
// END FITTED

/**
 * A space that holds facts: fitted with LoCoMo's observations as its facts (`npm run eval:locomo -- --facts
 * --fit`: 18,200 results, 800 covering evidence). The fit's bias −5.066 is moved by logit(0.5) − logit(0.53)
 * = −0.120, chosen as for the model above (the fit's shiftedBias).
 */
// BEGIN FITTED WITH FACTS
const FITTED_WITH_FACTS: ConfidenceModel = {
  bias: -5.187,
  weights: {
    similarity: 0.256,
    keyword: 0.029,
    agreement: 0.615,
    termShare: 1.616,
    rareMatch: 0.685,
    dateMatch: 2.251,
    gap: 2.571,
    standout: 2.49,
    known: 3.054,
    factKeyword: 1.846,
    factSimilarity: 0.364,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0,
};
// END FITTED WITH FACTS

export const CONFIDENCE_MODELS: { match: string; model: ConfidenceModel; withFacts: ConfidenceModel }[] = [
  { match: "universal-sentence-encoder", model: FITTED, withFacts: FITTED_WITH_FACTS },
  // nomic's cosines sit higher (unrelated text ≈ 0.4): only the fallback range differs.
  {
    match: "nomic-embed-text",
    model: { ...FITTED, similarityRange: [0.4, 0.8] },
    withFacts: { ...FITTED_WITH_FACTS, similarityRange: [0.4, 0.8] },
  },
];
