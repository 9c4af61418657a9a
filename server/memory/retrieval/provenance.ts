/**
 * Provenance in ranking (issue 47, docs/retrieval.md#provenance): a stored exchange whose reply was given
 * recalled memories and facts (store/provenance.ts) is derived — what it restated has sources in the store
 * already. It scores × (derivedWeight + (1 − derivedWeight) × novelty), novelty being the share of its content
 * words found in none of those sources; and one mostly restated (novelty below one half) never outranks the
 * best of its sources that the query found. Read from stored structure and scores only.
 */
import type { DerivedMemory } from "../store/provenance";
import type { Staged } from "./boosts";
import type { RetrievalSettings } from "./settings";

/** Below this novelty an exchange is mostly what it was given: it ranks after its sources. */
export const MOSTLY_RESTATED = 0.5;

/** Each derived candidate's score × (derivedWeight + (1 − derivedWeight) × novelty), re-sorted. */
export function withProvenance(
  cands: Staged[],
  derived: Map<number, DerivedMemory>,
  s: Pick<RetrievalSettings, "derivedWeight">,
): Staged[] {
  if (derived.size === 0 || s.derivedWeight >= 1) return cands;
  for (const c of cands) {
    const d = derived.get(c.rid);
    if (!d) continue;
    const factor = s.derivedWeight + (1 - s.derivedWeight) * Math.min(1, Math.max(0, d.novelty));
    if (factor < 1) {
      c.fused *= factor;
      c.signals.push({ name: "derived", value: d.novelty, effect: factor });
    }
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/**
 * The last word of the ranking (after importance): a mostly restated exchange scores just below the best of
 * its sources that the query found, so it never outranks what it restated.
 */
export function belowSources<T extends Staged & { final: number }>(
  cands: T[],
  derived: Map<number, DerivedMemory>,
  s: Pick<RetrievalSettings, "derivedWeight">,
): T[] {
  if (derived.size === 0 || s.derivedWeight >= 1) return cands;
  const byRid = new Map(cands.map((c) => [c.rid, c]));
  let moved = false;
  for (const c of cands) {
    const d = derived.get(c.rid);
    if (!d || d.novelty >= MOSTLY_RESTATED) continue;
    let best = Number.NEGATIVE_INFINITY;
    for (const rid of d.sources) {
      const src = byRid.get(rid);
      if (src) best = Math.max(best, src.final);
    }
    if (Number.isFinite(best) && c.final >= best) {
      c.final = best * (1 - 1e-6) - 1e-9;
      c.signals.push({ name: "belowSource", value: best, effect: c.final });
      moved = true;
    }
  }
  return moved ? cands.sort((a, b) => b.final - a.final || a.rid - b.rid) : cands;
}
