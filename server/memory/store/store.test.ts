/**
 * The store on a real SQLite file with sqlite-vec: the three-table invariant through every write path,
 * all-or-nothing transactions, and binding to an embedding model.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { axisVector, ftsTable, openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import {
  bindEmbeddingModel,
  boundModel,
  checkInvariant,
  findLiveByHash,
  findLiveContaining,
  getMemory,
  contentHash,
  insertMemories,
  purgeMemories,
  recordRetrievals,
  restoreMemories,
  setPinned,
  softDeleteMemories,
  spaceExists,
  storeCounts,
  updateMemoryContent,
  vectorTableDim,
  type NewMemory,
} from "./.";
import { StoreError } from "../../core/errors";
import { keywordSearchScored } from "../retrieval/keyword-search";
import { vectorSearchWithSource } from "../retrieval/vector-search";

/** The ranked hits alone. */
const keywordSearch = (...a: Parameters<typeof keywordSearchScored>) => keywordSearchScored(...a).hits;

const vectorSearch = (...a: Parameters<typeof vectorSearchWithSource>) => vectorSearchWithSource(...a).hits;

const DIM = 8;
const MODEL = "test-model";
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function store(): Database.Database {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  return s.sqlite;
}

function add(db: Database.Database, contents: string[], extra: Partial<NewMemory> = {}): string[] {
  return insertMemories(
    db,
    contents.map((content) => ({ spaceId: "personal", content, ...extra })),
    contents.map((_, i) => axisVector(DIM, i)),
    MODEL,
  );
}

const ftsHas = (db: Database.Database, word: string) => keywordSearch(db, "personal", word, 10).length > 0;

test("insert writes one row to each of the three tables under the same rid", () => {
  const db = store();
  const ids = add(db, ["alpha memory", "beta memory"], {
    timestamp: "2024-06-15T00:00:00.000Z",
    importance: 3,
    kind: "import",
  });
  assert.equal(ids.length, 2);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(storeCounts(db), { memories: 2, vectors: 2, fts: 2 });
  const m = getMemory(db, ids[1]!)!;
  assert.equal(m.rid, 2);
  assert.equal(m.content, "beta memory");
  assert.equal(m.timestamp, "2024-06-15T00:00:00.000Z");
  assert.equal(m.importance, 3);
  assert.equal(m.kind, "import");
  assert.equal(m.pinned, false);
  assert.equal(m.softDeleted, false);
  assert.equal(m.embeddingModel, MODEL);
  assert.equal(m.contentHash, contentHash("beta memory"));
  assert.match(m.id, /^[0-9a-f-]{36}$/);
  const vecRid = (db.prepare("SELECT rowid AS r FROM memory_vec WHERE rowid = 2").get() as { r: number }).r;
  const ftsContent = (db.prepare(`SELECT content FROM ${ftsTable(db)} WHERE rowid = 2`).get() as { content: string })
    .content;
  assert.equal(vecRid, 2);
  assert.equal(ftsContent, "beta memory");
});

test("pinned memories get importance 5; defaults are importance 1, kind chat", () => {
  const db = store();
  const [p, d] = [add(db, ["pinned one"], { pinned: true, importance: 2 })[0]!, add(db, ["default one"])[0]!];
  assert.deepEqual([getMemory(db, p)!.importance, getMemory(db, p)!.pinned], [5, true]);
  assert.deepEqual([getMemory(db, d)!.importance, getMemory(db, d)!.kind], [1, "chat"]);
});

