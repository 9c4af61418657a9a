import { recencyOf } from "./recency";

/** "neighbour": found by neither leg, recalled as the adjacent exchange of a match (neighbours.ts). */
export type MatchType = "vector" | "fts" | "hybrid" | "neighbour";

export interface RankedList {
  kind: "vector" | "fts";
  weight: number;
  /** Best first. `score`: similarity for vector lists, −bm25 for fts lists (higher is better). */
  items: { rid: number; score: number }[];
  /**
   * Linear fusion: normalise by score / ceiling (clipped to [0, 1]) instead of min-max within the list.
   * Keyword lists pass the query's bm25 ceiling, so a hit matching one weak word stays weak even when
   * it is the best of its list (min-max would give it a full 1 and let it outvote the vector leg).
   */
  ceiling?: number;
  /**
   * The memories inside a date window the query names, ranked by similarity to the query (windows.ts):
   * their similarity is real, but a rank within a window is no vector rank.
   */
  window?: boolean;
}

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
  /** Σ w_i / (k + rank_i): always computed, shown in the breakdown whichever method orders. */
  rrf: number;
  /** The fusion method's score (rrf, or the weighted sum of normalised scores: min-max, or over the ceiling). */
  fused: number;
}

/** A candidate not yet scored by any list (fusion fills it in; reranking stages neighbours with it). */
export function unscored(rid: number, matchType: MatchType): FusedCandidate {
  return { rid, matchType, similarity: null, ftsRank: null, bm25: null, vectorRank: null, rrf: 0, fused: 0 };
}

/** Reciprocal Rank Fusion: score(d) = Σ_i w_i / (k + rank_i(d)), ranks 1-based. */
export function rrfScore(ranks: { rank: number; weight: number }[], k = 60): number {
  let s = 0;
  for (const r of ranks) s += r.weight / (k + r.rank);
  return s;
}

/** Fuse ranked lists into one candidate per memory, with match type and score breakdown, best first. */
export function fuse(lists: RankedList[], method: "rrf" | "linear", k = 60): FusedCandidate[] {
  const byRid = new Map<number, FusedCandidate & { linear: number; inVector: boolean; inFts: boolean }>();
  for (const list of lists) {
    const scores = list.items.map((i) => i.score);
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    list.items.forEach((item, idx) => {
      const rank = idx + 1;
      let c = byRid.get(item.rid);
      if (!c) {
        c = {
          ...unscored(item.rid, "vector"),
          linear: 0,
          inVector: false,
          inFts: false,
        };
        byRid.set(item.rid, c);
      }
      c.rrf += list.weight / (k + rank);
      const norm =
        list.ceiling !== undefined && list.ceiling > 0
          ? Math.min(1, Math.max(0, item.score / list.ceiling))
          : max > min
            ? (item.score - min) / (max - min)
            : 1;
      c.linear += list.weight * norm;
      if (list.kind === "vector") {
        c.inVector = true;
        c.similarity = c.similarity === null ? item.score : Math.max(c.similarity, item.score);
        if (!list.window) c.vectorRank = c.vectorRank === null ? rank : Math.min(c.vectorRank, rank);
      } else {
        c.inFts = true;
        c.ftsRank = c.ftsRank === null ? rank : Math.min(c.ftsRank, rank);
        c.bm25 = c.bm25 === null ? -item.score : Math.min(c.bm25, -item.score);
      }
    });
  }
  const out: FusedCandidate[] = [];
  for (const c of byRid.values()) {
    const { linear, inVector, inFts, ...rest } = c;
    out.push({
      ...rest,
      matchType: inVector && inFts ? "hybrid" : inVector ? "vector" : "fts",
      fused: method === "rrf" ? c.rrf : linear,
    });
  }
  out.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
  return out;
}

export interface QualityFilterOptions {
  minSimilarity: number;
  ftsFloor: number;
}

/** Drop weak single-leg results: vector-only below minSimilarity, fts-only with −bm25 below ftsFloor. */
export function qualityFilter<T extends FusedCandidate>(
  cands: T[],
  opts: QualityFilterOptions,
): { kept: T[]; dropped: (T & { reason: string })[] } {
  const kept: T[] = [];
  const dropped: (T & { reason: string })[] = [];
  for (const c of cands) {
    if (c.matchType === "vector" && (c.similarity ?? 0) < opts.minSimilarity) {
      dropped.push({
        ...c,
        reason: `vector-only, similarity ${(c.similarity ?? 0).toFixed(3)} < ${opts.minSimilarity}`,
      });
    } else if (c.matchType === "fts" && -(c.bm25 ?? 0) < opts.ftsFloor) {
      dropped.push({ ...c, reason: `fts-only, bm25 ${(-(c.bm25 ?? 0)).toFixed(3)} < ${opts.ftsFloor}` });
    } else kept.push(c);
  }
  return { kept, dropped };
}

/**
 * Importance nudge: final = fused × (1 + weight × importance/5); ties go to pinned memories, then
 * higher importance, then the newer memory (the later of its timestamp and its last edit).
 */
export function applyImportance<T extends FusedCandidate>(
  cands: T[],
  info: (
    rid: number,
  ) => { importance: number; pinned: boolean; timestamp: string; updatedAt?: string | null } | undefined,
  weight: number,
): (T & { final: number })[] {
  return cands
    .map((c) => {
      const m = info(c.rid);
      return { ...c, final: c.fused * (1 + weight * ((m?.importance ?? 0) / 5)), _m: m };
    })
    .sort((a, b) => {
      const d = b.final - a.final;
      if (Math.abs(d) > 1e-12) return d;
      const pa = a._m?.pinned ? 1 : 0;
      const pb = b._m?.pinned ? 1 : 0;
      if (pa !== pb) return pb - pa;
      const ia = a._m?.importance ?? 0;
      const ib = b._m?.importance ?? 0;
      if (ia !== ib) return ib - ia;
      // Newer first, an edit counting as new (store.recencyOf).
      return (b._m ? recencyOf(b._m) : "").localeCompare(a._m ? recencyOf(a._m) : "");
    })
    .map(({ _m, ...rest }) => rest as unknown as T & { final: number });
}
