/**
 * The numeric retrieval settings Settings → Retrieval shows, declared once: where each lives in the settings
 * object, its input, label, help and group, and its range, which is the schema's (settings.ts
 * retrievalSettingsSchema; settings-fields.test.ts reads the schema's bounds against these). The form
 * (app/settings/retrieval-section.tsx) renders one input per entry, group by group, and reads and writes
 * each by its path. Plain data and a type-only import of the settings, so the page can read it.
 */
import type { RetrievalSettings } from "./settings";
import { TECHNIQUES, type TechniqueKey } from "./techniques";

/** The weights the form shows (the facts' weights are not shown: NOT_SHOWN). */
type ShownWeight = "vector" | "fts" | "anchor";

/** Where a field's value lives in the settings object: a top-level key, or `weights.<list>`. */
export type RetrievalFieldPath =
  | "topN"
  | "minConfidence"
  | "minSimilarity"
  | "ftsFloor"
  | "importanceWeight"
  | "contextMessages"
  | `weights.${ShownWeight}`
  | TechniqueKey
  | "neighbourGapMinutes"
  | "tokenBudget"
  | "assistantMaxChars"
  | "factMinConfidence"
  | "profileTokens"
  | "derivedWeight"
  | "maxWindowShare";

/**
 * The form's groups, in the order it shows them: recall's thresholds (then the fusion select, not numeric),
 * the query, the list weights, the memory techniques, packing, and the facts and the live loop.
 */
export type RetrievalFieldGroup = "recall" | "query" | "weights" | "techniques" | "packing" | "live-loop";

export interface RetrievalField {
  path: RetrievalFieldPath;
  /** The input's element id (the e2e specs and the labels find the input by it). */
  inputId: string;
  label: string;
  /** What the value does; the form adds "; default <the model's default>". Empty: the default alone. */
  help: string;
  group: RetrievalFieldGroup;
  /** A number input, or a select of every step from min to max (few values). */
  control: "number" | "select";
  min: number;
  /** Absent where the schema has no upper bound. */
  max?: number;
  step: number;
}

const techniqueFields: RetrievalField[] = TECHNIQUES.map((t) => ({
  path: t.key,
  inputId: `rs-${t.key}`,
  label: t.label,
  help: t.does,
  group: "techniques",
  control: "number",
  min: t.min!,
  max: t.max,
  step: t.step!,
}));

