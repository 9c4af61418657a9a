import type Database from "better-sqlite3";
import { actingPersonId } from "./acting";
import { OWNER_ID } from "./space-name";
import { stmt } from "./statements";

/** Whose a setting is: each person's own, or the household's (one value for everyone; admins change it). */
export type SettingScope = "personal" | "household";

export interface SettingDeclaration {
  scope: SettingScope;
  /** The key names a family of settings (`retrieval:<model>`): every key that starts with it. */
  prefix?: true;
  /** What it holds and which module reads it (its schema and defaults are there). */
  what: string;
}

/**
 * Every setting, declared once with whose it is (issue 32: retrieval settings, memory-sharing choices,
 * the first-run checklist, the lifetime of memories and which providers learn facts from their memory —
 * issue 48: it goes with their memory-sharing choices — are each person's; providers and keys, local
 * models, jobs and detection are the household's). The owner's personal settings keep
 * their names (stores made before people existed read as before); another person's are stored under
 * '<key>@person:<id>'. A key not declared here is refused by readSetting and writeSetting, so a new
 * setting cannot silently become household-wide by being left out of a list.
 */
export const SETTINGS = {
  "retrieval:": {
    scope: "personal",
    prefix: true,
    what: "retrieval settings per embedding model (server/memory/retrieval/settings.ts)",
  },
  privacy: { scope: "personal", what: "which providers may see memories (server/chat/memory-policy.ts)" },
  "ui.firstRunChecklist": {
    scope: "personal",
    what: "the first-run checklist dismissed (server/services/setup-service.ts)",
  },
  lifetime: { scope: "personal", what: "decay days and which kinds decay (server/jobs/settings.ts)" },
  jobs: { scope: "household", what: "job schedules and consolidation (server/jobs/settings.ts)" },
  "chat.providers": { scope: "household", what: "chat providers and their keys (server/chat/providers/config.ts)" },
  "chat.detectLocal": { scope: "household", what: "local model server detection (server/chat/detect-local.ts)" },
  "facts.learning": {
    scope: "personal",
    what: "which providers learn facts from the person's memory (server/chat/fact-model.ts, issue 48)",
  },
} as const satisfies Record<string, SettingDeclaration>;

/** The declaration `key` falls under; an undeclared key is a programming error, said plainly. */
export function settingDeclaration(key: string): SettingDeclaration {
  const decls: Record<string, SettingDeclaration> = SETTINGS;
  const exact = Object.hasOwn(decls, key) ? decls[key] : undefined;
  if (exact && !exact.prefix) return exact;
  for (const [k, d] of Object.entries(decls)) if (d.prefix && key.startsWith(k) && key.length > k.length) return d;
  throw new Error(
    `setting '${key}' is not declared in SETTINGS (server/core/settings-store.ts): say whether it is personal or the household's`,
  );
}

function storedKey(key: string, id = actingPersonId()): string {
  const { scope } = settingDeclaration(key);
  return id !== OWNER_ID && scope === "personal" ? `${key}@person:${id}` : key;
}

/** A LIKE pattern for every personal setting of one person (removal of a person). */
export function personalSettingsLike(personId: string): string {
  return `%@person:${personId.replace(/[%_\\]/g, "")}`;
}

/**
 * The `settings` table: one JSON value per key (jobs, providers, retrieval per model, privacy, detection,
 * the setup checklist). Readers go through loadSetting (settings-load.ts): each part that still parses is
 * kept, and what is not is set aside here (setAsideUnkept), never dropped.
 */

/** The saved text of `key` as stored (the acting person's, or `personId`'s), undefined when nothing is saved. */
export function readSettingText(db: Database.Database, key: string, personId?: string): string | undefined {
  const row = stmt(db, "SELECT value FROM settings WHERE key = ?").get(storedKey(key, personId)) as
    | { value: string }
    | undefined;
  return row?.value;
}

/**
 * The saved value of `key`, parsed; undefined when nothing is saved or the saved text is not JSON. A
 * personal key is the acting person's, or `personId`'s when given (a household job reading each person's).
 */
export function readSetting(db: Database.Database, key: string, personId?: string): unknown {
  const text = readSettingText(db, key, personId);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
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

// ---------------------------------------------------------------------------------------------------------
// What a loader could not keep (server/core/settings-load.ts): the saved text, set aside whole

/** Beside the setting's own row: `unkept:<stored key>` (a person's removal takes it with their settings). */
const UNKEPT = "unkept:";

/** One saved text a loader could not wholly read, and which of its parts it did not keep, and why. */
export interface UnkeptEntry {
  at: string;
  /** The saved text as it was (a provider key in it is still sealed), so nothing of it is ever lost. */
  original: string;
  unkept: { path: string; reason: string }[];
}

/**
 * Set aside the saved text of `key` with what could not be kept of it; false when this very text was set
 * aside already (a loader reads the same value again and again: one entry, one log line).
 */
export function setAsideUnkept(
  db: Database.Database,
  key: string,
  personId: string | undefined,
  entry: UnkeptEntry,
): boolean {
  const k = UNKEPT + storedKey(key, personId);
  const row = stmt(db, "SELECT value FROM settings WHERE key = ?").get(k) as { value: string } | undefined;
  const entries = row ? (JSON.parse(row.value) as UnkeptEntry[]) : [];
  if (entries.some((e) => e.original === entry.original)) return false;
  stmt(
    db,
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))
     ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(k, JSON.stringify([...entries, entry]));
  return true;
}

/** What was set aside, for the person acting: their own personal settings, and the household's for an admin. */
export function unkeptSettings(
  db: Database.Database,
  personId: string,
  admin: boolean,
): { key: string; scope: SettingScope; entries: UnkeptEntry[] }[] {
  const rows = stmt(db, "SELECT key, value FROM settings WHERE key LIKE 'unkept:%' ORDER BY key").all() as {
    key: string;
    value: string;
  }[];
  const out: { key: string; scope: SettingScope; entries: UnkeptEntry[] }[] = [];
  for (const r of rows) {
    const stored = r.key.slice(UNKEPT.length);
    const at = stored.lastIndexOf("@person:");
    const key = at >= 0 ? stored.slice(0, at) : stored;
    const whose = at >= 0 ? stored.slice(at + "@person:".length) : OWNER_ID;
    let scope: SettingScope;
    try {
      scope = settingDeclaration(key).scope;
    } catch {
      continue; // a setting no longer declared: nobody's section shows it
    }
    if (scope === "personal" ? whose !== personId : !admin) continue;
    out.push({ key, scope, entries: JSON.parse(r.value) as UnkeptEntry[] });
  }
  return out;
}

/** Forget what was set aside for `key` (the acting person's, for a personal setting): the person has seen it. */
export function dismissUnkept(db: Database.Database, key: string): boolean {
  return stmt(db, "DELETE FROM settings WHERE key = ?").run(UNKEPT + storedKey(key)).changes > 0;
}
