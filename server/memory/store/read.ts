/** The read path: memories by id or rid, substring matches for /forget, counts and the consistency check. */
import { EARLIEST_DATE, isReadableStoredTime, logUnreadableTime } from "../../core/dates";
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { indexedTotal, keywordSpaces } from "./keyword-index";
import { mineScan, visibleMemoryScan, writableMemoryScan } from "../../core/acting";
import { COLUMNS, type MemoryRow, reindexTarget, rowToMemory } from "./rows";
import { liveCountProblems, liveOfActing } from "./live-counts";
import { factProblems } from "../facts/invariant";

/**
 * A memory by id, if the acting person may read it: theirs, or a live one in a space shared with them
 * (visibleMemoryScan, server/core/acting.ts: the trash is its owner's). Any other person's reads as missing.
 */
export function getMemory(db: Database.Database, id: string): MemoryRow | undefined {
  const r = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE id = ? AND ${visibleMemoryScan("space_id", "soft_deleted")}`,
  ).get(id) as Record<string, unknown> | undefined;
  return r ? rowToMemory(r) : undefined;
}

/** A memory by id, if the acting person may change it: theirs, or a live one in a space shared with them read-write. */
export function getWritableMemory(db: Database.Database, id: string): MemoryRow | undefined {
  const r = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE id = ? AND ${writableMemoryScan("space_id", "soft_deleted")}`,
  ).get(id) as Record<string, unknown> | undefined;
  return r ? rowToMemory(r) : undefined;
}

