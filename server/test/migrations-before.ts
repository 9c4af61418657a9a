/**
 * drizzle/ as it was before migration `idx`, for tests that make a store with an earlier schema and then
 * open it with today's migrations: a temporary copy whose journal stops before `idx`, without the later files.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrationsDir } from "../core/config";

/** The copy's folder; the caller removes it (it is also under the system's temporary folder). */
export function migrationsBefore(idx: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-old-migrations-"));
  fs.cpSync(migrationsDir(), dir, { recursive: true });
  const journalFile = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: { tag: string; idx: number }[] };
  const kept = journal.entries.filter((e) => e.idx < idx);
  assert.ok(kept.length < journal.entries.length, `migration ${idx} is in the journal`);
  for (const e of journal.entries.filter((e) => e.idx >= idx)) fs.rmSync(path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(journalFile, JSON.stringify({ ...journal, entries: kept }));
  return dir;
}
