import { packable } from "../../memory/retrieval/retrieve";
import type { RetrievalSettings } from "../../memory/retrieval/settings";
import { FEATURES, type Features } from "../../memory/retrieval/confidence-features";
import { LIFE_TYPES, type LifeDataset, type LifeQuestion, type LifeType } from "./life";
import { searchLife, type LifeStore } from "./life-harness";
import { createRng } from "./rng";

/** Figures of one configuration over some questions (see README of this folder). */
export interface TypeFigures {
  n: number;
  /** Answerable: share of gold in the top 6 / top 10, averaged; MRR@10 of the first gold. */
  recall6: number;
  recall10: number;
  mrr: number;
  /** recall@6 of what would be packed (results at or above the minimum confidence, at most 6). */
  packedRecall6: number;
  /** Mean memories packed (of 6): on unanswerable turns this is the noise that reaches the prompt. */
  packed: number;
  /**
   * Mean packed memories that are not the question's gold (of 6): the noise an answerable turn's prompt
   * gets beside its answer (equal to `packed` on unanswerable turns). A memory on the question's subject
   * that is not its gold counts here too, so this is an upper bound on the noise.
   */
  packedOther: number;
}

export interface Evaluation {
  answerable: TypeFigures;
  unanswerable: TypeFigures;
  perType: Partial<Record<LifeType, TypeFigures>>;
  /** The single-hop questions answered by a short reply in the next exchange (what neighbour context is for). */
  shortReplies: TypeFigures;
  /** Knowledge updates: share where the newer memory ranks above the stale one (or the stale one is absent). */
  newerFirst: number | null;
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const TOP_N = 6;

export interface PerQuestion {
  q: LifeQuestion;
  ids: string[];
  confidences: number[];
  /** Features of each result (for fitting the confidence model). */
  features?: Features[];
}

export async function runQuestions(
  store: LifeStore,
  ds: LifeDataset,
  questions: LifeQuestion[],
  s: RetrievalSettings,
  k = 10,
): Promise<PerQuestion[]> {
  const out: PerQuestion[] = [];
  for (const q of questions) {
    const r = await searchLife(store, ds, q, s, k);
    out.push({ q, ids: r.results.map((x) => x.id), confidences: r.results.map((x) => x.scores.confidence) });
  }
  return out;
}

/** One question's figures: gold shares in the top 6 / top 10 / packed, reciprocal rank, memories packed. */
function questionFigures(
  store: LifeStore,
  { q, ids, confidences }: PerQuestion,
  minConfidence: number,
): { r6: number; r10: number; p6: number; rr: number; packed: number; other: number } {
  const gold = q.gold.map((g) => store.idOf.get(g)!);
  const packedIds = packable(
    ids.map((id, i) => ({ id, scores: { confidence: confidences[i]! } })),
    minConfidence,
  )
    .slice(0, TOP_N)
    .map((x) => x.id);
  const share = (top: string[]) => (gold.length ? gold.filter((g) => top.includes(g)).length / gold.length : 0);
  const first = ids.findIndex((id) => gold.includes(id));
  return {
    r6: share(ids.slice(0, 6)),
    r10: share(ids.slice(0, 10)),
    p6: share(packedIds),
    rr: first >= 0 && first < 10 ? 1 / (first + 1) : 0,
    packed: packedIds.length,
    other: packedIds.filter((id) => !gold.includes(id)).length,
  };
}

export function figures(store: LifeStore, rows: PerQuestion[], minConfidence: number): Evaluation {
  const agg = (sel: PerQuestion[]): TypeFigures => {
    let r6 = 0,
      r10 = 0,
      mrr = 0,
      p6 = 0,
      packed = 0,
      other = 0;
    for (const row of sel) {
      const f = questionFigures(store, row, minConfidence);
      packed += f.packed;
      other += f.other;
      if (!row.q.gold.length) continue;
      r6 += f.r6;
      r10 += f.r10;
      p6 += f.p6;
      mrr += f.rr;
    }
    const n = sel.length || 1;
    return {
      n: sel.length,
      recall6: r4(r6 / n),
      recall10: r4(r10 / n),
      mrr: r4(mrr / n),
      packedRecall6: r4(p6 / n),
      packed: r4(packed / n),
      packedOther: r4(other / n),
    };
  };
  const perType: Partial<Record<LifeType, TypeFigures>> = {};
  for (const t of LIFE_TYPES) {
    const sel = rows.filter((x) => x.q.type === t);
    if (sel.length) perType[t] = agg(sel);
  }
  const upd = rows.filter((x) => x.q.stale);
  const newer = upd.filter((x) => {
    const a = x.ids.indexOf(store.idOf.get(x.q.gold[0]!)!);
    const b = x.ids.indexOf(store.idOf.get(x.q.stale!)!);
    return a >= 0 && (b < 0 || a < b);
  }).length;
  return {
    answerable: agg(rows.filter((x) => x.q.gold.length > 0)),
    unanswerable: agg(rows.filter((x) => x.q.gold.length === 0)),
    perType,
    shortReplies: agg(rows.filter((x) => x.q.shortReply)),
    newerFirst: upd.length ? r4(newer / upd.length) : null,
  };
}

/** Training rows for the confidence model: every result of every question, labelled gold or not. */
export async function calibrationRows(
  store: LifeStore,
  ds: LifeDataset,
  questions: LifeQuestion[],
  s: RetrievalSettings,
  k = 10,
): Promise<{ f: Features; y: 0 | 1; w: number }[]> {
  const rows: { f: Features; y: 0 | 1; w: number }[] = [];
  // Unanswerable turns count as much as answerable ones in all (there are fewer of them): their
  // results are what the threshold exists to keep out of the prompt.
  const nAns = questions.filter((q) => q.gold.length).length;
  const nUn = questions.length - nAns;
  const wUn = nUn ? nAns / nUn : 1;
  for (const q of questions) {
    const gold = new Set(q.gold.map((g) => store.idOf.get(g)!));
    for (const r of (await searchLife(store, ds, q, s, k)).results)
      if (r.features) rows.push({ f: r.features, y: gold.has(r.id) ? 1 : 0, w: q.gold.length ? 1 : wUn });
  }
  return rows;
}

export const featureNames = FEATURES;

/**
 * Per question: recall@10 of an answerable turn (with its topic, the part of the first gold key before
 * ":"), memories packed (of 6) on an unanswerable one.
 */
function perQuestion(
  store: LifeStore,
  rows: PerQuestion[],
  minConfidence: number,
): { r10: number[]; topic: string[]; packed: number[] } {
  const r10: number[] = [];
  const topic: string[] = [];
  const packed: number[] = [];
  for (const row of rows) {
    const f = questionFigures(store, row, minConfidence);
    if (row.q.gold.length) {
      r10.push(f.r10);
      topic.push(row.q.gold[0]!.split(":")[0]!);
    } else packed.push(f.packed);
  }
  return { r10, topic, packed };
}

export interface Interval {
  /** 2.5th and 97.5th percentiles over bootstrap resamples of the questions. */
  lo: number;
  hi: number;
}

function percentileInterval(values: number[]): Interval {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))] ?? 0;
  return { lo: r4(at(0.025)), hi: r4(at(0.975)) };
}

