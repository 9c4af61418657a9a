/**
 * live_counts (drizzle/0017_live_counts.sql) follows memories through every path that changes what is live
 * in a space: insert, soft delete, restore, purge, a space renamed or deleted, and the migration that
 * creates it on an existing store. Each step compares it with a count of the memories themselves.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { migrationsBefore } from "../../test/migrations-before";
import { openDb } from "../../db";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import {
  checkInvariant,
  deleteSpace,
  ensureSpace,
  insertMemories,
  liveCountProblems,
  liveCounts,
  liveInSpace,
  purgeMemories,
  renameSpace,
  restoreMemories,
  softDeleteMemories,
} from ".";

const stores: TempStore[] = [];
const dirs: string[] = [];
after(() => {
  for (const s of stores) s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const DIM = 8;

/** The kept counts equal a count of the live memories, space by space. */
function assertCounted(db: Database.Database, when: string, expect: Record<string, number>): void {
  assert.deepEqual(liveCountProblems(db), [], `${when}: kept counts match the memories`);
  for (const [space, n] of Object.entries(expect)) assert.equal(liveInSpace(db, space), n, `${when}: ${space}`);
  const total = Object.values(expect).reduce((a, b) => a + b, 0);
  const spaces = Object.values(expect).filter((n) => n > 0).length;
  assert.deepEqual(liveCounts(db), { n: total, spaces }, `${when}: the store's totals`);
}

test("the live counts follow every write that changes what is live", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  assertCounted(db, "empty", {});
  const ids = insertMemories(
    db,
    [0, 1, 2, 3].map((i) => ({ spaceId: i < 3 ? "personal" : "work", content: `memory ${i}` })),
    [0, 1, 2, 3].map((i) => axisVector(DIM, i)),
    "m",
  );
  assertCounted(db, "insert", { personal: 3, work: 1 });
  softDeleteMemories(db, [ids[0]!, ids[1]!]);
  assertCounted(db, "soft delete", { personal: 1, work: 1 });
  softDeleteMemories(db, [ids[0]!]);
  assertCounted(db, "soft delete again (no change)", { personal: 1, work: 1 });
  restoreMemories(db, [ids[1]!]);
  assertCounted(db, "restore", { personal: 2, work: 1 });
  purgeMemories(db, [ids[0]!]);
  assertCounted(db, "purge of a deleted memory", { personal: 2, work: 1 });
  purgeMemories(db, [ids[2]!]);
  assertCounted(db, "purge of a live memory", { personal: 1, work: 1 });
  renameSpace(db, "work", "job");
  assertCounted(db, "rename a space", { personal: 1, work: 0, job: 1 });
  deleteSpace(db, "job");
  assertCounted(db, "delete a space", { personal: 1, job: 0 });
  // A renamed or deleted space leaves no row naming it (a removed person's space key, issue 43).
  assert.deepEqual(db.prepare("SELECT space_id AS s FROM live_counts ORDER BY s").all(), [{ s: "personal" }]);
  assert.deepEqual(checkInvariant(db), []);
});

test("checkInvariant reports a count that drifted", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  insertMemories(db, [{ spaceId: "personal", content: "one" }], [axisVector(DIM, 1)], "m");
  db.prepare("UPDATE live_counts SET live = 5").run();
  assert.deepEqual(checkInvariant(db), ["live count of space personal: kept 5, counted 1"]);
});

test("0017 counts the memories of a store made before it", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-live-counts-"));
  dirs.push(dir);
  const old = migrationsBefore(17);
  dirs.push(old);
  const file = path.join(dir, "memory.db");
  const before = openDb(file, old);
  assert.equal(before.sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'live_counts'").get(), undefined);
  for (const space of ["personal", "work", "gone"]) ensureSpace(before.sqlite, space);
  const add = before.sqlite.prepare(
    "INSERT INTO memories (rid, id, space_id, content, content_hash, soft_deleted, timestamp, embedding_model) VALUES (?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', 'm')",
  );
  add.run(1, "a", "personal", "a", "ha", 0);
  add.run(2, "b", "personal", "b", "hb", 1);
  add.run(3, "c", "work", "c", "hc", 0);
  add.run(4, "d", "gone", "d", "hd", 1);
  before.sqlite.close();
  const now = openDb(file);
  try {
    assertCounted(now.sqlite, "after 0017", { personal: 1, work: 1, gone: 0 });
  } finally {
    now.sqlite.close();
  }
});
