import { recencyOf } from "./recency";
import type { RetrievalSettings } from "./settings";

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
  /** Σ w_i / (k + rank_i) over the union's signals (score-union.ts): shown in the breakdown whichever method orders. */
  rrf: number;
  /** The fusion method's score (rrf, or the weighted sum of min–max normalised signals). */
  fused: number;
}

/** A candidate not yet scored by any list (fusion fills it in; reranking stages neighbours with it). */
export function unscored(rid: number, matchType: MatchType): FusedCandidate {
  return { rid, matchType, similarity: null, ftsRank: null, bm25: null, vectorRank: null, rrf: 0, fused: 0 };
}

export type QualityFilterOptions = Pick<RetrievalSettings, "minSimilarity" | "ftsFloor">;

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
  return (
    cands
      .map((c) => {
        const m = info(c.rid);
        return { ...c, final: c.fused * (1 + weight * ((m?.importance ?? 0) / 5)), _m: m };
      })
      // Ties (within float noise): pinned, then importance, then newer first, an edit counting as new.
      .sort(
        (a, b) =>
          (Math.abs(b.final - a.final) > 1e-12 ? b.final - a.final : 0) ||
          Number(b._m?.pinned ?? false) - Number(a._m?.pinned ?? false) ||
          (b._m?.importance ?? 0) - (a._m?.importance ?? 0) ||
          (b._m ? recencyOf(b._m) : "").localeCompare(a._m ? recencyOf(a._m) : ""),
      )
      .map(({ _m, ...rest }) => rest as unknown as T & { final: number })
  );
}