/**
 * 95% bootstrap intervals (seeded) of answerable recall@10 and unanswerable packed memories for one
 * configuration, and of the paired difference in recall@10 against a baseline run on the same questions.
 * Answerable questions come in topics (~3 questions each ask about one story) and succeed or fail
 * together, so whole topics are resampled (a cluster bootstrap); unanswerable turns one by one. With ~50
 * topics a half, differences of a question or two (±0.01) are noise, and the intervals say so.
 */
export function bootstrapIntervals(
  store: LifeStore,
  rows: PerQuestion[],
  minConfidence: number,
  baseline: { rows: PerQuestion[]; minConfidence: number },
  samples = 1000,
): { recall10: Interval; unanswerablePacked: Interval; recall10MinusBaseline: Interval } {
  const a = perQuestion(store, rows, minConfidence);
  const b = perQuestion(store, baseline.rows, baseline.minConfidence);
  const rng = createRng("bootstrap");
  const mean = (xs: number[], idx: number[]) => idx.reduce((s, i) => s + xs[i]!, 0) / Math.max(1, idx.length);
  const draw = (n: number) => Array.from({ length: n }, () => rng.int(0, n - 1));
  const topics = new Map<string, number[]>();
  a.topic.forEach((t, i) => topics.set(t, [...(topics.get(t) ?? []), i]));
  const clusters = [...topics.values()];
  const r10: number[] = [];
  const packed: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < samples; i++) {
    const ia = draw(clusters.length).flatMap((c) => clusters[c]!);
    r10.push(mean(a.r10, ia));
    diff.push(mean(a.r10, ia) - mean(b.r10, ia));
    packed.push(mean(a.packed, draw(a.packed.length)));
  }
  return {
    recall10: percentileInterval(r10),
    unanswerablePacked: percentileInterval(packed),
    recall10MinusBaseline: percentileInterval(diff),
  };
}
