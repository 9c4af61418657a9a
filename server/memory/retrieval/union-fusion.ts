/**
 * The core of hybrid retrieval (docs/retrieval.md#the-core): the legs only FIND candidates; every one of
 * the union is SCORED on every signal (its stored vector's cosine, its bm25), each min–max normalised over
 * the union, and fused. A candidate one leg missed keeps its true score there (0 cost ~0.05 recall@10).
 */

import type { CandidateSignal } from "./signals";

/**
 * "neighbour": found by neither leg, recalled as the adjacent exchange of a match (neighbours.ts); "fact":
 * found only through one of its facts (fact-keys.ts).
 */
export type MatchType = "vector" | "fts" | "hybrid" | "neighbour" | "fact";

export interface FusedCandidate {
  rid: number;
  matchType: MatchType;
  /** Best cosine similarity over the vector lists, or null if only keyword search found it. */
  similarity: number | null;
  /** Best 1-based position in a keyword list, or null. */
  ftsRank: number | null;
  /** Best (lowest) bm25 over the keyword lists, or null. */
  bm25: number | null;
  /** Best 1-based position in a vector list, or null. */
  vectorRank: number | null;
  /** Σ w_i / (k + rank_i) over the union's signals (fuseUnion): shown in the breakdown whichever method orders. */
  rrf: number;
  /** The fusion method's score (rrf, or the weighted sum of min–max normalised signals). */
  fused: number;
  /** What each stage read and did to it, in stage order (signals.ts): the breakdown Debug Search shows. */
  signals: CandidateSignal[];
}

/** A candidate not yet scored by any list (fusion fills it in; reranking stages neighbours with it). */
export function unscored(rid: number, matchType: MatchType): FusedCandidate {
  return {
    rid,
    matchType,
    similarity: null,
    ftsRank: null,
    bm25: null,
    vectorRank: null,
    rrf: 0,
    fused: 0,
    signals: [],
  };
}

/** One signal over the union: a raw score per candidate (higher is better) and its fusion weight. */
export interface UnionSignal {
  /** The memory's own vector or words, or its facts' (fact-keys.ts). */
  kind: "vector" | "fts" | "factVector" | "factFts";
  weight: number;
  /** Raw score per rid; a candidate without one (no keyword match, outside the window) scores 0 on it. */
  scores: Map<number, number>;
}

/** Min–max over the union: the best candidate 1, the worst 0; all equal → all 1 (the signal cannot rank). */
export function minMax(values: number[]): number[] {
  if (values.length === 0) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return hi > lo ? values.map((v) => (v - lo) / (hi - lo)) : values.map(() => 1);
}

export interface UnionInput {
  /** Candidates, with which leg's pool found them and at which rank (1-based); factRank: the fact legs'. */
  found: Map<number, { vectorRank: number | null; ftsRank: number | null; factRank?: number | null }>;
  signals: UnionSignal[];
  /** The main query's cosine and −bm25 per rid (the breakdown Debug Search shows). */
  similarity: Map<number, number>;
  keyword: Map<number, number>;
  method: "linear" | "rrf";
  rrfK: number;
}

/**
 * Fuse the union: linear = Σ weight × min–max(signal); rrf = Σ weight / (k + rank by signal), ranking
 * only candidates with a score on that signal. Best first, ties by rid.
 */
export function fuseUnion(u: UnionInput): (FusedCandidate & { norms: Record<string, number> })[] {
  const rids = [...u.found.keys()];
  const linear = new Map<number, number>(rids.map((r) => [r, 0]));
  const rrf = new Map<number, number>(rids.map((r) => [r, 0]));
  const norms = new Map<number, Record<string, number>>(rids.map((r) => [r, {}]));
  // Each candidate's part of the fused score per kind of signal, under both methods (the breakdown).
  const parts = new Map<number, Map<UnionSignal["kind"], { value: number | null; linear: number; rrf: number }>>(
    rids.map((r) => [r, new Map()]),
  );
  const part = (r: number, kind: UnionSignal["kind"]) => {
    const byKind = parts.get(r)!;
    let p = byKind.get(kind);
    if (!p) byKind.set(kind, (p = { value: null, linear: 0, rrf: 0 }));
    return p;
  };
  for (const s of u.signals) {
    const raw = rids.map((r) => s.scores.get(r) ?? 0);
    const n = minMax(raw);
    rids.forEach((r, i) => {
      linear.set(r, linear.get(r)! + s.weight * n[i]!);
      const rec = norms.get(r)!;
      rec[s.kind] = Math.max(rec[s.kind] ?? 0, n[i]!);
      const v = s.scores.get(r);
      if (v === undefined && n[i] === 0) return;
      const p = part(r, s.kind);
      p.linear += s.weight * n[i]!;
      if (v !== undefined) p.value = p.value === null ? v : Math.max(p.value, v);
    });
    const ranked = rids.filter((r) => s.scores.has(r)).sort((a, b) => s.scores.get(b)! - s.scores.get(a)! || a - b);
    ranked.forEach((r, i) => {
      rrf.set(r, rrf.get(r)! + s.weight / (u.rrfK + i + 1));
      part(r, s.kind).rrf += s.weight / (u.rrfK + i + 1);
    });
  }
  const out = rids.map((rid) => {
    const f = u.found.get(rid)!;
    const kw = u.keyword.get(rid);
    return {
      ...unscored(
        rid,
        f.vectorRank !== null && f.ftsRank !== null
          ? "hybrid"
          : f.vectorRank !== null
            ? "vector"
            : f.ftsRank !== null
              ? "fts"
              : "fact",
      ),
      similarity: u.similarity.get(rid) ?? null,
      bm25: kw !== undefined ? -kw : null,
      vectorRank: f.vectorRank,
      ftsRank: f.ftsRank,
      rrf: rrf.get(rid)!,
      fused: u.method === "rrf" ? rrf.get(rid)! : linear.get(rid)!,
      norms: norms.get(rid)!,
      signals: [...parts.get(rid)!].map(
        ([kind, p]): CandidateSignal => ({
          name: kind,
          value: p.value ?? 0,
          effect: u.method === "rrf" ? p.rrf : p.linear,
          ...(p.value === null ? { note: "no score: 0 there" } : {}),
        }),
      ),
    };
  });
  out.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
  return out;
}