export function getMemoriesByRid(db: Database.Database, rids: number[]): Map<number, MemoryRow> {
  const out = new Map<number, MemoryRow>();
  if (rids.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE rid IN (SELECT value FROM json_each(?)) AND ${visibleMemoryScan("space_id", "soft_deleted")}`,
  ).all(JSON.stringify(rids)) as Record<string, unknown>[];
  for (const r of rows) {
    // A row whose time cannot be computed with is left out (and logged), never the whole answer (issue 58).
    const bad = [r.timestamp, r.updatedAt ?? EARLIEST_DATE, r.lastRetrievedAt ?? EARLIEST_DATE].find(
      (t) => !isReadableStoredTime(t),
    );
    if (bad !== undefined) logUnreadableTime("memory", r.id as string, bad);
    else out.set(r.rid as number, rowToMemory(r));
  }
  return out;
}

/** Live memories of a space whose content contains `pattern`, case-insensitively (Unicode-aware). */
export function findLiveContaining(
  db: Database.Database,
  spaceId: string,
  pattern: string,
  limit = 10_000,
): MemoryRow[] {
  const needle = pattern.toLocaleLowerCase();
  // ASCII lower() in SQL prefilters; non-ASCII patterns are matched in JS over the space's live rows.
  const ascii = /^[\x00-\x7f]*$/.test(pattern);
  const rows = (
    ascii
      ? stmt(
          db,
          `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND soft_deleted = 0 AND instr(lower(content), ?) > 0 LIMIT ?`,
        ).all(spaceId, needle, limit)
      : stmt(db, `SELECT ${COLUMNS} FROM memories WHERE space_id = ? AND soft_deleted = 0`).all(spaceId)
  ) as Record<string, unknown>[];
  return rows
    .map(rowToMemory)
    .filter((m) => m.content.toLocaleLowerCase().includes(needle))
    .slice(0, limit);
}

export interface StoreCounts {
  memories: number;
  vectors: number;
  fts: number;
}

/** Live-row counts of the three tables; equal when the store is consistent. */
export function storeCounts(db: Database.Database): StoreCounts {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    memories: one("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0"),
    vectors:
      one("SELECT count(*) AS n FROM memory_vec") +
      // During a re-index, a memory written with the new model has its vector in memory_vec_next only.
      (reindexTarget(db)
        ? one(`SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0 AND NOT EXISTS (SELECT 1 FROM memory_vec v WHERE v.rowid = m.rid)
             AND EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)`)
        : 0),
    fts: indexedTotal(db, "memory"),
  };
}

/**
 * storeCounts for the acting person's own spaces (issue 43: a member's health shows no household total). When
 * the whole store is consistent every live memory has its vector and its FTS row, so theirs are their live
 * count (read from live_counts, not counted per row: health is polled); otherwise each of their live memories is
 * looked up in the vector copy and the FTS table, so a problem in their rows shows in their figures.
 */
export function actingStoreCounts(db: Database.Database, storeConsistent: boolean): StoreCounts {
  const memories = liveOfActing(db);
  if (storeConsistent) return { memories, vectors: memories, fts: memories };
  const vectors = (
    db
      .prepare(
        `SELECT coalesce(sum(EXISTS (SELECT 1 FROM memory_vec_rows v WHERE v.rid = m.rid)
                             OR m.embedding_model = (SELECT value FROM meta WHERE key = 'reindex_model')), 0) AS n
           FROM memories m WHERE m.soft_deleted = 0 AND ${mineScan("m.space_id")}`,
      )
      .get() as { n: number }
  ).n;
  // Each of their spaces' keyword table, looked up for its live memories.
  let fts = 0;
  for (const { spaceId, tables } of keywordSpaces(db)) {
    if (!tables.memory || !db.prepare(`SELECT 1 FROM spaces WHERE id = ? AND ${mineScan("id")}`).get(spaceId)) continue;
    fts += (
      db
        .prepare(
          `SELECT count(*) AS n FROM memories m WHERE m.space_id = ? AND m.soft_deleted = 0
             AND EXISTS (SELECT 1 FROM "${tables.memory}" f WHERE f.rowid = m.rid)`,
        )
        .get(spaceId) as { n: number }
    ).n;
  }
  const r = { vectors, fts };
  return { memories, ...r };
}

/** A re-index is in progress and memory_vec_next holds a vector for this rid. */
export function hasNextVector(db: Database.Database, rid: number): boolean {
  return (
    reindexTarget(db) !== undefined &&
    stmt(db, "SELECT 1 FROM memory_vec_next WHERE rowid = ?").get(BigInt(rid)) !== undefined
  );
}

/**
 * The three-table invariant, checked row by row: every live memory has exactly one vector and one FTS
 * row under its rid, and nothing else is there; the same for every live fact (facts/invariant.ts).
 * Returns the problems found (empty when consistent).
 */
export function checkInvariant(db: Database.Database): string[] {
  const problems: string[] = [];
  const c = storeCounts(db);
  if (c.memories !== c.vectors || c.memories !== c.fts) {
    problems.push(`live counts differ: memories=${c.memories} vectors=${c.vectors} fts=${c.fts}`);
  }
  // During a re-index a live memory's vector may be in memory_vec_next alone (written with the new model).
  const orNext = reindexTarget(db) ? " AND NOT EXISTS (SELECT 1 FROM memory_vec_next x WHERE x.rowid = m.rid)" : "";
  const missingVec = db
    .prepare(
      `SELECT count(*) AS n FROM memories m WHERE m.soft_deleted = 0 AND NOT EXISTS (SELECT 1 FROM memory_vec v WHERE v.rowid = m.rid)${orNext}`,
    )
    .get() as { n: number };
  if (missingVec.n) problems.push(`${missingVec.n} live memories lack a vector`);
  // memory_vec_rows (vector-rows.ts) is a copy of memory_vec: the same rows.
  const copied = (db.prepare("SELECT count(*) AS n FROM memory_vec_rows").get() as { n: number }).n;
  const vecRows = (db.prepare("SELECT count(*) AS n FROM memory_vec").get() as { n: number }).n;
  if (copied !== vecRows) problems.push(`the vector copy holds ${copied} rows, memory_vec ${vecRows}`);
  problems.push(...keywordProblems(db));
  const strayVec = db
    .prepare(
      "SELECT count(*) AS n FROM memory_vec v WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.rid = v.rowid AND m.soft_deleted = 0)",
    )
    .get() as { n: number };
  if (strayVec.n) problems.push(`${strayVec.n} vectors belong to no live memory`);
  problems.push(...liveCountProblems(db));
  // Facts are indexed like memories (server/memory/facts/): the same one-to-one rule for their rows.
  problems.push(...factProblems(db));
  return problems;
}

/**
 * The keyword tables hold exactly the live memories of their space: none missing, none stray (deleted,
 * or in another space), and no live memory in a space without a table.
 */
function keywordProblems(db: Database.Database): string[] {
  const problems: string[] = [];
  let missing = 0;
  let stray = 0;
  const indexed = new Set<string>();
  for (const { spaceId, tables } of keywordSpaces(db)) {
    const t = tables.memory;
    if (!t) continue;
    indexed.add(spaceId);
    missing += (
      db
        .prepare(
          `SELECT count(*) AS n FROM memories m WHERE m.space_id = ? AND m.soft_deleted = 0
             AND NOT EXISTS (SELECT 1 FROM "${t}" f WHERE f.rowid = m.rid)`,
        )
        .get(spaceId) as { n: number }
    ).n;
    stray += (
      db
        .prepare(
          `SELECT count(*) AS n FROM "${t}" f WHERE NOT EXISTS
             (SELECT 1 FROM memories m WHERE m.rid = f.rowid AND m.soft_deleted = 0 AND m.space_id = ?)`,
        )
        .get(spaceId) as { n: number }
    ).n;
  }
  const unindexed = db
    .prepare("SELECT space_id AS spaceId, count(*) AS n FROM memories WHERE soft_deleted = 0 GROUP BY space_id")
    .all() as { spaceId: string; n: number }[];
  for (const u of unindexed) if (!indexed.has(u.spaceId)) missing += u.n;
  if (missing) problems.push(`${missing} live memories lack an FTS row`);
  if (stray) problems.push(`${stray} FTS rows belong to no live memory of their space`);
  return problems;
}
