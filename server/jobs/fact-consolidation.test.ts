/**
 * Consolidation of duplicate facts (issue 42 item 5) through the consolidation runs: a preview lists the
 * pairs and writes nothing, applying it merges the picked ones, a scheduled run merges them with no chat
 * provider, and the run's undo gives back every fact row exactly — also when the same run merged memories
 * the facts came from. Never across people or spaces. Real store, real bundled embedding model.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type Database from "better-sqlite3";
import { runAs } from "../core/acting";
import type { MemoContext } from "../core/context";
import { getRun } from "../core/job-runner";
import { getFact, insertFacts, listFacts } from "../memory/facts/store";
import { checkInvariant, insertMemories, setShare } from "../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { applyConsolidationPreview, previewConsolidation, undoConsolidationRun } from "./consolidation-runs";
import { runConsolidateJob } from "./jobs";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

async function store(): Promise<MemoContext> {
  const { model, dim } = await emb.info();
  const s = openTempStore({ model, dim });
  stores.push(s);
  s.sqlite.prepare("INSERT INTO people (id, name, login) VALUES ('p2', 'P2', 'p2')").run();
  return { db: s.sqlite, embedder: emb };
}

async function memories(ctx: MemoContext, spaceId: string, texts: string[]): Promise<string[]> {
  const { model } = await emb.info();
  return insertMemories(
    ctx.db,
    texts.map((content, i) => ({ spaceId, content, timestamp: `2024-0${i + 1}-01T10:00:00.000Z` })),
    await emb.embedDocuments(texts),
    model,
  );
}

async function facts(ctx: MemoContext, spaceId: string, items: [string, string[]][]): Promise<string[]> {
  const { model } = await emb.info();
  const ids: string[] = [];
  // One call per fact: each is recorded after the one before, as facts learned one exchange at a time are.
  for (const [text, sources] of items)
    ids.push(
      ...insertFacts(ctx.db, spaceId, [{ text, sources, origin: "learned" }], await emb.embedDocuments([text]), model),
    );
  return ids;
}

/** Every fact row and source row: what an undo must give back exactly. */
const snapshot = (db: Database.Database) => ({
  facts: db.prepare("SELECT * FROM facts ORDER BY rid").all(),
  sources: db.prepare("SELECT * FROM fact_sources ORDER BY fact_id, memory_id").all(),
});
const currentTexts = (db: Database.Database, spaceId: string) =>
  listFacts(db, { spaceId })
    .map((f) => f.text)
    .sort();

/** Owner: two duplicate pairs in `personal`; P2: the same statements in their own space, and one in the owner's. */
async function household(ctx: MemoContext) {
  setShare(ctx.db, "personal", "p2", "write");
  const [m1, m2, m3, m4] = await memories(ctx, "personal", [
    "User: I stopped eating meat this year.",
    "User: yes, I'm still a vegetarian.",
    "User: I've started cello lessons.",
    "User: cello practice again tonight.",
  ]);
  const [v1, v2, c1, c2] = await facts(ctx, "personal", [
    ["Is vegetarian", [m1!]],
    ["Is a vegetarian.", [m2!]],
    ["Plays the cello", [m3!]],
    ["plays the Cello", [m4!]],
  ]);
  const [p1] = await memories(ctx, "p2~personal", ["User: I am a vegetarian, like my sister."]);
  const [own] = await facts(ctx, "p2~personal", [["Is vegetarian", [p1!]]]);
  const { model } = await emb.info();
  const vector = await emb.embedDocuments(["Is vegetarian!"]);
  const shared = runAs({ personId: "p2", admin: false }, () =>
    insertFacts(ctx.db, "personal", [{ text: "Is vegetarian!", sources: [m2!], origin: "person" }], vector, model),
  );
  return { m1: m1!, m2: m2!, m3: m3!, m4: m4!, v1: v1!, v2: v2!, c1: c1!, c2: c2!, own: own!, shared: shared[0]! };
}

