/**
 * memory_vec_rows follows memory_vec through every path that writes a live vector: insert, edit, soft
 * delete, restore, purge (and a purged rid reused), a space renamed or deleted, a re-index swap, and the
 * migration that creates it on an existing store. Reads by rid return exactly the stored vectors.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { migrationsBefore } from "../../test/migrations-before";
import type Database from "better-sqlite3";
import { openDb } from "../../db";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { beginReindex, pendingBatch, storeBatch, swapVectorTables } from "../index/reindex";
import {
  deleteSpace,
  getMemory,
  insertMemories,
  purgeMemories,
  renameSpace,
  restoreMemories,
  softDeleteMemories,
  storedVectors,
  updateMemoryContent,
} from ".";

const stores: TempStore[] = [];
const dirs: string[] = [];
after(() => {
  for (const s of stores) s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const DIM = 8;

/** The copy holds exactly memory_vec's rids, each with the same bytes. */
function assertInStep(db: Database.Database, when: string): void {
  const vec = db.prepare("SELECT rowid AS rid, embedding FROM memory_vec ORDER BY rowid").all() as {
    rid: number;
    embedding: Buffer;
  }[];
  const rows = db.prepare("SELECT rid, embedding FROM memory_vec_rows ORDER BY rid").all() as typeof vec;
  assert.deepEqual(
    rows.map((r) => r.rid),
    vec.map((r) => r.rid),
    `${when}: the same rids`,
  );
  rows.forEach((r, i) => assert.ok(r.embedding.equals(vec[i]!.embedding), `${when}: rid ${r.rid} has the same vector`));
}

test("the copy follows every write of a live vector", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const ids = insertMemories(
    db,
    [0, 1, 2, 3].map((i) => ({ spaceId: i < 3 ? "personal" : "work", content: `memory ${i}` })),
    [0, 1, 2, 3].map((i) => axisVector(DIM, i)),
    "m",
  );
  assertInStep(db, "insert");
  assert.equal((db.prepare("SELECT count(*) AS n FROM memory_vec_rows").get() as { n: number }).n, 4);

  updateMemoryContent(db, ids[0]!, "memory zero, edited", axisVector(DIM, 5), "m");
  assertInStep(db, "edit");
  const rid0 = getMemory(db, ids[0]!)!.rid;
  assert.deepEqual(
    [...storedVectors(db, [rid0]).get(rid0)!],
    [...axisVector(DIM, 5)],
    "the edited vector is read back",
  );

  softDeleteMemories(db, [ids[1]!]);
  assertInStep(db, "soft delete");
  restoreMemories(db, [ids[1]!]);
  assertInStep(db, "restore");

  // Purge the newest memory: its rid is the next insert's (rids are max + 1), which must not read the old vector.
  const rid3 = getMemory(db, ids[3]!)!.rid;
  purgeMemories(db, [ids[3]!]);
  assertInStep(db, "purge");
  const [again] = insertMemories(db, [{ spaceId: "work", content: "reuses a rid" }], [axisVector(DIM, 7)], "m");
  assert.equal(getMemory(db, again!)!.rid, rid3, "the purged rid is reused");
  assert.deepEqual([...storedVectors(db, [rid3]).get(rid3)!], [...axisVector(DIM, 7)]);
  assertInStep(db, "insert over a reused rid");

  renameSpace(db, "work", "job");
  assertInStep(db, "rename a space");
  deleteSpace(db, "job");
  assertInStep(db, "delete a space");
  assert.equal(storedVectors(db, [rid3]).size, 0, "a deleted space's vectors are gone from reads");
});

test("a re-index swap copies the new model's vectors", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  insertMemories(
    db,
    [0, 1, 2].map((i) => ({ spaceId: "personal", content: `memory ${i}` })),
    [0, 1, 2].map((i) => axisVector(DIM, i)),
    "m",
  );
  beginReindex(db, { model: "m2", dim: 4 });
  const pending = pendingBatch(db, 0, 10);
  storeBatch(
    db,
    pending,
    pending.map((_, i) => axisVector(4, i + 1)),
  );
  assert.ok(swapVectorTables(db));
  assertInStep(db, "after the swap");
  const rid = pending[0]!.rid;
  assert.equal(storedVectors(db, [rid]).get(rid)!.length, 4, "the new model's dimension");
});

test("reads fall back to vec0 for a rid the copy lacks", () => {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const [id] = insertMemories(db, [{ spaceId: "personal", content: "x" }], [axisVector(DIM, 2)], "m");
  const rid = getMemory(db, id!)!.rid;
  db.prepare("DELETE FROM memory_vec_rows").run();
  assert.deepEqual([...storedVectors(db, [rid]).get(rid)!], [...axisVector(DIM, 2)]);
});

test("0015 fills the copy on a store made before it", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-vec-rows-"));
  dirs.push(dir);
  const old = migrationsBefore(15);
  dirs.push(old);
  const file = path.join(dir, "memory.db");
  const before = openDb(file, old);
  assert.equal(before.sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_vec_rows'").get(), undefined);
  before.sqlite
    .prepare("INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, 'personal', ?)")
    .run(7n, Buffer.from(axisVector(768, 3).buffer));
  before.sqlite.close();
  const now = openDb(file);
  try {
    assertInStep(now.sqlite, "after 0015");
    assert.equal(storedVectors(now.sqlite, [7]).get(7)![3], 1);
  } finally {
    now.sqlite.close();
  }
});
