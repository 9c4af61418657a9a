/**
 * Live memories per space, from the table the triggers of drizzle/0017_live_counts.sql keep: retrieval
 * reads these every turn, and a count over memories' index cost ~12 ms a turn at 100K memories.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";

/** Live memories in the whole store, and in how many spaces they are. */
export function liveCounts(db: Database.Database): { n: number; spaces: number } {
  const r = stmt(
    db,
    "SELECT coalesce(sum(live), 0) AS n, coalesce(sum(live > 0), 0) AS spaces FROM live_counts",
  ).get() as {
    n: number;
    spaces: number;
  };
  return r;
}

/** Live memories in one space (0 for a space never written). */
export function liveInSpace(db: Database.Database, spaceId: string): number {
  return (
    (stmt(db, "SELECT live FROM live_counts WHERE space_id = ?").get(spaceId) as { live: number } | undefined)?.live ??
    0
  );
}

/**
 * Changes made to a space's memories so far (inserts, deletes, edits, soft deletes and restores, moves):
 * what a per-space cache compares to know it is stale. Another space's writes never move it.
 */
export function spaceWrites(db: Database.Database, spaceId: string): number {
  return (
    (stmt(db, "SELECT writes FROM live_counts WHERE space_id = ?").get(spaceId) as { writes: number } | undefined)
      ?.writes ?? 0
  );
}

/** Spaces whose kept count differs from a count of their live memories (checkInvariant's part). */
export function liveCountProblems(db: Database.Database): string[] {
  const rows = db
    .prepare(
      `SELECT s.space_id AS spaceId, coalesce(c.live, 0) AS kept, s.n AS actual
         FROM (SELECT space_id, sum(soft_deleted = 0) AS n FROM memories GROUP BY space_id) s
         LEFT JOIN live_counts c ON c.space_id = s.space_id
       UNION ALL
       SELECT c.space_id, c.live, 0 FROM live_counts c
         WHERE c.live <> 0 AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.space_id = c.space_id)`,
    )
    .all() as { spaceId: string; kept: number; actual: number }[];
  return rows
    .filter((r) => r.kept !== r.actual)
    .map((r) => `live count of space ${r.spaceId}: kept ${r.kept}, counted ${r.actual}`);
}

/** Live (not forgotten) facts in one space (drizzle/0019's triggers keep it). */
export function factsLiveInSpace(db: Database.Database, spaceId: string): number {
  return (
    (stmt(db, "SELECT facts_live AS n FROM live_counts WHERE space_id = ?").get(spaceId) as { n: number } | undefined)
      ?.n ?? 0
  );
}

/**
 * Changes made to a space's facts so far (inserts, deletes, text, forgetting and restoring, supersession,
 * a re-embed, moves): what a per-space fact cache (a space's fact vectors) compares. Only its own writes move it.
 */
export function factWrites(db: Database.Database, spaceId: string): number {
  return (
    (stmt(db, "SELECT fact_writes AS n FROM live_counts WHERE space_id = ?").get(spaceId) as { n: number } | undefined)
      ?.n ?? 0
  );
}
