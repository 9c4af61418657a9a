import { recencyOf } from "./recency";
import type { RetrievalSettings } from "./settings";
import type { FusedCandidate } from "./union-fusion";

/** The last steps of the ranking (union-ranking.ts): the quality filter and the importance nudge. */

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
