/**
 * Forgetting stays truthful (issue 42 item 5): a fact is only as alive as its sources. The memory store's
 * trash (server/memory/store/trash.ts) calls these inside its own transactions, so that no path that
 * soft-deletes, restores or purges memories (/forget, the Manager, decay's expiry, deleting a chat, a
 * replaced exchange, a re-ingested document, removing a person) can leave a fact behind or skip one.
 *  - soft delete: a live fact whose every source is now gone is forgotten, with its earlier versions;
 *  - restore (the undo of a forget): facts forgotten that way whose source is back come back;
 *  - purge: a fact left with no stored source is deleted for good, with every earlier version.
 * A fact a person deleted stays deleted whatever happens to its sources.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { bringBack, forgetWithHistory, purgeFactRows } from "./forgetting";
import { earlierVersions } from "./lineage";

const HAS_LIVE_SOURCE = `EXISTS (SELECT 1 FROM fact_sources s2 JOIN memories m ON m.id = s2.memory_id
  WHERE s2.fact_id = f.id AND m.soft_deleted = 0)`;

/** Facts (live or not) with a source among these memories. */
function factsSourcedBy(db: Database.Database, memoryIds: string[], where: string): string[] {
  if (memoryIds.length === 0) return [];
  return (
    stmt(
      db,
      `SELECT DISTINCT f.id FROM fact_sources s JOIN facts f ON f.id = s.fact_id
        WHERE s.memory_id IN (SELECT value FROM json_each(?)) AND ${where} ORDER BY f.rid`,
    ).all(JSON.stringify(memoryIds)) as { id: string }[]
  ).map((r) => r.id);
}

/** Forget the live facts among `ids` with no live source left (and their earlier versions). */
function forgetUnsupported(db: Database.Database, ids: string[], at: string): string[] {
  if (ids.length === 0) return [];
  const unsupported = (
    stmt(
      db,
      `SELECT f.id FROM facts f WHERE f.id IN (SELECT value FROM json_each(?)) AND f.deleted_at IS NULL
         AND NOT ${HAS_LIVE_SOURCE} ORDER BY f.rid`,
    ).all(JSON.stringify(ids)) as { id: string }[]
  ).map((r) => r.id);
  return forgetWithHistory(db, unsupported, "sources", at);
}

/**
 * The current facts that forgetting these memories would take along (their every live source is among them):
 * what a /forget preview lists before it asks (issue 54). Reads only; the cascade itself is the trash's.
 */
export function factsLeftWithout(db: Database.Database, memoryIds: string[]): { id: string; text: string }[] {
  if (memoryIds.length === 0) return [];
  return stmt(
    db,
    `SELECT f.id, f.text FROM facts f
      WHERE f.deleted_at IS NULL AND f.superseded_by IS NULL AND f.valid_to IS NULL
        AND f.id IN (SELECT fact_id FROM fact_sources WHERE memory_id IN (SELECT value FROM json_each(?)))
        AND NOT EXISTS (SELECT 1 FROM fact_sources s2 JOIN memories m ON m.id = s2.memory_id
                         WHERE s2.fact_id = f.id AND m.soft_deleted = 0
                           AND m.id NOT IN (SELECT value FROM json_each(?)))
      ORDER BY f.rid`,
  ).all(JSON.stringify(memoryIds), JSON.stringify(memoryIds)) as { id: string; text: string }[];
}

/** After memories were soft-deleted: forget the facts they were the last live sources of. Returns the ids forgotten. */
export function forgetFactsOfMemories(db: Database.Database, memoryIds: string[], at: string): string[] {
  return forgetUnsupported(db, factsSourcedBy(db, memoryIds, "f.deleted_at IS NULL"), at);
}

/**
 * After memories were restored: bring back the facts forgotten because their sources went, one of which is
 * back. An earlier version that came back along but has no live source of its own is forgotten again, on
 * its own account. Returns the ids that are live again.
 */
export function restoreFactsOfMemories(db: Database.Database, memoryIds: string[], at: string): string[] {
  const roots = factsSourcedBy(
    db,
    memoryIds,
    `f.deleted_at IS NOT NULL AND f.deleted_reason = 'sources' AND f.deleted_root = f.id AND ${HAS_LIVE_SOURCE}`,
  );
  const back = bringBack(db, roots, "sources");
  const again = new Set(forgetUnsupported(db, back, at));
  return back.filter((id) => !again.has(id));
}

/**
 * Before memories are purged: drop their source rows, then delete for good every fact left with no source,
 * with all its earlier versions; a fact left with sources but none live (the others in the trash) is
 * forgotten. Returns how many facts were deleted.
 */
export function purgeFactsOfMemories(db: Database.Database, memoryIds: string[], at: string): number {
  if (memoryIds.length === 0) return 0;
  const touched = factsSourcedBy(db, memoryIds, "1");
  if (touched.length === 0) return 0;
  stmt(db, "DELETE FROM fact_sources WHERE memory_id IN (SELECT value FROM json_each(?))").run(
    JSON.stringify(memoryIds),
  );
  const orphans = (
    stmt(
      db,
      `SELECT f.id FROM facts f WHERE f.id IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM fact_sources s WHERE s.fact_id = f.id)`,
    ).all(JSON.stringify(touched)) as { id: string }[]
  ).map((r) => r.id);
  const purged = orphans.length ? purgeFactRows(db, [...orphans, ...earlierVersions(db, orphans)]) : 0;
  forgetUnsupported(db, touched, at);
  return purged;
}

/**
 * A memory that takes others' place (a consolidation merge) becomes a source of their facts too, in the
 * merge's transaction: the originals going to the trash then leaves the facts their merged source, and the
 * merge's undo (merged memory purged, originals restored) leaves them their original sources.
 */
export function addFactSources(db: Database.Database, fromMemoryIds: string[], toMemoryId: string): number {
  if (fromMemoryIds.length === 0) return 0;
  return stmt(
    db,
    `INSERT OR IGNORE INTO fact_sources (fact_id, memory_id)
       SELECT DISTINCT fact_id, ? FROM fact_sources WHERE memory_id IN (SELECT value FROM json_each(?))`,
  ).run(toMemoryId, JSON.stringify(fromMemoryIds)).changes;
}
