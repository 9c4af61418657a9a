/**
 * drizzle/0019_facts.sql on a store made before it: memories and their live counts are kept as they were,
 * the fact tables are empty, and the new fact counters start at 0 and follow fact writes from then on.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openDb } from "../../db";
import { migrationsBefore } from "../../test/migrations-before";
import { axisVector } from "../../test/temp-store";
import { bindEmbeddingModel, checkInvariant, factWrites, insertMemories, liveInSpace, spaceWrites } from "../store";
import { insertFacts } from "./store";

test("0019 keeps memories and their counts, and fact counters start at 0", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-facts-migration-"));
  const old = migrationsBefore(19);
  try {
    const file = path.join(dir, "memory.db");
    const before = openDb(file, old);
    bindEmbeddingModel(before.sqlite, "m", 4);
    const [id] = insertMemories(
      before.sqlite,
      [{ spaceId: "personal", content: "User: hello" }],
      [axisVector(4, 0)],
      "m",
    );
    const writes = spaceWrites(before.sqlite, "personal");
    before.sqlite.close();
    const after = openDb(file);
    const db = after.sqlite;
    assert.equal(liveInSpace(db, "personal"), 1);
    assert.equal(spaceWrites(db, "personal"), writes);
    assert.equal(factWrites(db, "personal"), 0);
    assert.equal((db.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n, 0);
    insertFacts(db, "personal", [{ text: "Says hello", sources: [id!], origin: "learned" }], [axisVector(4, 1)], "m");
    assert.equal(factWrites(db, "personal"), 1);
    assert.equal(spaceWrites(db, "personal"), writes, "a fact write is not a memory write");
    assert.deepEqual(checkInvariant(db), []);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  }
});
