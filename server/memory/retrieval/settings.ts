import type Database from "better-sqlite3";
import { z } from "zod";
import { loadSetting } from "../../core/settings-load";
import { writeSetting } from "../../core/settings-store";

export const retrievalSettingsSchema = z.object({
  /** Memories packed into the prompt (default 6, 1–20; docs/retrieval.md). */
  topN: z.number().int().min(1).max(20),
  /** Fusion method: Reciprocal Rank Fusion or score-normalised linear fusion. */
  fusion: z.enum(["rrf", "linear"]),
  rrfK: z.number().min(1).max(1000),
  /**
   * Per-list weights; `anchor` multiplies the lists of the anchor query; `factVector` and `factFts` weigh a
   * memory's facts' cosine and bm25 (facts as extra keys, docs/retrieval.md#facts; 0 = off).
   */
  weights: z.object({
    vector: z.number().min(0).max(10),
    fts: z.number().min(0).max(10),
    anchor: z.number().min(0).max(10),
    factVector: z.number().min(0).max(10).default(0.5),
    factFts: z.number().min(0).max(10).default(0.5),
  }),
  /** Earlier user messages joined to the main query (0–3). */
  contextMessages: z.number().int().min(0).max(3),
  /** Add the 5-word topic anchor query for messages longer than 7 words. */
  anchorQuery: z.boolean(),
  /** Quality filter on/off, its vector-only similarity floor and its fts-only floor (−bm25). */
  qualityFilter: z.boolean(),
  minSimilarity: z.number().min(-1).max(1),
  ftsFloor: z.number().min(0),
  /** Importance nudge: final = fused × (1 + importanceWeight × importance/5). */
  importanceWeight: z.number().min(0).max(5),
  /** Keyword leg: drop terms in more than this fraction of memories; keep at most maxTerms. */
  maxDocFraction: z.number().min(0.01).max(1),
  maxTerms: z.number().int().min(1).max(64),
  /** Keyword leg work cap: summed document frequency of the kept terms (rarest always kept). */
  maxPostings: z.number().int().min(100).max(10_000_000),
  /** Token budget of the [Relevant Memories] block. */
  tokenBudget: z.number().int().min(50).max(32_000),
  /** Dense query: drop words found in more than this share of memories before embedding (1 = off). */
  denseMaxDocFraction: z.number().min(0.01).max(1),
  /** Date windows: score × (1 + dateBoost) inside a date the query names (0 = off). */
  dateBoost: z.number().min(0).max(5),
  /** Neighbour context: share of an exchange's score given to the adjacent exchanges of its session (0 = off). */
  neighbourWeight: z.number().min(0).max(1),
  /** Two exchanges are in one session when at most this many minutes apart. */
  neighbourGapMinutes: z.number().int().min(1).max(1440),
  /** Calibrated confidence in [0, 1]: only results at or above it are packed and promoted (0 = all). */
  minConfidence: z.number().min(0).max(1),
  /** Packing: label who said what, cap an assistant reply at this many characters (cut at a sentence end). */
  packSpeakers: z.boolean(),
  assistantMaxChars: z.number().int().min(40).max(8000),
  /**
   * Provenance (docs/retrieval.md#provenance): a stored exchange that restated recall scores × (derivedWeight
   * + (1 − derivedWeight) × its novelty), and one mostly restated ranks below the sources it was given (1 = off).
   */
  derivedWeight: z.number().min(0).max(1).default(0.3),
  /** A date window holding more than this share of the space's memories carries no signal (1 = every window counts). */
  maxWindowShare: z.number().min(0.01).max(1).default(0.5),
  /** The facts leg: a current fact matching the question on its own evidence at or above this confidence reaches the prompt (1 = off). */
  factMinConfidence: z.number().min(0).max(1).default(0.5),
  /** Tokens of the profile (the person's most important current facts) every turn carries (0 = off). */
  profileTokens: z.number().int().min(0).max(2000).default(500),
});

export type RetrievalSettings = z.infer<typeof retrievalSettingsSchema>;

const BASE: RetrievalSettings = {
  topN: 6,
  fusion: "linear",
  rrfK: 60,
  weights: { vector: 1, fts: 1, anchor: 1, factVector: 0.5, factFts: 0.5 },
  contextMessages: 3,
  anchorQuery: true,
  qualityFilter: true,
  minSimilarity: 0.7,
  ftsFloor: 0,
  importanceWeight: 0.1,
  maxDocFraction: 0.4,
  maxTerms: 12,
  maxPostings: 5000,
  tokenBudget: 1500,
  // Techniques on fused scores, and a confidence read against the space's background: model-independent.
  denseMaxDocFraction: 1,
  neighbourWeight: 0.3,
  dateBoost: 2,
  neighbourGapMinutes: 60,
  // 0.5: each fitted model's bias is moved so that 0.5 means the threshold chosen on the tuning half
  // (confidence-models.ts, docs/retrieval.md#filtering-and-confidence).
  minConfidence: 0.5,
  packSpeakers: true,
  assistantMaxChars: 400,
  derivedWeight: 0.3,
  maxWindowShare: 0.5,
  factMinConfidence: 0.5,
  profileTokens: 500,
};

/**
 * Defaults per embedding model family (docs/retrieval.md#settings-and-defaults-per-model, with the
 * figures). nomic cannot be measured offline (not bundled): its values are as designed. USE-lite's are
 * chosen on LoCoMo's tuning half (`npm run eval:locomo -- --tune`) and reported on the other half.
 */
const PER_MODEL: { match: RegExp; settings: Partial<RetrievalSettings> }[] = [
  { match: /nomic-embed-text/i, settings: {} },
  {
    match: /universal-sentence-encoder/i,
    settings: {
      fusion: "linear",
      weights: { vector: 1, fts: 1, anchor: 0.5, factVector: 0.5, factFts: 0.5 },
      contextMessages: 1,
      anchorQuery: false,
      qualityFilter: false,
      minSimilarity: 0,
      denseMaxDocFraction: 0.3,
    },
  },
];

export function defaultSettingsFor(model: string): RetrievalSettings {
  const s = structuredClone(BASE);
  for (const p of PER_MODEL) if (p.match.test(model)) Object.assign(s, structuredClone(p.settings));
  return s;
}

const settingsKey = (model: string) => `retrieval:${model}`;

/**
 * The effective settings for a model: its defaults overlaid with what the person saved, field by field (a
 * field that no longer parses takes its default and is set aside: server/core/settings-load.ts).
 */
export function loadRetrievalSettings(db: Database.Database, model: string): RetrievalSettings {
  return loadSetting(db, settingsKey(model), retrievalSettingsSchema, defaultSettingsFor(model));
}

export function saveRetrievalSettings(
  db: Database.Database,
  model: string,
  patch: Partial<RetrievalSettings>,
): RetrievalSettings {
  const current = loadRetrievalSettings(db, model);
  const next = retrievalSettingsSchema.parse({
    ...current,
    ...patch,
    weights: { ...current.weights, ...(patch.weights ?? {}) },
  });
  writeSetting(db, settingsKey(model), next);
  return next;
}
