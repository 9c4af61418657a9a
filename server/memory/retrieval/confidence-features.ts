/** The features a result's confidence is computed from (confidence.ts), in the fitted weights' order. */
export const FEATURES = [
  "similarity",
  "keyword",
  "agreement",
  "termShare",
  "rareMatch",
  "dateMatch",
  "gap",
  "standout",
  "known",
  "factKeyword",
  "factSimilarity",
] as const;
export type FeatureName = (typeof FEATURES)[number];
export type Features = Record<FeatureName, number>;
