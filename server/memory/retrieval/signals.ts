/**
 * The signals a candidate's breakdown names (docs/retrieval.md#signals): each is declared once here, with the
 * stage that records it (stages.ts), its label and what it means; the stage records it on the candidate from
 * the inputs it read. Debug Search renders the breakdown from this list, and a result's `moves` (the REST
 * API's, a recalled memory's) are the lines of the signals that have one. No node imports: the app reads it.
 */
import type { Stage } from "./stages";

/** One signal of one candidate: `value` what the stage read, `effect` what it did to the score, `note` its detail. */
export interface CandidateSignal {
  name: SignalName;
  value: number;
  effect?: number;
  note?: string;
}

interface SignalSpec {
  stage: Stage;
  label: string;
  /** What value and effect mean (Debug Search's tooltip). */
  about: string;
  /** Its line in `moves`, when it moved the candidate's place or confidence. */
  move?: (s: CandidateSignal) => string;
}

const fx = (n: number | undefined, digits: number) => (n ?? 0).toFixed(digits);

export const SIGNALS = {
  vector: {
    stage: "union",
    label: "vector",
    about: "best cosine of the memory's vector to a query; effect: its part of the fused score",
  },
  fts: {
    stage: "union",
    label: "keyword",
    about: "best bm25 (negated) of a query's words in the memory; effect: its part of the fused score",
  },
  factVector: {
    stage: "union",
    label: "fact vector",
    about: "best cosine of the memory's facts to the question; effect: its part of the fused score",
  },
  factFts: {
    stage: "union",
    label: "fact keyword",
    about: "best bm25 (negated) of the question's words in the memory's facts; effect: its part of the fused score",
  },
  neighbour: {
    stage: "neighbours",
    label: "neighbour",
    about: "the match next to it passed it a share of its score; effect: the bonus added",
    move: (s) => `neighbour +${fx(s.effect, 3)} (next to a match)`,
  },
  date: {
    stage: "filter",
    label: "date window",
    about: "inside a date the question names (note); effect: the score's factor (1 + dateBoost), absent when off",
    move: (s) => (s.effect === undefined ? `date: in “${s.note}”` : `date ×${fx(s.effect, 2)} (in “${s.note}”)`),
  },
  derived: {
    stage: "filter",
    label: "derived",
    about: "a reply that restated recall; value: its share of new words; effect: the score's factor",
    move: (s) => `derived ×${fx(s.effect, 2)} (${Math.round(s.value * 100)}% new beside what its reply was given)`,
  },
  importance: {
    stage: "filter",
    label: "importance",
    about: "the memory's importance (0–5); effect: the score's factor (1 + importanceWeight × importance / 5)",
  },
  belowSource: {
    stage: "filter",
    label: "below its source",
    about: "mostly restated: placed just below the best of its sources the question found",
    move: () => "below its source (restated it)",
  },
  confidence: {
    stage: "confidence",
    label: "confidence",
    about:
      "one of the three largest parts of the calibrated confidence (note: the feature); value: the feature, effect: its logit",
    move: (s) => `confidence: ${s.note} +${fx(s.effect, 2)}`,
  },
  turnLift: {
    stage: "confidence",
    label: "turn's strong match",
    about: "logit added for the turn's strongest leading result",
    move: (s) => `confidence: a strong match in this turn +${fx(s.effect, 2)}`,
  },
} as const satisfies Record<string, SignalSpec>;

export type SignalName = keyof typeof SIGNALS;

/** The declared list, in pipeline order (what Debug Search iterates). */
export const SIGNAL_NAMES = Object.keys(SIGNALS) as SignalName[];

/** The spec of a signal, typed for readers that only need the common fields. */
export function signalSpec(name: SignalName): SignalSpec {
  return SIGNALS[name];
}

/** What moved a candidate: the lines of its signals that have one, in the order the stages recorded them. */
export function movesOf(signals: readonly CandidateSignal[]): string[] {
  return signals.flatMap((s) => {
    const move = signalSpec(s.name).move;
    return move ? [move(s)] : [];
  });
}
