/**
 * Reading facts, person-checked like memories (server/core/acting.ts): by id and the versions of one fact
 * (visibleScan: the acting person's own spaces and those shared with them), lists of a space or of all the
 * person's own spaces, and the facts of some memories. Another person's fact reads as missing.
 */
import type Database from "better-sqlite3";
import { mineScan, visibleScan, writableScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import { buildFtsQuery } from "../retrieval/keyword-search";
import { matchText } from "../store/keyword-index";
import { versionsOf } from "./lineage";
import { FACT_COLUMNS, rowToFact, type FactRow } from "./rows";

const CURRENT = "f.deleted_at IS NULL AND f.superseded_by IS NULL AND f.valid_to IS NULL";
const NEWEST_FIRST = "ORDER BY f.valid_from DESC, f.recorded_at DESC, f.rid DESC";

export interface FactReadOptions {
  /** Forgotten facts too (undo, the learning queue's "what was deleted"); default false. */
  forgotten?: boolean;
}

/** A fact by id, if the acting person may read it; a forgotten one only when asked. */
export function getFact(db: Database.Database, id: string, opts: FactReadOptions = {}): FactRow | undefined {
  const r = stmt(
    db,
    `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.id = ? AND ${visibleScan("f.space_id")}${opts.forgotten ? "" : " AND f.deleted_at IS NULL"}`,
  ).get(id) as Record<string, unknown> | undefined;
  return r ? rowToFact(r) : undefined;
}

/** A live fact by id, if the acting person may change it (their own space, or shared read-write). */
export function getWritableFact(db: Database.Database, id: string): FactRow | undefined {
  const r = stmt(
    db,
    `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.id = ? AND f.deleted_at IS NULL AND ${writableScan("f.space_id")}`,
  ).get(id) as Record<string, unknown> | undefined;
  return r ? rowToFact(r) : undefined;
}

export interface ListFactsOptions {
  /** One space (the person's own or one shared with them); absent: all the acting person's own spaces. */
  spaceId?: string;
  /** Keyword filter: facts whose text matches a term of q (the space's keyword index) or contains q. */
  q?: string;
  /** Replaced facts too (newest first); default current only. */
  history?: boolean;
  limit?: number;
  /** Keyset pagination: only facts after this one in the list's order (newest valid_from first). */
  after?: FactKey;
}

/** Where a fact stands in a list's order: what a page's cursor names (docs/api.md#facts). */
export interface FactKey {
  validFrom: string;
  recordedAt: string;
  rid: number;
}

/** Live facts, newest valid_from first: current ones, or with their history. */
export function listFacts(db: Database.Database, opts: ListFactsOptions = {}): FactRow[] {
  const clauses = [opts.spaceId ? visibleScan("f.space_id") : mineScan("f.space_id"), "f.deleted_at IS NULL"];
  const params: Record<string, unknown> = { limit: Math.max(1, Math.min(opts.limit ?? 1000, 10_000)) };
  if (opts.spaceId) {
    clauses.push("f.space_id = @space");
    params.space = opts.spaceId;
  }
  if (!opts.history) clauses.push(CURRENT);
  if (opts.after) {
    // The order's own key (valid_from, recorded_at, rid), compared as a row value: stable under writes.
    clauses.push("(f.valid_from, f.recorded_at, f.rid) < (@afterValidFrom, @afterRecordedAt, @afterRid)");
    params.afterValidFrom = opts.after.validFrom;
    params.afterRecordedAt = opts.after.recordedAt;
    params.afterRid = opts.after.rid;
  }
  const q = opts.q?.trim();
  if (q) {
    const rids = keywordRids(db, opts.spaceId ? [opts.spaceId] : spacesWithFacts(db), q);
    clauses.push("(f.rid IN (SELECT value FROM json_each(@rids)) OR instr(lower(f.text), @needle) > 0)");
    params.rids = JSON.stringify(rids);
    params.needle = q.replace(/[A-Z]/g, (c) => c.toLowerCase());
  }
  const rows = db
    .prepare(`SELECT ${FACT_COLUMNS} FROM facts f WHERE ${clauses.join(" AND ")} ${NEWEST_FIRST} LIMIT @limit`)
    .all(params) as Record<string, unknown>[];
  return rows.map(rowToFact);
}

/** The acting person's own spaces that hold live facts (every one, however many facts the others hold). */
export function spacesWithFacts(db: Database.Database): string[] {
  return (
    stmt(
      db,
      `SELECT s.id FROM spaces s WHERE ${mineScan("s.id")}
         AND EXISTS (SELECT 1 FROM facts f WHERE f.space_id = s.id AND f.deleted_at IS NULL) ORDER BY s.id`,
    ).all() as { id: string }[]
  ).map((r) => r.id);
}

/** Rids of facts whose text matches a term of `q` in the spaces' keyword tables. */
export function keywordRids(db: Database.Database, spaceIds: string[], q: string): number[] {
  const out: number[] = [];
  for (const s of spaceIds) {
    const expr = buildFtsQuery(null, s, q);
    if (expr) for (const m of matchText(db, "fact", s, expr)) out.push(m.rid);
  }
  return out;
}

/**
 * Every live version of the fact `id` belongs to (its latest and all it replaced), newest valid_from first,
 * each with its dates; empty when the acting person may not read the fact or it is forgotten.
 */
export function factHistory(db: Database.Database, id: string): FactRow[] {
  if (!getFact(db, id)) return [];
  const rows = stmt(
    db,
    `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.id IN (SELECT value FROM json_each(?)) AND f.deleted_at IS NULL
       AND ${visibleScan("f.space_id")} ${NEWEST_FIRST}`,
  ).all(JSON.stringify(versionsOf(db, id))) as Record<string, unknown>[];
  return rows.map(rowToFact);
}

/**
 * The live facts each memory is a source of (current ones; with `history`, replaced ones too), for the
 * memories the acting person may read. Memories with none are absent from the map.
 */
export function factsOfMemories(
  db: Database.Database,
  memoryIds: string[],
  opts: { history?: boolean } = {},
): Map<string, FactRow[]> {
  const out = new Map<string, FactRow[]>();
  if (memoryIds.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT s.memory_id AS memoryId, ${FACT_COLUMNS} FROM fact_sources s JOIN facts f ON f.id = s.fact_id
      WHERE s.memory_id IN (SELECT value FROM json_each(?)) AND f.deleted_at IS NULL
        AND ${visibleScan("f.space_id")}${opts.history ? "" : ` AND ${CURRENT}`} ${NEWEST_FIRST}`,
  ).all(JSON.stringify(memoryIds)) as Record<string, unknown>[];
  for (const r of rows) {
    const m = String(r.memoryId);
    const list = out.get(m) ?? [];
    const { memoryId: _, ...fact } = r;
    list.push(rowToFact(fact));
    out.set(m, list);
  }
  return out;
}