test("invariant holds through soft delete, restore, update and purge", () => {
  const db = store();
  const [a, b, c] = add(db, ["apple pie recipe", "banana bread recipe", "cherry tart recipe"]);
  softDeleteMemories(db, [a!]);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(rawCounts(db), { memories: 3, vec: 2, fts: 2, trash: 1 });
  assert.equal(getMemory(db, a!)!.softDeleted, true);
  assert.ok(getMemory(db, a!)!.deletedAt);
  assert.equal(ftsHas(db, "apple"), false);

  assert.deepEqual(restoreMemories(db, [a!]), [a]);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(rawCounts(db), { memories: 3, vec: 3, fts: 3, trash: 0 });
  assert.equal(ftsHas(db, "apple"), true);
  assert.equal(getMemory(db, a!)!.deletedAt, null);
  // The vector came back intact: the memory's own axis finds it first.
  assert.equal(vectorSearch(db, "personal", axisVector(DIM, 0), 1)[0]!.rid, getMemory(db, a!)!.rid);

  updateMemoryContent(db, b!, "blueberry muffin recipe", axisVector(DIM, 5), "test-model-2");
  assert.deepEqual(checkInvariant(db), []);
  assert.equal(ftsHas(db, "banana"), false);
  assert.equal(ftsHas(db, "blueberry"), true);
  assert.equal(getMemory(db, b!)!.contentHash, contentHash("blueberry muffin recipe"));
  assert.equal(getMemory(db, b!)!.embeddingModel, "test-model-2");
  assert.equal(vectorSearch(db, "personal", axisVector(DIM, 5), 1)[0]!.rid, getMemory(db, b!)!.rid);

  assert.equal(purgeMemories(db, [c!]), 1);
  assert.deepEqual(checkInvariant(db), []);
  assert.equal(getMemory(db, c!), undefined);
  assert.deepEqual(rawCounts(db), { memories: 2, vec: 2, fts: 2, trash: 0 });
});

test("purging a soft-deleted memory removes its parked vector too", () => {
  const db = store();
  const [a] = add(db, ["to be purged"]);
  softDeleteMemories(db, [a!]);
  assert.equal(purgeMemories(db, [a!, "no-such-id"]), 1);
  assert.deepEqual(rawCounts(db), { memories: 0, vec: 0, fts: 0, trash: 0 });
  assert.deepEqual(checkInvariant(db), []);
});

test("updating a soft-deleted memory changes the parked vector; restore brings the new content back", () => {
  const db = store();
  const [a] = add(db, ["old words here"]);
  softDeleteMemories(db, [a!]);
  updateMemoryContent(db, a!, "fresh words now", axisVector(DIM, 6), MODEL);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(rawCounts(db), { memories: 1, vec: 0, fts: 0, trash: 1 });
  restoreMemories(db, [a!]);
  assert.deepEqual(checkInvariant(db), []);
  assert.equal(ftsHas(db, "fresh"), true);
  assert.equal(ftsHas(db, "old"), false);
  assert.ok(vectorSearch(db, "personal", axisVector(DIM, 6), 1)[0]!.similarity > 0.999);
});

test("soft delete and restore are idempotent and report only what changed", () => {
  const db = store();
  const [a, b] = add(db, ["one thing", "two things"]);
  assert.deepEqual(softDeleteMemories(db, [a!, "missing"]), [a]);
  assert.deepEqual(softDeleteMemories(db, [a!]), []);
  assert.deepEqual(restoreMemories(db, [a!, b!]), [a]); // b is live: nothing to restore
  assert.deepEqual(restoreMemories(db, [a!]), []);
  assert.deepEqual(checkInvariant(db), []);
});

test("updateMemoryContent of an unknown id is NOT_FOUND and changes nothing", () => {
  const db = store();
  add(db, ["keep me"]);
  assert.throws(
    () => updateMemoryContent(db, "nope", "x", axisVector(DIM, 1), MODEL),
    (e: unknown) => e instanceof StoreError && e.code === "NOT_FOUND",
  );
  assert.deepEqual(rawCounts(db), { memories: 1, vec: 1, fts: 1, trash: 0 });
});

test("checkInvariant finds a broken store", () => {
  const db = store();
  add(db, ["first", "second", "third"]);
  db.prepare(`DELETE FROM ${ftsTable(db)} WHERE rowid = 2`).run();
  const problems = checkInvariant(db);
  assert.ok(
    problems.some((p) => /live counts differ: memories=3 vectors=3 fts=2/.test(p)),
    problems.join("; "),
  );
  assert.ok(problems.includes("1 live memories lack an FTS row"), problems.join("; "));
  db.prepare(`INSERT INTO ${ftsTable(db)} (rowid, content) VALUES (2, 'second')`).run();
  db.prepare(`INSERT INTO ${ftsTable(db)} (rowid, content) VALUES (99, 'stray')`).run();
  assert.ok(checkInvariant(db).includes("1 FTS rows belong to no live memory of their space"));
  db.prepare(`DELETE FROM ${ftsTable(db)} WHERE rowid = 99`).run();
  db.prepare("DELETE FROM memory_vec WHERE rowid = 3").run();
  assert.ok(checkInvariant(db).includes("1 live memories lack a vector"));
});

