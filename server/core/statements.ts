import type Database from "better-sqlite3";

// Prepared statements are cached per connection: preparing costs more than running them. One cache for
// every module, so one reset (after vector tables are dropped or created) clears them all.
const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** The connection's prepared statement for this SQL, prepared on first use. */
export function stmt(db: Database.Database, sql: string): Database.Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

/** Drop this connection's cached statements (after vector tables are dropped or created). */
export function resetStatementCache(db: Database.Database): void {
  cache.delete(db);
}
