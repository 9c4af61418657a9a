import type Database from "better-sqlite3";
import { stmt } from "./statements";

/**
 * The `settings` table: one JSON value per key (jobs, providers, retrieval per model, privacy, detection,
 * the setup checklist). Readers validate the value themselves and fall back to their defaults.
 */

/** The saved value of `key`, parsed; undefined when nothing is saved or the saved text is not JSON. */
export function readSetting(db: Database.Database, key: string): unknown {
  const row = stmt(db, "SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch {
    return undefined;
  }
}

/** Save `value` under `key` (one statement), stamping updated_at. */
export function writeSetting(db: Database.Database, key: string, value: unknown): void {
  stmt(
    db,
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))
     ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(key, JSON.stringify(value));
}

export function deleteSetting(db: Database.Database, key: string): void {
  stmt(db, "DELETE FROM settings WHERE key = ?").run(key);
}