test("a vector of the wrong dimension for the 2nd item rolls the whole insert back (no rows, no new space)", () => {
  const db = store();
  add(db, ["already there"]);
  const before = rawCounts(db);
  assert.throws(
    () =>
      insertMemories(
        db,
        [
          { spaceId: "personal", content: "first of batch" },
          { spaceId: "brand-new-space", content: "second of batch" },
        ],
        [axisVector(DIM, 0), new Float32Array(DIM - 3).fill(0.5)],
        MODEL,
      ),
    /dimension/i,
  );
  assert.deepEqual(rawCounts(db), before);
  assert.equal(spaceExists(db, "brand-new-space"), false);
  assert.equal(ftsHas(db, "batch"), false);
  assert.deepEqual(checkInvariant(db), []);
  // The store is still usable afterwards, and rids continue.
  const [id] = add(db, ["after the failure"]);
  assert.equal(getMemory(db, id!)!.rid, 2);
});

test("a wrapping transaction that throws after insertMemories leaves nothing in any table", () => {
  const db = store();
  const wrapped = db.transaction(() => {
    add(db, ["inside the transaction", "also inside"]);
    assert.equal(rawCounts(db).memories, 2);
    throw new Error("boom after the insert");
  });
  assert.throws(() => wrapped(), /boom/);
  assert.deepEqual(rawCounts(db), { memories: 0, vec: 0, fts: 0, trash: 0 });
  assert.deepEqual(checkInvariant(db), []);
});

test("one vector per memory is required", () => {
  const db = store();
  assert.throws(
    () =>
      insertMemories(
        db,
        [
          { spaceId: "personal", content: "a" },
          { spaceId: "personal", content: "b" },
        ],
        [axisVector(DIM, 0)],
        MODEL,
      ),
    (e: unknown) => e instanceof StoreError && e.code === "INVALID",
  );
  assert.equal(rawCounts(db).memories, 0);
});

test("bindEmbeddingModel: an empty store adopts a new dimension; a store with vectors of another model refuses", () => {
  const s = openTempStore();
  stores.push(s);
  const db = s.sqlite;
  assert.equal(vectorTableDim(db), 768); // as migrated, for nomic
  assert.equal(boundModel(db), undefined);
  bindEmbeddingModel(db, "model-a", 16);
  assert.equal(vectorTableDim(db), 16);
  assert.deepEqual(boundModel(db), { model: "model-a", dim: 16 });
  // Empty: switching again is allowed and recreates the table.
  bindEmbeddingModel(db, "model-b", 12);
  assert.equal(vectorTableDim(db), 12);
  insertMemories(db, [{ spaceId: "personal", content: "held vector" }], [axisVector(12, 0)], "model-b");
  // Same model again: a no-op.
  bindEmbeddingModel(db, "model-b", 12);
  for (const [model, dim] of [
    ["model-c", 16],
    ["model-b", 16],
    ["model-c", 12],
  ] as const) {
    assert.throws(
      () => bindEmbeddingModel(db, model, dim),
      (e: unknown) => e instanceof StoreError && e.code === "MODEL_MISMATCH" && /model-b \(12-d\)/.test(e.message),
      `${model}/${dim}`,
    );
  }
  assert.equal(vectorTableDim(db), 12);
  assert.deepEqual(boundModel(db), { model: "model-b", dim: 12 });
  assert.deepEqual(checkInvariant(db), []);
  assert.equal(vectorSearch(db, "personal", axisVector(12, 0), 1).length, 1);
});

