import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { dbPath, migrationsDir } from "../config";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenedDb {
  sqlite: Database.Database;
  orm: Db;
  file: string;
}

/**
 * Open (and migrate) a store file. sqlite-vec must be loaded before migrate(): the custom migration
 * creates vec0 tables. WAL lets readers run while a write transaction is open.
 */
export function openDb(file: string = dbPath()): OpenedDb {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const sqlite = new Database(file);
  sqliteVec.load(sqlite);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("mmap_size = 1073741824");
  const orm = drizzle(sqlite, { schema }) as Db;
  migrate(orm, { migrationsFolder: migrationsDir() });
  if (file !== ":memory:") {
    try {
      fs.chmodSync(file, 0o600);
    } catch {
      /* best effort on filesystems without modes */
    }
  }
  return { sqlite, orm, file };
}

// One connection per process, kept on globalThis: Next bundles instrumentation and route handlers separately.
const g = globalThis as unknown as { __memoDb?: OpenedDb };

export function getDb(): OpenedDb {
  if (!g.__memoDb) g.__memoDb = openDb();
  return g.__memoDb;
}

/** Tests and scripts: use this store instead of the default one. */
export function setDb(db: OpenedDb | undefined): void {
  g.__memoDb = db;
}

export { schema };
