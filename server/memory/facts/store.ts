/**
 * The fact store (issue 42; tables in drizzle/0019_facts.sql, docs/storage.md#facts): the one entry the
 * layers above use. Writes are single transactions, like memories': a fact row, its sources, its vector
 * and its keyword row go in together (write.ts), and come out together when it is forgotten. Everything is
 * person-checked: another person's fact id behaves exactly like a missing one.
 */
import type Database from "better-sqlite3";
import { mineScan, writableScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import { nowIso } from "../store/rows";
import { bringBack, forgetWithHistory } from "./forgetting";
import { getFact } from "./read";
import type { FactRow } from "./rows";

export * from "./rows";
export { insertFacts, markLearnedInRun, maxFactRid, reassignFactsWrittenBy } from "./write";
export {
  factHistory,
  type FactKey,
  factsOfMemories,
  getFact,
  getWritableFact,
  listFacts,
  type ListFactsOptions,
  spacesWithFacts,
} from "./read";
export { searchFacts, type FactHit, type FactQuery } from "./search";

/**
 * The live facts among `ids` the acting person may change — or, with `deleted`, the deleted ones they may
 * restore: those of their own spaces only, as the trash of a shared space is its owner's alone (issue 48).
 */
function writableLive(db: Database.Database, ids: string[], deleted: boolean): string[] {
  if (ids.length === 0) return [];
  return (
    stmt(
      db,
      `SELECT id FROM facts WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS ${deleted ? "NOT NULL AND deleted_reason = 'person' AND deleted_root = id" : "NULL"}
         AND ${deleted ? mineScan("space_id") : writableScan("space_id")}`,
    ).all(JSON.stringify([...new Set(ids)])) as { id: string }[]
  ).map((r) => r.id);
}

/**
 * A person deletes facts: each is forgotten with its earlier versions (out of every index; a restore of its
 * sources does not bring it back). Returns the ids asked for that were live and the person's to change.
 */
export function deleteFacts(db: Database.Database, ids: string[], at: string = nowIso()): string[] {
  return db.transaction(() => {
    const ok = writableLive(db, ids, false);
    forgetWithHistory(db, ok, "person", at);
    return ok;
  })();
}

/**
 * Undo deleteFacts: the facts (and the versions they took along) come back — each only while it has a live
 * source; one whose every source went since stays deleted as it was. An earlier version without a live
 * source of its own is forgotten again, now for that reason. Returns the ids asked for that are live again.
 */
export function restoreFacts(db: Database.Database, ids: string[]): string[] {
  return db.transaction(() => {
    const roots = writableLive(db, ids, true).filter((id) => hasLiveSource(db, id));
    const back = bringBack(db, roots, "person");
    forgetWithHistory(
      db,
      back.filter((id) => !hasLiveSource(db, id)),
      "sources",
      nowIso(),
    );
    return roots;
  })();
}

function hasLiveSource(db: Database.Database, factId: string): boolean {
  return (
    stmt(
      db,
      "SELECT 1 FROM fact_sources s JOIN memories m ON m.id = s.memory_id WHERE s.fact_id = ? AND m.soft_deleted = 0 LIMIT 1",
    ).get(factId) !== undefined
  );
}

/** A fact the acting person deleted and may change, that cannot come back: none of its sources is live. */
export function isStrandedDeletedFact(db: Database.Database, id: string): boolean {
  return writableLive(db, [id], true).length === 1 && !hasLiveSource(db, id);
}

/** A person confirms a live fact is right (confirmed_at = now). Returns it, or undefined when not theirs to change. */
export function confirmFact(db: Database.Database, id: string, at: string = nowIso()): FactRow | undefined {
  const r = stmt(
    db,
    `UPDATE facts SET confirmed_at = ? WHERE id = ? AND deleted_at IS NULL AND ${writableScan("space_id")}`,
  ).run(at, id);
  return r.changes ? getFact(db, id) : undefined;
}
