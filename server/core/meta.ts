import type Database from "better-sqlite3";
import { stmt } from "./statements";

/** A value of the store's key/value `meta` table (bound model, vector generation, leases, job runs). */
export function getMeta(db: Database.Database, key: string): string | undefined {
  const r = stmt(db, "SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return r?.value;
}

export function setMeta(db: Database.Database, key: string, value: string): void {
  stmt(db, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    key,
    value,
  );
}
