/**
 * A date window is a signal only when it separates (issue 47, docs/retrieval.md#time-aware-retrieval): a
 * window that holds more than `maxWindowShare` of the space's live memories ("now" in a store written
 * today, "this year" in a young one) boosts nearly everything and tells nothing, so it is no window. What
 * holds at present is the current facts' validity (fact-block.ts), not the memories stored today.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { liveInSpace } from "../store";
import type { TimeIntent, TimeWindow } from "./time-window";

/** The share of the space's live memories whose time (the later of timestamp and last edit) lies in the window. */
export function windowShare(db: Database.Database, spaceId: string, w: TimeWindow): number {
  const total = liveInSpace(db, spaceId);
  if (total === 0) return 0;
  const n = (
    stmt(
      db,
      `SELECT count(*) AS n FROM memories WHERE space_id = ? AND soft_deleted = 0
         AND max(timestamp, coalesce(updated_at, timestamp)) BETWEEN ? AND ?`,
    ).get(spaceId, w.start, w.end) as { n: number }
  ).n;
  return n / total;
}

/** The query's windows without those that cover more than `maxShare` of the space (and those, for `moves`). */
export function informativeWindows(
  db: Database.Database,
  spaceId: string,
  intent: TimeIntent,
  maxShare: number,
): { time: TimeIntent; broad: TimeWindow[] } {
  if (maxShare >= 1 || intent.windows.length === 0) return { time: intent, broad: [] };
  const broad = intent.windows.filter((w) => windowShare(db, spaceId, w) > maxShare);
  return broad.length
    ? { time: { ...intent, windows: intent.windows.filter((w) => !broad.includes(w)) }, broad }
    : { time: intent, broad: [] };
}
