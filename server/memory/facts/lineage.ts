/**
 * A fact's versions: each replaced fact points at the one that replaced it (superseded_by), so the versions
 * of one fact form a tree whose root is the latest version. Earlier versions are followed downwards, the
 * latest upwards. Reads only; the callers check who may see the facts.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";

/** Every earlier version of the facts (transitively: what they replaced, what that replaced, ...), not including them. */
export function earlierVersions(db: Database.Database, ids: string[]): string[] {
  if (ids.length === 0) return [];
  return (
    stmt(
      db,
      `WITH RECURSIVE earlier(id) AS (
         SELECT f.id FROM facts f WHERE f.superseded_by IN (SELECT value FROM json_each(?))
         UNION SELECT f.id FROM facts f JOIN earlier e ON f.superseded_by = e.id)
       SELECT id FROM earlier`,
    ).all(JSON.stringify(ids)) as { id: string }[]
  ).map((r) => r.id);
}

/** The latest version of a fact: itself when nothing replaced it. */
export function latestVersion(db: Database.Database, id: string): string {
  const next = stmt(db, "SELECT superseded_by AS s FROM facts WHERE id = ?");
  const seen = new Set<string>([id]);
  let cur = id;
  for (;;) {
    const r = next.get(cur) as { s: string | null } | undefined;
    if (!r?.s || seen.has(r.s)) return cur; // a cycle cannot be written (replaces must be current); guard anyway
    seen.add(r.s);
    cur = r.s;
  }
}

/** All versions of the fact `id` belongs to: its latest version and every earlier one. */
export function versionsOf(db: Database.Database, id: string): string[] {
  const latest = latestVersion(db, id);
  return [latest, ...earlierVersions(db, [latest])];
}
