/**
 * Space rename and delete at the store level (store.renameSpace / store.deleteSpace) and through the
 * spaces service: rows of every referring table move or go, vec0 partition rows are re-inserted under the
 * new name, the in-memory ANN index follows, and a failure half-way changes nothing.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { axisVector, openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import {
  createSpace,
  deleteSpace as deleteSpaceService,
  listSpaceSummaries,
  renameSpace as renameSpaceService,
} from "../../services/spaces-service";
import { ServiceError } from "../../core/errors";
import { annFor, startAnnIndex, stopAnnIndex } from "../index/ann-registry";
import { beginReindex, pendingBatch, storeBatch, swapVectorTables } from "../index/reindex";
import {
  checkInvariant,
  deleteSpace,
  getMemory,
  matchText,
  insertMemories,
  renameSpace,
  restoreMemories,
  softDeleteMemories,
  spaceExists,
  spaceReferences,
} from "./.";
import { StoreError } from "../../core/errors";
import { vec0Search, vectorSearchWithSource } from "../retrieval/vector-search";

const DIM = 8;
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

function seeded(): { db: Database.Database; ids: string[] } {
  const s = openTempStore({ model: "test-model", dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const ids = insertMemories(
    db,
    [
      { spaceId: "home", content: "home one" },
      { spaceId: "home", content: "home two" },
      { spaceId: "home", content: "home three (deleted)" },
      { spaceId: "work", content: "work one" },
    ],
    [0, 1, 2, 3].map((i) => axisVector(DIM, i)),
    "test-model",
  );
  softDeleteMemories(db, [ids[2]!]);
  db.prepare(
    "INSERT INTO conversations (id, space_id, title) VALUES ('c1', 'home', 'Holiday plans'), ('c2', 'work', 'Standup')",
  ).run();
  db.prepare(
    "INSERT INTO messages (id, conversation_id, role, content) VALUES ('m1', 'c1', 'user', 'hi'), ('m2', 'c2', 'user', 'hello')",
  ).run();
  db.prepare(
    "INSERT INTO documents (id, space_id, name, mime, size, content_hash, status) VALUES ('d1', 'home', 'recipes.md', 'text/markdown', 10, 'h', 'done')",
  ).run();
  return { db, ids };
}

const count = (db: Database.Database, sql: string, ...p: unknown[]) => (db.prepare(sql).get(...p) as { n: number }).n;

test("rename moves memories, vectors, conversations and documents in one transaction", () => {
  const { db, ids } = seeded();
  assert.deepEqual(
    spaceReferences(db).map((r) => `${r.table}.${r.column}`),
    [
      "conversation_spaces.space_id",
      "conversations.space_id",
      "documents.space_id",
      "fact_jobs.space_id",
      "fact_learn_runs.space_id",
      "fact_proposals.space_id",
      "fact_vectors.space_id",
      "facts.space_id",
      "keyword_tables.space_id",
      "memories.space_id",
      "pending_exchanges.space_id",
      "retrieval_events.space_id",
      "space_shares.space_id",
    ],
  );
  const created = (db.prepare("SELECT created_at AS c FROM spaces WHERE id = 'home'").get() as { c: string }).c;
  const r = renameSpace(db, "home", "family");
  assert.deepEqual(r, {
    moved: {
      conversation_spaces: 0,
      conversations: 1,
      documents: 1,
      fact_jobs: 0,
      fact_learn_runs: 0,
      fact_proposals: 0,
      fact_vectors: 0, // facts follow (server/memory/facts/spaces.test.ts)
      facts: 0,
      keyword_tables: 1,
      memories: 3,
      pending_exchanges: 0,
      retrieval_events: 0,
      space_shares: 0,
    },
    vectors: 2,
  });
  assert.equal(spaceExists(db, "home"), false);
  assert.equal(
    (db.prepare("SELECT created_at AS c FROM spaces WHERE id = 'family'").get() as { c: string }).c,
    created,
  );
  assert.deepEqual([getMemory(db, ids[0]!)!.spaceId, getMemory(db, ids[2]!)!.spaceId], ["family", "family"]);
  assert.equal(count(db, "SELECT count(*) AS n FROM conversations WHERE space_id = 'family'"), 1);
  assert.equal(
    count(db, "SELECT count(*) AS n FROM messages WHERE conversation_id = 'c1'"),
    1,
    "messages stay with their conversation",
  );
  assert.equal(count(db, "SELECT count(*) AS n FROM documents WHERE space_id = 'family'"), 1);
  // The vec0 partition: found under the new name, nothing under the old.
  assert.deepEqual(
    vec0Search(db, "family", axisVector(DIM, 0), 10)
      .map((h) => h.rid)
      .sort(),
    [getMemory(db, ids[0]!)!.rid, getMemory(db, ids[1]!)!.rid].sort(),
  );
  assert.deepEqual(vec0Search(db, "home", axisVector(DIM, 0), 10), []);
  // The keyword table went with the name (its statistics are the renamed space's); none is left under the old.
  assert.deepEqual(
    matchText(db, "memory", "family", '"home"')
      .map((h) => h.rid)
      .sort(),
    [getMemory(db, ids[0]!)!.rid, getMemory(db, ids[1]!)!.rid].sort(),
  );
  assert.deepEqual(matchText(db, "memory", "home", '"home"'), []);
  assert.deepEqual(checkInvariant(db), []);
  // A soft-deleted memory restores into the renamed space.
  assert.deepEqual(restoreMemories(db, [ids[2]!]), [ids[2]!]);
  assert.equal(vec0Search(db, "family", axisVector(DIM, 2), 1)[0]?.rid, getMemory(db, ids[2]!)!.rid);
  assert.deepEqual(checkInvariant(db), []);
});

test("rename to an existing name, from an unknown one, or failing half-way changes nothing", () => {
  const { db } = seeded();
  const before = JSON.stringify([
    rawCounts(db),
    db.prepare("SELECT id, space_id FROM memories ORDER BY rid").all(),
    db.prepare("SELECT id FROM spaces ORDER BY id").all(),
  ]);
  const snapshot = () =>
    JSON.stringify([
      rawCounts(db),
      db.prepare("SELECT id, space_id FROM memories ORDER BY rid").all(),
      db.prepare("SELECT id FROM spaces ORDER BY id").all(),
    ]);
  assert.throws(
    () => renameSpace(db, "home", "work"),
    (e: unknown) => e instanceof StoreError && /already exists/.test(e.message),
  );
  assert.throws(
    () => renameSpace(db, "nowhere", "x"),
    (e: unknown) => e instanceof StoreError && e.code === "NOT_FOUND",
  );
  assert.throws(() => renameSpace(db, "home", "home"), StoreError);
  // A table that refers to spaces and refuses the new name: the rename fails after memories moved, and is rolled back.
  db.exec("CREATE TABLE zz_blocker (space_id TEXT REFERENCES spaces(id) CHECK (space_id != 'forbidden'))");
  db.exec("INSERT INTO zz_blocker VALUES ('home')");
  assert.throws(() => renameSpace(db, "home", "forbidden"), /CHECK constraint failed/);
  assert.equal(snapshot(), before);
  assert.deepEqual(vec0Search(db, "home", axisVector(DIM, 0), 10).length, 2);
  assert.deepEqual(checkInvariant(db), []);
});

test("during a re-index, rename and delete also move and remove the new model's vectors (memory_vec_next)", () => {
  const { db, ids } = seeded();
  beginReindex(db, { model: "test-model-b", dim: 6 });
  const pending = pendingBatch(db, 0, 2); // the first two memories (home one, home two) get new-model vectors now
  storeBatch(
    db,
    pending,
    pending.map((_, i) => axisVector(6, i)),
  );
  const [written] = insertMemories(
    db,
    [{ spaceId: "home", content: "home four, written during the re-index" }],
    [axisVector(6, 4)],
    "test-model-b",
  );
  const nextIn = (space: string) =>
    (
      db
        .prepare("SELECT rowid AS rid FROM memory_vec_next WHERE embedding MATCH ? AND k = 10 AND space_id = ?")
        .all(Buffer.from(axisVector(6, 0).buffer), space) as { rid: number }[]
    )
      .map((r) => r.rid)
      .sort((a, b) => a - b);
  const rid = (id: string) => getMemory(db, id)!.rid;
  assert.deepEqual(nextIn("home"), [rid(ids[0]!), rid(ids[1]!), rid(written!)]);

  const r = renameSpace(db, "home", "family");
  assert.equal(
    r.vectors,
    2,
    "two live vectors of the old model moved in memory_vec; the new memory has only its memory_vec_next vector",
  );
  assert.deepEqual(nextIn("home"), []);
  assert.deepEqual(nextIn("family"), [rid(ids[0]!), rid(ids[1]!), rid(written!)]);

  // The re-index completes: every memory, including the renamed space's, has its vector under the new name.
  const rest = pendingBatch(db, 0, 100);
  storeBatch(
    db,
    rest,
    rest.map((_, i) => axisVector(6, i + 2)),
  );
  assert.equal(swapVectorTables(db), true);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(
    vec0Search(db, "family", axisVector(6, 4), 1).map((h) => h.rid),
    [rid(written!)],
  );

  // Delete during another re-index removes memory_vec_next rows too.
  beginReindex(db, { model: "test-model-c", dim: 6 });
  const again = pendingBatch(db, 0, 100);
  storeBatch(
    db,
    again,
    again.map((_, i) => axisVector(6, i)),
  );
  deleteSpace(db, "family");
  assert.equal(
    (db.prepare("SELECT count(*) AS n FROM memory_vec_next").get() as { n: number }).n,
    1,
    "only the work memory's vector is left",
  );
  assert.deepEqual(checkInvariant(db), []);
});

test("the ANN index follows a rename and a delete", async () => {
  const { db, ids } = seeded();
  const idx = startAnnIndex(db, DIM, null);
  await idx.build();
  assert.equal(annFor(db)?.state, "ready");
  renameSpace(db, "home", "family");
  const hit = vectorSearchWithSource(db, "family", axisVector(DIM, 1), 1);
  assert.deepEqual([hit.source, hit.hits[0]?.rid], ["ann", getMemory(db, ids[1]!)!.rid]);
  assert.deepEqual(vectorSearchWithSource(db, "home", axisVector(DIM, 1), 5), { hits: [], source: "ann" });
  deleteSpace(db, "family");
  assert.deepEqual(vectorSearchWithSource(db, "family", axisVector(DIM, 1), 5), { hits: [], source: "ann" });
  assert.equal(vectorSearchWithSource(db, "work", axisVector(DIM, 3), 1).hits[0]?.rid, getMemory(db, ids[3]!)!.rid);
  stopAnnIndex(db);
});

test("delete removes the space's memories from every table, its conversations (with messages) and documents; nothing else", () => {
  const { db, ids } = seeded();
  const r = deleteSpace(db, "home");
  assert.deepEqual(r, {
    removed: {
      memories: 3,
      conversation_spaces: 0,
      conversations: 1,
      documents: 1,
      fact_jobs: 0,
      fact_learn_runs: 0,
      fact_proposals: 0,
      fact_vectors: 0,
      facts: 0,
      keyword_tables: 0, // dropped with the space's keyword tables before the rows that refer to it
      pending_exchanges: 0,
      retrieval_events: 0,
      space_shares: 0,
    },
  });
  assert.equal(spaceExists(db, "home"), false);
  assert.deepEqual(
    rawCounts(db),
    { memories: 1, vec: 1, fts: 1, trash: 0 },
    "live, soft-deleted and parked vectors all gone",
  );
  assert.equal(count(db, "SELECT count(*) AS n FROM messages"), 1, "the deleted conversation's messages went with it");
  assert.equal(getMemory(db, ids[3]!)!.spaceId, "work");
  assert.deepEqual(checkInvariant(db), []);
  assert.throws(
    () => deleteSpace(db, "home"),
    (e: unknown) => e instanceof StoreError && e.code === "NOT_FOUND",
  );
});

test("spaces service: counts, create, the default space is protected, delete needs the name as confirmation", () => {
  const { db } = seeded();
  const isServiceError = (status: number, msg: RegExp) => (e: unknown) =>
    e instanceof ServiceError && e.status === status && msg.test(e.message);
  // A failed or cancelled upload kept nothing: a row on Ingest, not one of the space's documents (issue 50).
  db.prepare(
    `INSERT INTO documents (id, space_id, name, mime, size, content_hash, status, error) VALUES
       ('d2', 'home', 'empty.txt', 'text/plain', 0, '', 'failed', 'the file is empty (0 bytes)'),
       ('d3', 'home', 'big.md', 'text/markdown', 10, 'h3', 'cancelled', NULL)`,
  ).run();
  const home = listSpaceSummaries(db).find((s) => s.id === "home")!;
  assert.deepEqual(
    [home.memories, home.deleted, home.conversations, home.documents, home.isDefault],
    [2, 1, 1, 1, false],
  );
  assert.equal(createSpace(db, "garden").memories, 0);
  assert.throws(() => createSpace(db, "garden"), isServiceError(409, /already exists/));
  assert.throws(() => createSpace(db, "no spaces!"), isServiceError(400, /space must be/));
  assert.throws(
    () => renameSpaceService(db, "personal", "mine"),
    isServiceError(400, /default space 'personal' cannot be renamed/),
  );
  assert.throws(() => renameSpaceService(db, "home", "work"), isServiceError(409, /already exists/));
  assert.throws(() => renameSpaceService(db, "ghost", "x"), isServiceError(404, /does not exist/));
  assert.throws(() => renameSpaceService(db, "home", "bad name"), isServiceError(400, /space must be/));
  assert.throws(() => deleteSpaceService(db, "personal", "personal"), isServiceError(400, /cannot be deleted/));
  assert.throws(() => deleteSpaceService(db, "home", "Home"), isServiceError(400, /confirm with its exact name/));
  assert.equal(spaceExists(db, "home"), true);
  assert.deepEqual(renameSpaceService(db, "home", "family").vectors, 2);
  assert.deepEqual(deleteSpaceService(db, "family", "family").removed.memories, 3);
  assert.deepEqual(
    listSpaceSummaries(db).map((s) => s.id),
    ["garden", "personal", "work"],
  );
});
