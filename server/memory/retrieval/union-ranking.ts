/**
 * Stage 3 of retrieval: the fused union re-ranked — neighbour context, the date windows that separate
 * (window-coverage.ts), provenance (provenance.ts), the quality filter, importance — and the head the
 * confidence reads (docs/retrieval.md#the-pipeline).
 */
import type Database from "better-sqlite3";
import { getMemoriesByRid, type MemoryRow } from "../store";
import { derivedOf } from "../store/provenance";
import { applyImportance, qualityFilter } from "./quality-importance";
import type { FusedCandidate } from "./union-fusion";
import { belowSources, MOSTLY_RESTATED, withProvenance } from "./provenance";
import { withNeighbours, withTime, type Staged } from "./boosts";
import type { RetrievalSettings } from "./settings";
import type { StageTimer } from "./stages";
import type { TimeIntent } from "./time-window";
import { TURN_LEADERS } from "./confidence";

export type Ranked = Staged & { final: number; norms?: Record<string, number> };

export function rankUnion(
  db: Database.Database,
  fused: (FusedCandidate & { norms: Record<string, number> })[],
  settings: RetrievalSettings,
  time: TimeIntent,
  opts: { depth: number; k: number; timer?: StageTimer },
): {
  rows: Map<number, MemoryRow>;
  head: Ranked[];
  dropped: (Staged & { reason: string })[];
} {
  // The 10 leading results (the ranking depth) pass a share to their neighbours (docs/retrieval.md#neighbour-context).
  const staged = withNeighbours(db, fused, settings, opts.depth);
  opts.timer?.mark("neighbours");
  const rows = getMemoriesByRid(
    db,
    staged.map((c) => c.rid),
  );
  const timed = withTime(staged, rows, time, settings);
  // After the date boost: a restatement inside the window stays below a source outside it.
  const derived = derivedOf(
    db,
    timed.map((c) => c.rid),
  );
  const sourced = withProvenance(timed, derived, settings);
  const { kept, dropped } = settings.qualityFilter ? qualityFilter(sourced, settings) : { kept: sourced, dropped: [] };
  // An exchange that is mostly a reply restating a fact since deleted, undone or replaced is not packed
  // (issue 54): it is a copy of what the person took back, and would otherwise stand in for it. One that
  // carries new words of the person's (novelty) stays, as their evidence.
  const live = kept.filter((c) => {
    if (!rows.get(c.rid) || rows.get(c.rid)!.softDeleted) return false;
    const d = derived.get(c.rid);
    const retired = d && d.novelty < MOSTLY_RESTATED ? d.retired : null;
    if (retired) dropped.push({ ...c, reason: `restated “${retired}”, no longer current` });
    return !retired;
  });
  const nudged = applyImportance(live, (rid) => rows.get(rid), settings.importanceWeight);
  for (const c of nudged) {
    const importance = rows.get(c.rid)?.importance ?? 0;
    const factor = 1 + settings.importanceWeight * (importance / 5);
    if (factor !== 1) c.signals.push({ name: "importance", value: importance, effect: factor });
  }
  const weighted = belowSources(nudged, derived, settings);
  opts.timer?.mark("filter");
  return { rows, head: weighted.slice(0, Math.max(opts.k, TURN_LEADERS) + 1), dropped };
}
