/**
 * Forgetting facts and bringing them back, with their history: a forgotten fact takes its earlier versions
 * along (each remembers, in deleted_root, the fact whose forgetting took it), and bringing that fact back
 * brings them back. Used by deleteFacts (a person deletes a fact) and by cascade.ts (a fact's every source
 * memory went). Inside the caller's transaction; the callers check who may change the facts.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { unindexText } from "../store/keyword-index";
import { reindexFact, unindexFact, type IndexedFact } from "./indexing";
import { earlierVersions } from "./lineage";

export type ForgetReason = "person" | "sources";

const liveRow = (db: Database.Database, id: string) =>
  stmt(db, "SELECT rid, space_id AS spaceId, text FROM facts WHERE id = ? AND deleted_at IS NULL").get(id) as
    | IndexedFact
    | undefined;

/**
 * Forget each live fact of `roots` and its live earlier versions: deleted_at, the reason and the root set,
 * vector parked, keyword row removed. Returns the ids forgotten (roots first).
 */
export function forgetWithHistory(db: Database.Database, roots: string[], reason: ForgetReason, at: string): string[] {
  const flag = stmt(
    db,
    "UPDATE facts SET deleted_at = ?, deleted_reason = ?, deleted_root = ? WHERE id = ? AND deleted_at IS NULL",
  );
  const out: string[] = [];
  for (const root of roots) {
    if (!liveRow(db, root)) continue;
    for (const id of [root, ...earlierVersions(db, [root])]) {
      const f = liveRow(db, id);
      if (!f) continue;
      unindexFact(db, f);
      flag.run(at, reason, root, id);
      out.push(id);
    }
  }
  return out;
}

/** Bring back every fact forgotten with one of `roots` for `reason` (the roots and the versions they took). */
export function bringBack(db: Database.Database, roots: string[], reason: ForgetReason): string[] {
  if (roots.length === 0) return [];
  const rows = stmt(
    db,
    `SELECT id, rid, space_id AS spaceId, text FROM facts
      WHERE deleted_at IS NOT NULL AND deleted_reason = ? AND deleted_root IN (SELECT value FROM json_each(?))`,
  ).all(reason, JSON.stringify(roots)) as (IndexedFact & { id: string })[];
  const unflag = stmt(
    db,
    "UPDATE facts SET deleted_at = NULL, deleted_reason = NULL, deleted_root = NULL WHERE id = ?",
  );
  for (const f of rows) {
    reindexFact(db, f);
    unflag.run(f.id);
  }
  return rows.map((f) => f.id);
}

/** Delete facts for good: rows, sources, vectors (the foreign keys' cascades) and keyword rows. */
export function purgeFactRows(db: Database.Database, ids: string[]): number {
  const get = stmt(db, "SELECT rid, space_id AS spaceId, deleted_at AS deletedAt FROM facts WHERE id = ?");
  const del = stmt(db, "DELETE FROM facts WHERE id = ?");
  let n = 0;
  for (const id of new Set(ids)) {
    const f = get.get(id) as { rid: number; spaceId: string; deletedAt: string | null } | undefined;
    if (!f) continue;
    if (f.deletedAt === null) unindexText(db, "fact", f.spaceId, f.rid);
    n += del.run(id).changes;
  }
  return n;
}
