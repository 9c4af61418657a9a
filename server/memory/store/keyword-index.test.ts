import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { openDb } from "../../db";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { migrationsBefore } from "../../test/migrations-before";
import {
  checkInvariant,
  deleteSpace,
  indexedRids,
  indexedTotal,
  indexText,
  insertMemories,
  keywordKey,
  keywordTableOf,
  matchCount,
  matchText,
  purgeMemories,
  restoreMemories,
  softDeleteMemories,
  spaceWrites,
  unindexText,
  updateMemoryContent,
} from ".";

const DIM = 8;
const stores: TempStore[] = [];
const dirs: string[] = [];
after(() => {
  for (const s of stores) s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function store(): Database.Database {
  const s = openTempStore({ model: "m", dim: DIM });
  stores.push(s);
  return s.sqlite;
}

const add = (db: Database.Database, spaceId: string, texts: string[]) =>
  insertMemories(
    db,
    texts.map((content) => ({ spaceId, content })),
    texts.map((_, i) => axisVector(DIM, i)),
    "m",
  );

test("each space has its own table: bm25 is the same whether or not another space holds the same words", () => {
  const alone = store();
  add(alone, "personal", ["the lighthouse keeper", "a walk to the lighthouse at dusk", "bread and soup"]);
  const crowded = store();
  add(crowded, "personal", ["the lighthouse keeper", "a walk to the lighthouse at dusk", "bread and soup"]);
  add(
    crowded,
    "other",
    Array.from({ length: 40 }, (_, i) => `lighthouse ${i} keeper lighthouse`),
  );
  assert.deepEqual(
    matchText(crowded, "memory", "personal", '"lighthouse"'),
    matchText(alone, "memory", "personal", '"lighthouse"'),
  );
  assert.equal(matchCount(crowded, "memory", "personal", '"lighthouse"'), 2);
  assert.equal(matchCount(crowded, "memory", "other", '"lighthouse"'), 40);
  assert.notEqual(keywordTableOf(crowded, "memory", "personal"), keywordTableOf(crowded, "memory", "other"));
  assert.deepEqual(matchText(crowded, "memory", "nowhere", '"lighthouse"'), []);
});

test("every write path keeps the space's table equal to its live memories", () => {
  const db = store();
  const [a, b] = add(db, "personal", ["apple orchard", "pear tree"]);
  add(db, "work", ["apple pie budget"]);
  const rids = () => indexedRids(db, "memory", "personal").sort((x, y) => x - y);
  assert.deepEqual(rids(), [1, 2]);
  softDeleteMemories(db, [a!]);
  assert.deepEqual(rids(), [2]);
  assert.equal(matchCount(db, "memory", "personal", '"apple"'), 0, "a soft-deleted memory is not matched");
  restoreMemories(db, [a!]);
  assert.deepEqual(rids(), [1, 2]);
  updateMemoryContent(db, b!, "plum tree", axisVector(DIM, 3), "m");
  assert.equal(matchCount(db, "memory", "personal", '"pear"'), 0);
  assert.equal(matchCount(db, "memory", "personal", '"plum"'), 1);
  purgeMemories(db, [a!]);
  assert.deepEqual(rids(), [2]);
  assert.deepEqual(checkInvariant(db), []);
  const workTable = keywordTableOf(db, "memory", "work");
  deleteSpace(db, "work");
  assert.equal(keywordTableOf(db, "memory", "work"), undefined);
  assert.ok(workTable);
  assert.deepEqual(
    db.prepare("SELECT name FROM sqlite_master WHERE name = ? OR name GLOB ?").all(workTable, `${workTable}_*`),
    [],
    "the deleted space's table and its shadow tables are dropped",
  );
  assert.equal(indexedTotal(db, "memory"), 1);
  assert.deepEqual(checkInvariant(db), []);
});

test("a space's writes count its own changes only; a space made again gets a new key", () => {
  const db = store();
  const [a] = add(db, "personal", ["one", "two"]);
  assert.equal(spaceWrites(db, "personal"), 2);
  add(db, "work", ["three", "four", "five"]);
  assert.equal(spaceWrites(db, "personal"), 2, "another space's writes do not move it");
  softDeleteMemories(db, [a!]);
  restoreMemories(db, [a!]);
  updateMemoryContent(db, a!, "one edited", axisVector(DIM, 1), "m");
  assert.equal(spaceWrites(db, "personal"), 5);
  const key = keywordKey(db, "work");
  deleteSpace(db, "work");
  assert.equal(spaceWrites(db, "work"), 0);
  add(db, "work", ["again"]);
  assert.notEqual(keywordKey(db, "work"), key, "a cache keyed by it cannot serve the old space's figures");
});

test("a table made in a transaction that rolled back is made again on the next write", () => {
  const db = store();
  db.prepare("INSERT INTO spaces (id) VALUES ('fresh')").run();
  assert.throws(() =>
    db.transaction(() => {
      indexText(db, "fact", "fresh", 1, "made then rolled back");
      throw new Error("roll back");
    })(),
  );
  assert.equal(keywordTableOf(db, "fact", "fresh"), undefined);
  indexText(db, "fact", "fresh", 1, "written for good");
  assert.equal(matchCount(db, "fact", "fresh", '"good"'), 1);
  unindexText(db, "fact", "fresh", 1);
  assert.equal(matchCount(db, "fact", "fresh", '"good"'), 0);
  // Facts and memories of a space are apart: the same rowid in each.
  add(db, "fresh", ["a memory"]);
  indexText(db, "fact", "fresh", 1, "a fact");
  assert.equal(matchCount(db, "memory", "fresh", '"fact"'), 0);
  assert.equal(matchCount(db, "fact", "fresh", '"memory"'), 0);
});

test("a store made before migration 0018: memory_fts is moved into per-space tables once, and dropped", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-kw-migration-"));
  dirs.push(dir);
  const oldMigrations = migrationsBefore(18);
  dirs.push(oldMigrations);
  const file = path.join(dir, "memory.db");
  const old = openDb(file, oldMigrations).sqlite;
  const vec = (i: number) => Buffer.from(axisVector(768, i).buffer);
  const rows = [
    { rid: 1, space: "personal", text: "sourdough starter notes", deleted: 0 },
    { rid: 2, space: "work", text: "sourdough budget for the office", deleted: 0 },
    { rid: 3, space: "personal", text: "sourdough that was forgotten", deleted: 1 },
  ];
  old.prepare("INSERT OR IGNORE INTO spaces (id) VALUES ('work')").run();
  for (const r of rows) {
    old
      .prepare(
        `INSERT INTO memories (id, rid, space_id, content, timestamp, content_hash, embedding_model, soft_deleted)
         VALUES (?, ?, ?, ?, '2026-01-01T00:00:00.000Z', ?, 'nomic', ?)`,
      )
      .run(`id-${r.rid}`, r.rid, r.space, r.text, `h${r.rid}`, r.deleted);
    if (r.deleted) old.prepare("INSERT INTO memory_vec_trash (rid, embedding) VALUES (?, ?)").run(r.rid, vec(r.rid));
    else {
      old
        .prepare("INSERT INTO memory_vec (rowid, space_id, embedding) VALUES (?, ?, ?)")
        .run(BigInt(r.rid), r.space, vec(r.rid));
      old.prepare("INSERT INTO memory_vec_rows (rid, embedding) VALUES (?, ?)").run(r.rid, vec(r.rid));
      old.prepare("INSERT INTO memory_fts (rowid, content) VALUES (?, ?)").run(BigInt(r.rid), r.text);
    }
  }
  old.close();
  const now = openDb(file).sqlite;
  try {
    assert.deepEqual(checkInvariant(now), []);
    assert.equal(now.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_fts'").get(), undefined);
    assert.deepEqual(indexedRids(now, "memory", "personal"), [1]);
    assert.deepEqual(indexedRids(now, "memory", "work"), [2]);
    assert.equal(matchCount(now, "memory", "personal", '"sourdough"'), 1);
    // The counts the triggers keep carry on from the old rows.
    insertMemories(now, [{ spaceId: "personal", content: "a new loaf" }], [axisVector(768, 4)], "nomic");
    assert.equal(matchCount(now, "memory", "personal", '"loaf"'), 1);
    assert.deepEqual(checkInvariant(now), []);
  } finally {
    now.close();
  }
});