export const RETRIEVAL_FIELDS: readonly RetrievalField[] = [
  {
    path: "topN",
    inputId: "rs-topn",
    label: "Memories per reply (top N)",
    help: "1–20",
    group: "recall",
    control: "number",
    min: 1,
    max: 20,
    step: 1,
  },
  {
    path: "minConfidence",
    inputId: "rs-minconf",
    label: "Minimum confidence",
    help: "Only memories at least this likely to be relevant (0–1) go into a prompt; 0 packs all",
    group: "recall",
    control: "number",
    min: 0,
    max: 1,
    step: 0.01,
  },
  {
    path: "minSimilarity",
    inputId: "rs-minsim",
    label: "Minimum similarity",
    help: "Vector-only results below this are dropped",
    group: "recall",
    control: "number",
    min: -1,
    max: 1,
    step: 0.01,
  },
  {
    path: "ftsFloor",
    inputId: "rs-ftsfloor",
    label: "FTS floor",
    help: "Keyword-only results with a BM25 score below this are dropped",
    group: "recall",
    control: "number",
    min: 0,
    step: 0.1,
  },
  {
    path: "importanceWeight",
    inputId: "rs-impw",
    label: "Importance weight",
    help: "score × (1 + weight × importance/5)",
    group: "recall",
    control: "number",
    min: 0,
    max: 5,
    step: 0.05,
  },
  {
    path: "contextMessages",
    inputId: "rs-ctx",
    label: "Context messages",
    help: "Earlier user messages joined to the query",
    group: "query",
    control: "select",
    min: 0,
    max: 3,
    step: 1,
  },
  {
    path: "weights.vector",
    inputId: "rs-wvec",
    label: "Vector",
    help: "",
    group: "weights",
    control: "number",
    min: 0,
    max: 10,
    step: 0.1,
  },
  {
    path: "weights.fts",
    inputId: "rs-wfts",
    label: "Keyword (FTS)",
    help: "",
    group: "weights",
    control: "number",
    min: 0,
    max: 10,
    step: 0.1,
  },
  {
    path: "weights.anchor",
    inputId: "rs-wanchor",
    label: "Anchor query lists",
    help: "",
    group: "weights",
    control: "number",
    min: 0,
    max: 10,
    step: 0.1,
  },
  ...techniqueFields,
  {
    path: "neighbourGapMinutes",
    inputId: "rs-gap",
    label: "Session gap (minutes)",
    help: "Neighbour context: two exchanges at most this far apart are one session",
    group: "techniques",
    control: "number",
    min: 1,
    max: 1440,
    step: 1,
  },
  {
    path: "tokenBudget",
    inputId: "rs-budget",
    label: "Token budget",
    help: "Size of the memory block in the system prompt",
    group: "packing",
    control: "number",
    min: 50,
    max: 32000,
    step: 50,
  },
  {
    path: "assistantMaxChars",
    inputId: "rs-asstmax",
    label: "Assistant reply cap (characters)",
    help: "A packed memory keeps at most this much of the assistant's reply",
    group: "packing",
    control: "number",
    min: 40,
    max: 8000,
    step: 10,
  },
  {
    path: "factMinConfidence",
    inputId: "rs-factminconf",
    label: "Facts: minimum confidence",
    help: "A current fact that matches the question at least this surely is stated on its own (0–1); 1 = off",
    group: "live-loop",
    control: "number",
    min: 0,
    max: 1,
    step: 0.01,
  },
  {
    path: "profileTokens",
    inputId: "rs-profiletokens",
    label: "Profile (tokens)",
    help: "Your most important current facts, carried by every reply within this many tokens; 0 = off",
    group: "live-loop",
    control: "number",
    min: 0,
    max: 2000,
    step: 10,
  },
  {
    path: "derivedWeight",
    inputId: "rs-derivedweight",
    label: "Restated replies' weight",
    help: "A stored reply that restated what it was given counts this much plus what it added; 1 = off",
    group: "live-loop",
    control: "number",
    min: 0,
    max: 1,
    step: 0.05,
  },
  {
    path: "maxWindowShare",
    inputId: "rs-maxwindowshare",
    label: "Date window: largest share",
    help: "A date the question names that covers more than this share of the space is no signal; 1 = always a signal",
    group: "live-loop",
    control: "number",
    min: 0.01,
    max: 1,
    step: 0.01,
  },
];

/**
 * The numeric settings the form does not show, and why: they are kept as measured (docs/retrieval.md) and
 * saving the form keeps them as they are (saveRetrievalSettings merges over the current settings).
 */
export const NOT_SHOWN: Readonly<Record<string, string>> = {
  rrfK: "RRF's rank constant (60, as designed): the Fusion select picks RRF or linear, the constant is no preference",
  maxDocFraction: "keyword term pruning (0.4): bounds the keyword leg's work, not what a person prefers",
  maxTerms: "keyword term pruning (12 terms): bounds the keyword leg's work",
  maxPostings: "keyword term pruning (5000 postings): bounds the keyword leg's work on large spaces",
  "weights.factVector": "the facts' cosine as a signal (0.5), chosen on LoCoMo's tuning half (docs/retrieval.md#facts)",
  "weights.factFts": "the facts' bm25 as a signal (0.5), chosen on LoCoMo's tuning half (docs/retrieval.md#facts)",
};

/** The declared fields of one group, in their order. */
export function retrievalFields(group: RetrievalFieldGroup): RetrievalField[] {
  return RETRIEVAL_FIELDS.filter((f) => f.group === group);
}

/** A field's value in a settings object. */
export function fieldValue(settings: Pick<RetrievalSettings, "weights"> & object, path: RetrievalFieldPath): number {
  if (path.startsWith("weights.")) return settings.weights[path.slice("weights.".length) as ShownWeight];
  return (settings as unknown as Record<string, number>)[path];
}

/** The shown numeric settings as a save patch, each value read by its path (the weights as one object). */
export type RetrievalFieldsPatch = Pick<RetrievalSettings, Exclude<RetrievalFieldPath, `weights.${string}`>> & {
  weights: Pick<RetrievalSettings["weights"], ShownWeight>;
};

export function fieldsPatch(value: (path: RetrievalFieldPath) => number): RetrievalFieldsPatch {
  const weights: Record<string, number> = {};
  const top: Record<string, number> = {};
  for (const f of RETRIEVAL_FIELDS) {
    if (f.path.startsWith("weights.")) weights[f.path.slice("weights.".length)] = value(f.path);
    else top[f.path] = value(f.path);
  }
  return { ...top, weights } as RetrievalFieldsPatch;
}
