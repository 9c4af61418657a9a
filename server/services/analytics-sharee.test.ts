/**
 * Whose recalls count where (issue 43, finding 8b): B's recalls of A's shared memory are B's. They count in B's
 * Analytics (recall activity and the retrievals total) and change nothing of A's: not A's Analytics, not A's
 * memory (its retrieval count, last recall and importance, which decide A's ranking and decay). Nothing A then
 * does to the memory (purge) or the space (delete) changes B's past recall counts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { openDb } from "../db";
import { migrationsBefore } from "../test/migrations-before";
import { setDb } from "../db";
import type { MemoContext } from "../core/context";
import { runAs } from "../core/acting";
import { setAppContext } from "../context";
import { recallForPrompt } from "../chat/turn-recall";
import { createPerson } from "../auth/people";
import { getManagedMemory } from "./manager-service";
import { analytics } from "./analytics-service";
import { deleteSpace, purgeMemories, setShare } from "../memory/store";
import { addMemories } from "../memory/store/add";
import { updateRetrievalSettings } from "./retrieval-settings-service";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";

const SOUP = "Grandma's lentil soup needs cumin, a bay leaf and a squeeze of lemon";
const QUERY = "lentil soup cumin bay leaf lemon";

let store: TempStore;
let memo: MemoContext;
let bId = "";
let soupId = "";
const asA = <T>(fn: () => T) => runAs({ personId: "owner", admin: true }, fn);
const asB = <T>(fn: () => T) => runAs({ personId: bId, admin: false }, fn);
const figures = (of: "a" | "b") =>
  (of === "a" ? asA : asB)(() => {
    const x = analytics(store.sqlite, {});
    return {
      retrievals: x.totals.retrievals,
      byDay: x.retrievalsByDay.reduce((n, d) => n + d.retrievals, 0),
      top: x.topRetrieved.map((m) => [m.id, m.retrievalCount]),
    };
  });
const soupAsA = () => asA(() => getManagedMemory(store.sqlite, soupId));

before(async () => {
  store = openTempStore();
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  bId = createPerson(store.sqlite, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  soupId = (await asA(() => addMemories(memo, [{ text: SOUP, space: "recipes" }])))[0]![0]!;
  setShare(store.sqlite, "recipes", bId, "read");
  await asB(() => addMemories(memo, [{ text: "B's own note about the allotment shed" }]));
  for (const who of [asA, asB]) await who(() => updateRetrievalSettings(memo, { minConfidence: 0 }));
});

after(() => {
  setDb(undefined);
  setAppContext(undefined);
  store.close();
});

test("B's recall of A's shared memory counts as B's, and changes nothing of A's", async () => {
  const aBefore = figures("a");
  const soupBefore = soupAsA();
  const bBefore = figures("b");
  const recall = await asB(() =>
    recallForPrompt(memo, { space: `${bId}~personal`, added: ["recipes"], query: QUERY, context: [] }),
  );
  assert.ok(recall.promotable.includes(soupId), "B's turn recalled A's memory");

  assert.deepEqual(figures("a"), aBefore, "A's Analytics count none of B's recalls");
  const soup = soupAsA();
  assert.deepEqual(
    [soup.retrievalCount, soup.lastRetrievedAt, soup.importance],
    [soupBefore.retrievalCount, soupBefore.lastRetrievedAt, soupBefore.importance],
    "A's memory is as it was",
  );
  const bAfter = figures("b");
  assert.equal(bAfter.byDay, bBefore.byDay + 1, "B's recall activity counts it");
  assert.equal(bAfter.retrievals, bBefore.retrievals + 1, "and B's retrievals total");

  // A's own recall still counts for A, on A's memory.
  await asA(() => recallForPrompt(memo, { space: "recipes", query: QUERY, context: [] }));
  assert.equal(figures("a").byDay, aBefore.byDay + 1);
  assert.equal(soupAsA().retrievalCount, soupBefore.retrievalCount + 1);
  assert.deepEqual(figures("b"), bAfter, "A's recall is not B's");
});

test("what A does to the memory or the space later leaves B's recall counts as they were", async () => {
  const bBefore = figures("b");
  asA(() => purgeMemories(store.sqlite, [soupId]));
  assert.deepEqual(figures("b"), bBefore, "A purged the memory");
  asA(() => deleteSpace(store.sqlite, "recipes"));
  assert.deepEqual(figures("b"), bBefore, "A deleted the space");
  // B's recall events name nothing of A's.
  const named = store.sqlite
    .prepare("SELECT count(*) AS n FROM retrieval_events WHERE memory_id = ? OR space_id = 'recipes'")
    .get(soupId) as { n: number };
  assert.equal(named.n, 0);
});

test("migration 0021 keeps every recall event, each its space's person's", () => {
  const old = migrationsBefore(21);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-0021-"));
  try {
    const file = path.join(dir, "memory.db");
    let db = openDb(file, old).sqlite;
    db.prepare(
      "INSERT INTO people (id, name, login, role, password_hash) VALUES ('p1', 'P', 'p', 'member', 'x')",
    ).run();
    db.prepare("INSERT INTO spaces (id, person_id) VALUES ('p1~personal', 'p1')").run();
    const ins = db.prepare("INSERT INTO retrieval_events (memory_id, space_id, at) VALUES (?, ?, ?)");
    ins.run("m-owner", "personal", "2026-01-01T00:00:00.000Z");
    ins.run("m-p1", "p1~personal", "2026-01-02T00:00:00.000Z");
    db.close();
    db = openDb(file).sqlite;
    assert.deepEqual(
      db.prepare("SELECT memory_id AS m, space_id AS s, person_id AS p, at FROM retrieval_events ORDER BY id").all(),
      [
        { m: "m-owner", s: "personal", p: "owner", at: "2026-01-01T00:00:00.000Z" },
        { m: "m-p1", s: "p1~personal", p: "p1", at: "2026-01-02T00:00:00.000Z" },
      ],
    );
    db.close();
  } finally {
    fs.rmSync(old, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