test("bindEmbeddingModel also refuses while only soft-deleted (parked) vectors remain", () => {
  const s = openTempStore({ model: "model-a", dim: DIM });
  stores.push(s);
  const [id] = insertMemories(s.sqlite, [{ spaceId: "personal", content: "parked" }], [axisVector(DIM, 0)], "model-a");
  softDeleteMemories(s.sqlite, [id!]);
  assert.throws(
    () => bindEmbeddingModel(s.sqlite, "model-z", 4),
    (e: unknown) => e instanceof StoreError && e.code === "MODEL_MISMATCH",
  );
  purgeMemories(s.sqlite, [id!]);
  bindEmbeddingModel(s.sqlite, "model-z", 4);
  assert.equal(vectorTableDim(s.sqlite), 4);
});

test("recordRetrievals: +1 count, stamp, importance +1 capped at 5, live memories only", () => {
  const db = store();
  const [low, high, gone] = [
    add(db, ["low importance"], { importance: 1 })[0]!,
    add(db, ["high importance"], { importance: 5 })[0]!,
    add(db, ["deleted one"], { importance: 2 })[0]!,
  ];
  softDeleteMemories(db, [gone]);
  recordRetrievals(db, [low, high, gone], "2024-07-01T00:00:00.000Z");
  recordRetrievals(db, [low], "2024-07-02T00:00:00.000Z");
  assert.deepEqual(
    [getMemory(db, low)!.retrievalCount, getMemory(db, low)!.importance, getMemory(db, low)!.lastRetrievedAt],
    [2, 3, "2024-07-02T00:00:00.000Z"],
  );
  assert.deepEqual([getMemory(db, high)!.retrievalCount, getMemory(db, high)!.importance], [1, 5]);
  assert.deepEqual([getMemory(db, gone)!.retrievalCount, getMemory(db, gone)!.importance], [0, 2]);
});

test("setPinned pins (importance 5) and unpins (importance kept)", () => {
  const db = store();
  const [id] = add(db, ["pin me"], { importance: 2 });
  assert.equal(setPinned(db, id!, true), true);
  assert.deepEqual([getMemory(db, id!)!.pinned, getMemory(db, id!)!.importance], [true, 5]);
  setPinned(db, id!, false);
  assert.deepEqual([getMemory(db, id!)!.pinned, getMemory(db, id!)!.importance], [false, 5]);
  assert.equal(setPinned(db, "missing", true), false);
});

test("findLiveByHash: same space, live only", () => {
  const db = store();
  const [id] = add(db, ["hash me"]);
  assert.equal(findLiveByHash(db, "personal", contentHash("hash me"))!.id, id);
  assert.equal(findLiveByHash(db, "work", contentHash("hash me")), undefined);
  softDeleteMemories(db, [id!]);
  assert.equal(findLiveByHash(db, "personal", contentHash("hash me")), undefined);
});

test("findLiveContaining: case-insensitive literal substring (no regex, no LIKE wildcards), Unicode-aware", () => {
  const db = store();
  const [lit, wide, pct, under, cafe, other] = add(db, [
    "the a.*b literal", // 0
    "a then much later b", // 1
    "50% off today", // 2
    "snake_case name", // 3
    "Lunch at the CAFÉ in München", // 4
    "nothing to see", // 5
  ]);
  const ids = (p: string) =>
    findLiveContaining(db, "personal", p)
      .map((m) => m.id)
      .sort();
  assert.deepEqual(ids("a.*b"), [lit]);
  assert.deepEqual(ids("A.*B"), [lit]);
  assert.deepEqual(ids("50%"), [pct]);
  assert.deepEqual(ids("e_c"), [under]);
  assert.deepEqual(ids("%"), [pct]);
  assert.deepEqual(ids("café"), [cafe]);
  assert.deepEqual(ids("MÜNCHEN"), [cafe]);
  assert.deepEqual(ids("much later"), [wide]);
  assert.deepEqual(ids("zzz"), []);
  assert.equal(findLiveContaining(db, "work", "nothing").length, 0);
  softDeleteMemories(db, [other!]);
  assert.deepEqual(ids("nothing"), []);
});