test("a scheduled run merges duplicate facts with no chat provider, never across people, and its undo restores every row", async () => {
  const ctx = await store();
  const h = await household(ctx);
  const before = snapshot(ctx.db);

  const run = await runConsolidateJob(ctx, { merge: null, trigger: "schedule" });
  assert.equal(run.status, "ok", "merging facts needs no provider");
  const res = run.result as { factPairs: number; factMerges: { keep: string; merged: string }[]; merges: unknown[] };
  assert.equal(res.merges.length, 0);
  assert.deepEqual(
    res.factMerges.map((m) => [m.keep, m.merged]),
    [
      [h.v1, h.v2],
      [h.c1, h.c2],
    ],
  );
  assert.deepEqual(currentTexts(ctx.db, "personal"), ["Is vegetarian", "Is vegetarian!", "Plays the cello"]);
  assert.equal(getFact(ctx.db, h.shared)!.supersededBy, null, "P2's fact in the owner's space is P2's: not merged");
  assert.equal(getFact(ctx.db, h.own)!.supersededBy, null, "P2's own space is not the owner's");
  assert.deepEqual(getFact(ctx.db, h.v1)!.sources, [h.m1, h.m2].sort());
  assert.deepEqual(checkInvariant(ctx.db), []);

  const undone = undoConsolidationRun(ctx, run.id);
  assert.deepEqual([undone.factsRestored, undone.factsMissing, undone.removed], [2, [], 0]);
  assert.deepEqual(snapshot(ctx.db), before, "the undo gives back every fact and source row exactly");
  assert.ok((getRun(ctx.db, run.id)!.result!.undone as { factsRestored: number }).factsRestored === 2);
  assert.throws(() => undoConsolidationRun(ctx, run.id), /already undone/);
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("a preview lists the duplicate facts and writes nothing; applying merges the picked ones, undoable", async () => {
  const ctx = await store();
  const h = await household(ctx);
  const before = snapshot(ctx.db);

  const preview = await previewConsolidation(ctx, { merge: null });
  const proposals = preview.result!.factProposals as { keep: { id: string; text: string }; merge: { text: string } }[];
  assert.deepEqual(
    proposals.map((p) => [p.keep.text, p.merge.text]),
    [
      ["Is vegetarian", "Is a vegetarian."],
      ["Plays the cello", "plays the Cello"],
    ],
  );
  assert.equal(preview.status, "ok");
  assert.deepEqual(snapshot(ctx.db), before, "a preview writes nothing");

  const applied = await applyConsolidationPreview(ctx, preview.id, [], [1]);
  const res = applied.result as { factMerges: { keep: string; merged: string }[] };
  assert.deepEqual(
    res.factMerges.map((m) => [m.keep, m.merged]),
    [[h.c1, h.c2]],
  );
  assert.equal(getFact(ctx.db, h.v2)!.supersededBy, null, "the proposal not picked is left alone");
  await assert.rejects(applyConsolidationPreview(ctx, preview.id), /already applied/);
  undoConsolidationRun(ctx, applied.id);
  assert.deepEqual(snapshot(ctx.db), before);
});

test("one run merging memories and the duplicate facts learned from them is undone to the state before", async () => {
  const ctx = await store();
  const [a, b] = await memories(ctx, "personal", [
    "My sister Anna lives in Berlin.",
    "My sister Anna lives in Berlin, Germany.",
  ]);
  const [f1, f2] = await facts(ctx, "personal", [
    ["Sister Anna lives in Berlin", [a!]],
    ["Sister Anna lives in Berlin.", [b!]],
  ]);
  const before = snapshot(ctx.db);
  const longer = async (x: string, y: string) => (y.length > x.length ? y : x);
  const run = await runConsolidateJob(ctx, { merge: longer, trigger: "schedule" });
  const res = run.result as { merges: { id: string }[]; factMerges: unknown[] };
  assert.equal(res.merges.length, 1, "the memories were merged");
  assert.equal(res.factMerges.length, 1, "and the facts");
  const merged = res.merges[0]!.id;
  assert.deepEqual(getFact(ctx.db, f1!)!.sources, [a!, b!, merged].sort(), "the merged memory backs the kept fact");
  assert.deepEqual(checkInvariant(ctx.db), []);

  undoConsolidationRun(ctx, run.id);
  assert.deepEqual(snapshot(ctx.db), before);
  assert.equal(getFact(ctx.db, f2!)!.supersededBy, null);
  assert.deepEqual(checkInvariant(ctx.db), []);
});
