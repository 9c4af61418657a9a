import type Database from "better-sqlite3";
import { z } from "zod";
import { readSetting, writeSetting } from "../core/settings-store";

export const retrievalSettingsSchema = z.object({
  /** Memories packed into the prompt (default 6, 1–20; docs/retrieval.md). */
  topN: z.number().int().min(1).max(20),
  /** Fusion method: Reciprocal Rank Fusion or score-normalised linear fusion. */
  fusion: z.enum(["rrf", "linear"]),
  rrfK: z.number().min(1).max(1000),
  /** Per-list weights; `anchor` multiplies the lists of the anchor query. */
  weights: z.object({
    vector: z.number().min(0).max(10),
    fts: z.number().min(0).max(10),
    anchor: z.number().min(0).max(10),
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
  /** Neighbour context: share of an exchange's score given to the adjacent exchanges of its session (0 = off). */
  neighbourWeight: z.number().min(0).max(1),
  /** Two exchanges are in one session when at most this many minutes apart. */
  neighbourGapMinutes: z.number().int().min(1).max(1440),
  /** Time-aware retrieval: score × (1 + dateBoost) inside a date window the query names (0 = off). */
  dateBoost: z.number().min(0).max(5),
  /** Memories inside a date window the query names join fusion as one more list of this weight (× vector weight; 0 = off). */
  windowWeight: z.number().min(0).max(5),
  /** Calibrated confidence in [0, 1]: only results at or above it are packed and promoted (0 = all). */
  minConfidence: z.number().min(0).max(1),
  /** Packing: label who said what, trim assistant boilerplate, cap an assistant reply at this many characters. */
  packSpeakers: z.boolean(),
  assistantMaxChars: z.number().int().min(40).max(8000),
});

export type RetrievalSettings = z.infer<typeof retrievalSettingsSchema>;

const BASE: RetrievalSettings = {
  topN: 6,
  fusion: "linear",
  rrfK: 60,
  weights: { vector: 1, fts: 1, anchor: 1 },
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
  // Techniques that act on fused scores whatever the embedding model (chosen with USE-lite): date
  // windows, "recently", neighbour context (a share of a score, so the same for RRF and linear scores),
  // and the minimum confidence, which is calibrated per model (confidence-models.ts).
  // The personal boost is moderate here (USE-lite measured ×3 under linear fusion; nomic's RRF scores
  // cannot be measured offline). The window list is one more list of a leg's weight (USE-lite chose twice that).
  // Questions stay as asked for the dense leg: nomic's "search_query: " prefix is trained on questions.
  denseMaxDocFraction: 1,
  neighbourWeight: 0.3,
  neighbourGapMinutes: 60,
  dateBoost: 2,
  windowWeight: 1,
  minConfidence: 0.14,
  packSpeakers: true,
  assistantMaxChars: 400,
};

/**
 * Defaults per embedding model family. nomic-embed-text-v1.5 keeps the seeds' RRF k=60 with equal
 * weights, 3 context messages, the anchor query and min_similarity 0.7 (it cannot be measured offline);
 * it shares the model-independent techniques above and its confidence is calibrated to mean the same.
 *
 * USE-lite values are chosen by `npm run eval:retrieval` on the TUNING half of a year-long history
 * (1,100 memories in one space; coordinate ascent, recall@10 then MRR) and reported on the other half;
 * see server/test/retrieval-eval/README.md and the README's retrieval section for the figures.
 * - linear fusion, dense and keyword legs weighted alike (0.5 before the dense query was stated: a
 *   stronger dense leg earns more weight); 1 context message; no anchor query, no
 *   quality filter (the minimum confidence replaces it); personal questions favour the person's own
 *   statements ×3 (personal.ts: asks such as "Help me draft…" are not statements about the person).
 * - the dense query drops words found in more than 30% of memories (the speakers' names, role labels).
 *   Tuning picks 8% by half a question on its 1,100-memory history, where the words between 8% and
 *   30% are generic verbs ("going", "start", "explain"); on the same tuning questions over denser
 *   histories (230 and 480 memories) 8% does worse, and in a person's own chats a recurring subject
 *   ("my daughter", in 1 exchange of 8) would be dropped. Shipped as a difference from the tuning
 *   choice (docs/retrieval.md#settings-and-defaults-per-model).
 * - questions are embedded as statements ("When is my dad's knee replacement?" → "my dad's knee
 *   replacement", question-frame.ts): recall@10 +0.05 on tuning at the step where it was chosen.
 * - the memories of a named date window join fusion as one more list of twice the vector leg's weight
 *   (the window list, windows.ts: "the day after the concert" asks for memories no leg finds).
 * - neighbour context 0.3: a short reply ("Sage green on three walls") gets 0.3 of the score of the
 *   exchange before it, which names what it is about (+0.05 recall@10 on tuning); recency among
 *   near-duplicates at similarity 0.8 (a newer near-duplicate moves above the older one).
 * - fewer repeats at 0.9: a result that nearly repeats one above it (the same ask made twice) moves below
 *   the distinct ones. The ascent keeps it off (less than half a question); it ships for the prompt's
 *   sake, measured on tuning: recall@10 +0.006, unanswerable packed 0.72 → 0.64 at the threshold of the
 *   time (docs/retrieval.md#fewer-repeats).
 * - "recently" keeps BASE's ×2 although tuning cannot tell it from 0 (two of its questions say "last
 *   time"; recall@10 is the same at every value), because a person who says "recently" means it.
 */
const PER_MODEL: { match: RegExp; settings: Partial<RetrievalSettings> }[] = [
  { match: /nomic-embed-text/i, settings: {} },
  {
    match: /universal-sentence-encoder/i,
    settings: {
      fusion: "linear",
      weights: { vector: 1, fts: 1, anchor: 0.5 },
      contextMessages: 1,
      anchorQuery: false,
      qualityFilter: false,
      minSimilarity: 0,
      denseMaxDocFraction: 0.3,
      windowWeight: 2,
    },
  },
];

export function defaultSettingsFor(model: string): RetrievalSettings {
  const s = structuredClone(BASE);
  for (const p of PER_MODEL) if (p.match.test(model)) Object.assign(s, structuredClone(p.settings));
  return s;
}

const settingsKey = (model: string) => `retrieval:${model}`;

/** The effective settings for a model: its defaults overlaid with what the person saved. */
export function loadRetrievalSettings(db: Database.Database, model: string): RetrievalSettings {
  const base = defaultSettingsFor(model);
  const saved = readSetting(db, settingsKey(model)) as Partial<RetrievalSettings> | undefined;
  if (saved === undefined) return base;
  try {
    return retrievalSettingsSchema.parse({ ...base, ...saved, weights: { ...base.weights, ...(saved.weights ?? {}) } });
  } catch {
    return base;
  }
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
