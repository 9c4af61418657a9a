/**
 * A memory's weight: pins and importance as people set them (the Manager's selection), and as decay moves
 * them (docs/storage.md#what-each-job-may-change). None of these touch text, space or liveness, so no
 * vector, keyword row, live count or fact changes with them; they are here so that every write of
 * `memories` is the store's (server/memory/store/write-path.test.ts).
 */
import type Database from "better-sqlite3";
import { writableMemoryScan } from "../../core/acting";

/**
 * Pin or unpin memories (pinning sets importance 5, as /remember does); rows already so are left alone.
 * Only memories the acting person may change are written. Returns how many changed.
 */
export function setMemoriesPinned(db: Database.Database, ids: string[], pinned: boolean): number {
  return db
    .prepare(
      `UPDATE memories SET pinned = @pinned, importance = CASE WHEN @pinned = 1 THEN 5 ELSE importance END
        WHERE id IN (SELECT value FROM json_each(@ids)) AND pinned != @pinned
          AND ${writableMemoryScan("space_id", "soft_deleted")}`,
    )
    .run({ pinned: pinned ? 1 : 0, ids: JSON.stringify(ids) }).changes;
}

/**
 * Set the importance of memories; pinned ones keep importance 5. Only memories the acting person may
 * change are written. Returns how many changed.
 */
export function setMemoriesImportance(db: Database.Database, ids: string[], importance: number): number {
  return db
    .prepare(
      `UPDATE memories SET importance = ? WHERE id IN (SELECT value FROM json_each(?)) AND pinned = 0 AND importance != ?
          AND ${writableMemoryScan("space_id", "soft_deleted")}`,
    )
    .run(importance, JSON.stringify(ids), importance).changes;
}

/** Which memories one decay pass is about: one person's (in the spaces they own), of the kinds that decay. */
export interface DecayScope {
  person: string;
  /** The kinds that decay for this person. */
  kinds: string[];
}

/** SQL over `memories`: of a kind that decays (named parameter @kinds, a JSON list). */
export const decayingScan = "kind IN (SELECT value FROM json_each(@kinds))";
/** SQL over `memories`: one person's (named parameter @person), in the spaces they own. */
export const theirsScan = "space_id IN (SELECT id FROM spaces WHERE person_id = @person)";
/** A scope's named parameters for decayingScan and theirsScan. */
export const decayScopeParams = (s: DecayScope) => ({ kinds: JSON.stringify(s.kinds), person: s.person });

/**
 * Decay step 1: every live, unpinned memory of the scope with importance > 0 whose last activity (retrieval,
 * else creation) is on or before `idleCutoff` loses 1; one that reaches 0 is marked at `now`.
 * Returns the memories changed with their new importance.
 */
export function decayImportance(
  db: Database.Database,
  scope: DecayScope,
  idleCutoff: string,
  now: string,
): { id: string; importance: number }[] {
  return db
    .prepare(
      `UPDATE memories SET importance = importance - 1,
         zero_importance_since = CASE WHEN importance = 1 THEN @now ELSE zero_importance_since END
       WHERE soft_deleted = 0 AND pinned = 0 AND importance > 0 AND ${decayingScan} AND ${theirsScan}
         AND substr(coalesce(last_retrieved_at, created_at), 1, 10) <= @idleCutoff
       RETURNING id, importance`,
    )
    .all({ now, idleCutoff, ...decayScopeParams(scope) }) as { id: string; importance: number }[];
}

/**
 * Decay step 2, the importance-0 mark: cleared where promoted (or pinned) since, or where the kind stopped
 * decaying; set at `now` where missing. Returns how many were newly marked.
 */
export function refreshZeroMarks(db: Database.Database, scope: DecayScope, now: string): number {
  db.prepare(
    `UPDATE memories SET zero_importance_since = NULL WHERE zero_importance_since IS NOT NULL AND ${theirsScan}
       AND (importance > 0 OR pinned = 1 OR NOT ${decayingScan})`,
  ).run(decayScopeParams(scope));
  return db
    .prepare(
      `UPDATE memories SET zero_importance_since = @now WHERE soft_deleted = 0 AND pinned = 0 AND importance = 0
         AND zero_importance_since IS NULL AND ${decayingScan} AND ${theirsScan}`,
    )
    .run({ now, ...decayScopeParams(scope) }).changes;
}

/** Clear the importance-0 mark of some memories (kept by a person: they wait for nothing). */
export function clearZeroMarks(db: Database.Database, ids: string[]): void {
  db.prepare("UPDATE memories SET zero_importance_since = NULL WHERE id IN (SELECT value FROM json_each(?))").run(
    JSON.stringify(ids),
  );
}
