import type { RetrievalSettings } from "./settings";

/**
 * The techniques a person can switch off or tune, one setting each (docs/retrieval.md#memory-techniques):
 * Settings → Retrieval edits them; Debug Search switches each for one query (its moves show the effect).
 */
export type TechniqueKey = "denseMaxDocFraction" | "dateBoost" | "neighbourWeight";

export interface Technique {
  key: TechniqueKey;
  label: string;
  /** What the stage does, in a sentence (the hint under the field, the checkbox's title). */
  does: string;
  /** The value that switches the stage off. */
  off: number | boolean;
  /** The value Debug Search turns it on with when the saved setting has it off (the measured USE-lite value). */
  on: number | boolean;
  /** Number fields: bounds and step of the setting (retrievalSettingsSchema). */
  min?: number;
  max?: number;
  step?: number;
  /** Where in docs/retrieval.md it is explained. */
  anchor: string;
}

export const TECHNIQUES: readonly Technique[] = [
  {
    key: "denseMaxDocFraction",
    label: "Dense-query cleaning",
    does: "The dense query drops words found in more than this share of memories (speakers' names, role labels); 1 = off",
    off: 1,
    on: 0.3,
    min: 0.01,
    max: 1,
    step: 0.01,
    anchor: "the-dense-query",
  },
  {
    key: "dateBoost",
    label: "Date boost",
    does: "Score × (1 + boost) for memories inside a date the query names (“last week”, “in May”); 0 = off",
    off: 0,
    on: 2,
    min: 0,
    max: 5,
    step: 0.1,
    anchor: "time-aware-retrieval",
  },
  {
    key: "neighbourWeight",
    label: "Neighbour context",
    does: "Share of an exchange's score given to the adjacent exchanges of its session; 0 = off",
    off: 0,
    on: 0.3,
    min: 0,
    max: 1,
    step: 0.05,
    anchor: "neighbour-context",
  },
];

/** Techniques switched for one search (Debug Search's overrides). */
export type TechniqueOverrides = Partial<Pick<RetrievalSettings, TechniqueKey>>;

/** Whether a technique is on in these settings. */
export function techniqueOn(t: Technique, settings: Pick<RetrievalSettings, TechniqueKey>): boolean {
  return settings[t.key] !== t.off;
}

/** The settings with one technique switched off and the rest as they are (the eval's ablation rows). */
export function switchedOff<S extends Pick<RetrievalSettings, TechniqueKey>>(settings: S, t: Technique): S {
  return { ...settings, [t.key]: t.off };
}
