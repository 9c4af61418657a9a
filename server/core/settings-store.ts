import type Database from "better-sqlite3";
import { actingPersonId } from "./acting";
import { OWNER_ID } from "./space-name";
import { stmt } from "./statements";

/**
 * Settings that are each person's own (issue 32): retrieval settings, memory-sharing choices, the first-run
 * checklist, the lifetime of their memories (`lifetime`: decay days and which kinds decay) and which providers
 * learn facts from their memory (`facts.learning`, issue 48: it goes with their memory-sharing choices). Everything else (providers and keys, local models, jobs, detection) is the
 * household's. The owner's keep their names (stores made before people existed read as before); another
 * person's are stored under '<key>@person:<id>'.
 */
const PERSONAL_KEYS = [/^retrieval:/, /^privacy$/, /^ui\.firstRunChecklist$/, /^lifetime$/, /^facts\.learning$/];

function storedKey(key: string, id = actingPersonId()): string {
  return id !== OWNER_ID && PERSONAL_KEYS.some((r) => r.test(key)) ? `${key}@person:${id}` : key;
}

/** A LIKE pattern for every personal setting of one person (removal of a person). */
export function personalSettingsLike(personId: string): string {
  return `%@person:${personId.replace(/[%_\\]/g, "")}`;
}

/**
 * The `settings` table: one JSON value per key (jobs, providers, retrieval per model, privacy, detection,
 * the setup checklist). Readers validate the value themselves and fall back to their defaults.
 */

/**
 * The saved value of `key`, parsed; undefined when nothing is saved or the saved text is not JSON. A
 * personal key is the acting person's, or `personId`'s when given (a household job reading each person's).
 */
export function readSetting(db: Database.Database, key: string, personId?: string): unknown {
  const row = stmt(db, "SELECT value FROM settings WHERE key = ?").get(storedKey(key, personId)) as
    | { value: string }
    | undefined;
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
  ).run(storedKey(key), JSON.stringify(value));
}

export function deleteSetting(db: Database.Database, key: string): void {
  stmt(db, "DELETE FROM settings WHERE key = ?").run(storedKey(key));
}
