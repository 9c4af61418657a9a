/**
 * Deleted text must not stay readable in the store's files (issue 43: a removed person leaves no byte a file
 * read could find). SQLite and FTS5 each keep deleted content unless told not to:
 *   - SQLite leaves a deleted row's bytes in its page and a freed page's bytes on the freelist:
 *     `PRAGMA secure_delete = ON` (per connection, set by openDb) overwrites them with zeros;
 *   - FTS5 deletes by appending a delete marker, leaving the row's tokens (stems) in older index segments
 *     until a merge rewrites them: its own `secure-delete` option removes them from the index at once. It is
 *     stored in the table (its `%_config`), so it is set once per FTS5 table — every table when the store opens
 *     (secureDeleteAllFts), and any table made later by whoever creates it (secureDeleteFts).
 * What is left in the -wal file (older page images) goes at a checkpoint that truncates it: server/db/scrub.ts.
 */
import type Database from "better-sqlite3";

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The store's FTS5 tables (not fts5vocab views over them, which hold nothing). */
export function fts5Tables(db: Database.Database): string[] {
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    .all() as { name: string; sql: string }[];
  return rows.filter((r) => /\bUSING\s+fts5\s*\(/i.test(r.sql)).map((r) => r.name);
}

/** Turn FTS5's secure-delete on for one table (SQLite ≥ 3.42): deletes remove the row's tokens from its index. */
export function secureDeleteFts(db: Database.Database, table: string): void {
  db.prepare(`INSERT INTO ${quote(table)} (${quote(table)}, rank) VALUES ('secure-delete', 1)`).run();
}

/** Whether an FTS5 table has secure-delete on (read from its %_config shadow table). */
export function hasSecureDeleteFts(db: Database.Database, table: string): boolean {
  const r = db.prepare(`SELECT v FROM ${quote(`${table}_config`)} WHERE k = 'secure-delete'`).get() as
    | { v: unknown }
    | undefined;
  return Number(r?.v ?? 0) === 1;
}

/** Every FTS5 table of the store with secure-delete on; writes only for a table that lacks it. */
export function secureDeleteAllFts(db: Database.Database): string[] {
  const changed: string[] = [];
  for (const t of fts5Tables(db)) {
    if (hasSecureDeleteFts(db, t)) continue;
    secureDeleteFts(db, t);
    changed.push(t);
  }
  return changed;
}

/**
 * Rewrite an FTS5 table's index from its live rows ('optimize': all segments merged into one), so tokens
 * deleted before secure-delete was on (an older version, or a table made without it) are gone too.
 */
export function optimizeFts(db: Database.Database, table: string): void {
  db.prepare(`INSERT INTO ${quote(table)} (${quote(table)}) VALUES ('optimize')`).run();
}
