import type Database from "better-sqlite3";
import { unscored, type FusedCandidate } from "./union-fusion";
import { loadNeighbours, propagate } from "./neighbours";
import type { RetrievalSettings } from "./settings";
import type { MemoryRow } from "../store";
import { recencyOf } from "./recency";
import { inWindows, type TimeIntent, type TimeWindow } from "./time-window";

/** The ranking's boosts after fusion (union-ranking.ts): neighbour context and date windows; each is a setting and records its signal (signals.ts). */

/** A fused candidate through the ranking's steps: its `signals` gain a line per step that moved it. */
export interface Staged extends FusedCandidate {
  dateMatch: boolean;
  /** The first date window of the query that holds this memory (withTime), when one does. */
  dateWindow?: TimeWindow;
}

/** Neighbour propagation over fused candidates; neighbours that were not candidates join as "neighbour". */
export function withNeighbours(
  db: Database.Database,
  cands: FusedCandidate[],
  s: RetrievalSettings,
  sources: number,
): Staged[] {
  const staged: Staged[] = cands.map((c) => ({ ...c, signals: [...c.signals], dateMatch: false }));
  if (s.neighbourWeight <= 0 || cands.length === 0) return staged;
  const top = cands.slice(0, sources);
  const adjacent = loadNeighbours(
    db,
    top.map((c) => c.rid),
    s.neighbourGapMinutes,
  );
  const { from } = propagate(new Map(top.map((c) => [c.rid, c.fused])), adjacent, s.neighbourWeight);
  const byRid = new Map(staged.map((c) => [c.rid, c]));
  for (const [rid, f] of from) {
    let c = byRid.get(rid);
    if (!c) {
      c = {
        ...unscored(rid, "neighbour"),
        dateMatch: false,
      };
      byRid.set(rid, c);
      staged.push(c);
    }
    c.fused = (c.fused ?? 0) + f.bonus;
    // value: the adjacent match's score it took its share of; effect: the bonus.
    c.signals.push({ name: "neighbour", value: f.bonus / s.neighbourWeight, effect: f.bonus });
  }
  return staged.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/** Date windows: a candidate inside a date the query names is marked (`dateMatch`), its score × (1 + dateBoost). */
export function withTime(
  cands: Staged[],
  rows: Map<number, MemoryRow>,
  intent: TimeIntent,
  s: RetrievalSettings,
): Staged[] {
  for (const c of cands) {
    const m = rows.get(c.rid);
    if (!m) continue;
    const at = recencyOf(m);
    const w = intent.windows.length ? inWindows(at, intent.windows) : null;
    if (w) {
      c.dateMatch = true;
      c.dateWindow = w;
      if (s.dateBoost > 0) {
        c.fused *= 1 + s.dateBoost;
        c.signals.push({ name: "date", value: 1, effect: 1 + s.dateBoost, note: w.text });
      } else c.signals.push({ name: "date", value: 1, note: w.text });
    }
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}
