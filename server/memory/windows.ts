import type Database from "better-sqlite3";
import { stmt } from "../core/statements";
import type { RankedList } from "./fuse";
import { dot, storedVectors } from "./score-union";
import type { TimeWindow } from "./time-window";

/** Most memories a window list reads (a month of a busy history; more would cost milliseconds). */
const WINDOW_LIMIT = 300;

// CAST: see neighbours.ts (a bound space before a range makes SQLite re-prepare on every call).
const IN_WINDOW = `SELECT rid FROM memories WHERE space_id = CAST(? AS TEXT) AND soft_deleted = 0 AND timestamp >= ? AND timestamp <= ?
  ORDER BY timestamp LIMIT ?`;

/**
 * The window list (docs/retrieval.md#time-aware-retrieval): the memories inside the date windows the
 * query names, ranked by cosine similarity to the query. "What else did we talk about the day after the
 * concert?" asks for memories neither leg finds — they share no word or topic with the question — so a
 * date boost alone, which multiplies a score they do not have, cannot bring them in. Scores are
 * similarities over the list's best (linear fusion's ceiling), so the weakest member keeps a share.
 */
export function windowList(
  db: Database.Database,
  spaceId: string,
  windows: TimeWindow[],
  query: Float32Array,
  weight: number,
): RankedList | null {
  if (weight <= 0 || windows.length === 0) return null;
  const rids = new Set<number>();
  for (const w of windows)
    for (const r of stmt(db, IN_WINDOW).all(spaceId, w.start, w.end, WINDOW_LIMIT) as { rid: number }[])
      if (rids.size < WINDOW_LIMIT) rids.add(r.rid);
  if (rids.size === 0) return null;
  const vecs = storedVectors(db, [...rids]);
  const items = [...vecs].map(([rid, v]) => ({ rid, score: dot(query, v) })).sort((a, b) => b.score - a.score);
  if (items.length === 0) return null;
  return { kind: "vector", window: true, weight, ceiling: Math.max(1e-6, items[0]!.score), items };
}
