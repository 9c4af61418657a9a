/**
 * Re-index on a model change (docs/architecture.md#models-and-providers), through the memory service as the app uses it: a store of the
 * 4-d test model "test-4d-a" whose embedder switches to "test-4d-b" (6-d, test doubles). Search answers
 * throughout (keyword-only with a notice until the swap), writes during the re-index are kept, the swap
 * is complete (live and soft-deleted vectors), the ANN index restarts for the new dimension.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { reindexDone, reindexStatus } from "./reindex-job";
import { listRuns } from "../../core/job-runner";
import { forget, restore } from "../lifecycle/forget";
import { search } from "../retrieval/search";
import { addMemories } from "../store/add";
import { activeModel } from "./model-check";
import type { MemoContext } from "../../core/context";
import { openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import { hashedVector, TEST_MODEL_A, TEST_MODEL_B, TestDimEmbedder } from "../../test/test-dim-embedder";
import { annFor, stopAnnIndex } from "./ann-registry";
import { beginReindex, pendingBatch, readReindexProgress, storeBatch } from "./reindex";
import {
  boundModel,
  checkInvariant,
  getMemory,
  purgeMemories,
  reindexTarget,
  updateMemoryContent,
  vectorTableDim,
} from "../store";
import { getMeta } from "../../core/meta";

const stores: TempStore[] = [];
after(() =>
  stores.forEach((s) => {
    stopAnnIndex(s.sqlite);
    s.close();
  }),
);

const TOPICS = [
  "garden tomatoes",
  "piano lessons",
  "tax return",
  "bicycle repair",
  "birthday party",
  "holiday in Lisbon",
  "dentist visit",
  "football match",
];

async function storeOfModelA(n: number): Promise<{ ctx: MemoContext; emb: TestDimEmbedder; ids: string[] }> {
  const s = openTempStore();
  stores.push(s);
  const emb = new TestDimEmbedder(TEST_MODEL_A);
  const ctx: MemoContext = { db: s.sqlite, embedder: emb };
  const texts = Array.from({ length: n }, (_, i) => `note ${i} about ${TOPICS[i % TOPICS.length]} number${i}`);
  const ids = (
    await addMemories(
      ctx,
      texts.map((text) => ({ text })),
    )
  ).map((x) => x[0]!);
  assert.equal(vectorTableDim(ctx.db), 4);
  return { ctx, emb, ids };
}

const trashDims = (ctx: MemoContext) =>
  (ctx.db.prepare("SELECT length(embedding) / 4 AS d FROM memory_vec_trash").all() as { d: number }[]).map((r) => r.d);

test("a model change re-embeds every memory in the background; search answers throughout; writes meanwhile are kept", async () => {
  const { ctx, emb, ids } = await storeOfModelA(100);
  // Some memories are soft-deleted: their parked (trash) vectors must be re-embedded too.
  forget(ctx, "number1"); // number1, number10..19
  assert.deepEqual(trashDims(ctx), Array(11).fill(4));
  const generation = Number(getMeta(ctx.db, "vec_generation"));
  await activeModel(ctx);
  await annFor(ctx.db)!.build();
  assert.equal(annFor(ctx.db)!.dim, 4);

  // The embedding server now serves another model; hold its answers to the re-index's batches so we can
  // look half-way (single texts, the writes below, are answered).
  emb.model = TEST_MODEL_B;
  emb.hold((texts) => texts.length > 1);
  const during = await search(ctx, { query: "piano lessons", k: 5 });
  assert.ok(during.results.length > 0, "search answers during the re-index");
  assert.ok(
    during.results.every((r) => r.matchType === "fts"),
    "keyword results only (no vector can be compared yet)",
  );
  assert.match(during.notice!, /re-indexed for test-4d-b/);
  assert.deepEqual(reindexTarget(ctx.db), { model: TEST_MODEL_B, dim: 6 });
  assert.deepEqual(boundModel(ctx.db), { model: TEST_MODEL_A, dim: 4 }, "the old vectors stay until the swap");
  const st = reindexStatus(ctx.db);
  assert.equal(st.active && st.runningHere, true);
  assert.deepEqual(
    [st.progress!.total, st.progress!.from, st.progress!.to],
    [100, { model: TEST_MODEL_A, dim: 4 }, { model: TEST_MODEL_B, dim: 6 }],
  );

  // Writes during the re-index: a new memory (new-model vector), an edit, a restore, a delete, a purge.
  const [[fresh]] = await addMemories(ctx, [{ text: "zebra crossing near the school" }]);
  updateMemoryContent(
    ctx.db,
    ids[2]!,
    "note 2 about tax return, now filed",
    hashedVector("note 2 about tax return, now filed", 6),
    TEST_MODEL_B,
  );
  restore(ctx, [ids[10]!]);
  forget(ctx, "number20");
  purgeMemories(ctx.db, [ids[30]!]);
  assert.deepEqual(checkInvariant(ctx.db), [], "consistent during the re-index");
  const zebra = await search(ctx, { query: "zebra crossing" });
  assert.equal(zebra.results[0]!.id, fresh, "a memory written during the re-index is found");
  // Deleted and restored during the re-index: its only vector is the new model's.
  assert.equal(forget(ctx, "zebra crossing").count, 1);
  assert.deepEqual(restore(ctx, [fresh!]).restored, [fresh]);
  assert.deepEqual(checkInvariant(ctx.db), []);

  // Let the re-index run; keep searching while it does.
  emb.release();
  let searches = 0;
  const finished = reindexDone(ctx.db)!;
  let over = false;
  void finished.then(() => (over = true));
  while (!over) {
    const r = await search(ctx, { query: "bicycle repair", k: 3 });
    assert.ok(r.results.length > 0);
    searches++;
    await new Promise((res) => setImmediate(res));
  }
  const run = await finished;
  assert.equal(run.status, "ok", run.error ?? "");
  assert.ok(searches > 0);

  // Swapped: the new dimension everywhere, nothing lost.
  assert.equal(vectorTableDim(ctx.db), 6);
  assert.deepEqual(boundModel(ctx.db), { model: TEST_MODEL_B, dim: 6 });
  assert.equal(reindexTarget(ctx.db), undefined);
  assert.ok(Number(getMeta(ctx.db, "vec_generation")) > generation);
  assert.equal(
    (ctx.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'memory_vec_next'").get() as { n: number }).n,
    0,
  );
  assert.deepEqual(checkInvariant(ctx.db), []);
  assert.deepEqual(rawCounts(ctx.db), { memories: 100, vec: 100 - 11 + 1 - 1 - 1 + 1, fts: 89, trash: 11 });
  assert.ok(
    trashDims(ctx).every((d) => d === 6),
    "soft-deleted memories have new-model vectors too",
  );
  assert.equal(
    (ctx.db.prepare("SELECT count(*) AS n FROM memories WHERE embedding_model <> ?").get(TEST_MODEL_B) as { n: number })
      .n,
    0,
  );
  const p = readReindexProgress(ctx.db)!;
  assert.deepEqual([p.status, p.done, p.total], ["done", 100, 100]);
  assert.equal(getMemory(ctx.db, ids[2]!)!.content, "note 2 about tax return, now filed");
  // Restoring a memory soft-deleted before the swap brings back its new-model vector.
  restore(ctx, [ids[11]!]);
  assert.deepEqual(checkInvariant(ctx.db), []);

  // Hybrid again: the vector leg is back, served by an index for 6 dimensions.
  await activeModel(ctx);
  assert.equal(annFor(ctx.db)!.dim, 6);
  await annFor(ctx.db)!.build();
  const afterSwap = await search(ctx, { query: getMemory(ctx.db, ids[5]!)!.content, k: 3 });
  assert.equal(afterSwap.notice, undefined);
  assert.equal(afterSwap.results.find((r) => r.id === ids[5])?.matchType, "hybrid", "found by both legs again");
  assert.equal(afterSwap.vectorSource, "ann");
  const fromRuns = listRuns(ctx.db, { job: "reindex" });
  assert.equal(fromRuns.length, 1);
  assert.equal(fromRuns[0]!.status, "ok");
  assert.equal(
    fromRuns[0]!.result!.embedded,
    100 - 1 - 1,
    "the 100 first memories but the edited and the purged one were embedded by the job",
  );
});

test("an interrupted re-index resumes where it stopped", async () => {
  const { ctx, emb } = await storeOfModelA(40);
  beginReindex(ctx.db, { model: TEST_MODEL_B, dim: 6 });
  // One batch done "before the crash".
  emb.model = TEST_MODEL_B;
  const first = pendingBatch(ctx.db, 0, 16);
  assert.equal(storeBatch(ctx.db, first, await emb.embedDocuments(first.map((r) => r.content))), 16);
  emb.documentCalls.length = 0;
  // "Restart": the re-index is found with what it had done; the next request resumes it.
  assert.equal(beginReindex(ctx.db, { model: TEST_MODEL_B, dim: 6 }).done, 16);
  emb.hold();
  await search(ctx, { query: "garden" });
  const resumed = reindexDone(ctx.db)!;
  emb.release();
  const run = await resumed;
  assert.equal(run.status, "ok");
  assert.equal(emb.documentCalls.flat().length, 24, "only the 24 memories left were embedded");
  assert.deepEqual(boundModel(ctx.db), { model: TEST_MODEL_B, dim: 6 });
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("going back to the store's model before the re-index completes cancels it; the old vectors serve again", async () => {
  const { ctx, emb } = await storeOfModelA(10);
  emb.model = TEST_MODEL_B;
  emb.hold();
  await search(ctx, { query: "piano" });
  assert.ok(reindexTarget(ctx.db));
  const pending = reindexDone(ctx.db)!;
  emb.model = TEST_MODEL_A;
  const back = await search(ctx, { query: "note 1 about piano lessons number1", k: 1 });
  assert.equal(back.notice, undefined);
  assert.equal(reindexTarget(ctx.db), undefined);
  assert.equal(readReindexProgress(ctx.db)!.status, "cancelled");
  emb.release();
  const run = await pending;
  assert.equal(run.status, "skipped", "a cancelled re-index is not a failure");
  assert.equal(vectorTableDim(ctx.db), 4);
  assert.deepEqual(boundModel(ctx.db), { model: TEST_MODEL_A, dim: 4 });
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("an empty store just adopts the new model (nothing to re-index)", async () => {
  const s = openTempStore();
  stores.push(s);
  const emb = new TestDimEmbedder(TEST_MODEL_A);
  const ctx: MemoContext = { db: s.sqlite, embedder: emb };
  await activeModel(ctx);
  emb.model = TEST_MODEL_B;
  await activeModel(ctx);
  assert.equal(reindexTarget(ctx.db), undefined);
  assert.equal(vectorTableDim(ctx.db), 6);
  assert.equal(reindexDone(ctx.db), null);
});
