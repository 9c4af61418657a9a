import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { dataDir, dbPath, migrationsDir } from "../core/config";
import { actingScope, isMine } from "../core/acting";
import * as schema from "./schema";
import { secureDeleteAllFts } from "./secure-delete";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenedDb {
  sqlite: Database.Database;
  orm: Db;
  file: string;
}

/**
 * Open (and migrate) a store file. sqlite-vec must be loaded before migrate(): the custom migration
 * creates vec0 tables. WAL lets readers run while a write transaction is open. `migrationsFolder` is for the
 * migration tests, which make a store with an earlier set of migrations first.
 */
export function openDb(file: string = dbPath(), migrationsFolder: string = migrationsDir()): OpenedDb {
  if (file !== ":memory:") {
    // The data folder and the store's folder are the owner's alone (0700), and so is the database (0600)
    // from its first byte: SQLite gives the -wal and -shm files the database file's mode.
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // A store folder Memo made earlier with looser modes is tightened; a folder chosen with MEMO_DB_PATH is left alone.
    if (path.resolve(path.dirname(file)) === path.join(dataDir(), "memory")) privateMode(path.dirname(file), 0o700);
    if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, "a", 0o600));
    privateMode(file, 0o600);
  }
  const sqlite = new Database(file);
  sqliteVec.load(sqlite);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("mmap_size = 1073741824");
  // Deleted rows and freed pages are overwritten with zeros, not left readable in the file (issue 43; with
  // FTS5's own secure-delete below and the scrub after a person's removal, server/db/secure-delete.ts).
  sqlite.pragma("secure_delete = ON");
  // mine(space_id): is this space the acting person's (server/core/acting.ts)? Not deterministic: it reads
  // who acts at the moment the statement runs.
  sqlite.function("mine", { deterministic: false }, (key: unknown) => (typeof key === "string" && isMine(key) ? 1 : 0));
  sqlite.function("acting_person", { deterministic: false }, () => actingScope());
  // A text's length as JavaScript counts it (UTF-16 units): memories.speakers offsets are JavaScript's, and
  // drizzle/0016_speakers.sql computes them in SQL, where length() counts characters.
  sqlite.function("utf16_length", { deterministic: true }, (s: unknown) => (typeof s === "string" ? s.length : null));
  const orm = drizzle(sqlite, { schema }) as Db;
  migrate(orm, { migrationsFolder });
  secureDeleteAllFts(sqlite);
  if (file !== ":memory:") {
    // Also files made before the modes were set here (or by a process with another umask).
    for (const f of [file, `${file}-wal`, `${file}-shm`]) privateMode(f, 0o600);
  }
  return { sqlite, orm, file };
}

/** chmod, best effort: a missing file or a filesystem without modes is not an error. */
function privateMode(p: string, mode: number): void {
  try {
    if ((fs.statSync(p).mode & 0o777) !== mode) fs.chmodSync(p, mode);
  } catch {
    /* absent, or no modes here */
  }
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
