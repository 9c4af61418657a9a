/**
 * Facts across an embedding-model change: the re-index re-embeds them right after its swap (live and
 * forgotten ones), their vector leg never compares a query with another model's vectors meanwhile, and a
 * store left with facts of another model (a crash after the swap) catches up in the background.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { MemoContext } from "../../core/context";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { hashedVector, TEST_MODEL_A, TEST_MODEL_B, TestDimEmbedder } from "../../test/test-dim-embedder";
import { factCatchUpDone, reindexDone } from "../index/reindex-job";
import { activeModel } from "../index/model-check";
import { stopAnnIndex } from "../index/ann-registry";
import { addMemories } from "../store/add";
import { checkInvariant, softDeleteMemories } from "../store";
import { getFact, insertFacts, searchFacts } from "./store";
import { staleFactCount } from "./reembed";

const stores: TempStore[] = [];
after(() =>
  stores.forEach((s) => {
    stopAnnIndex(s.sqlite);
    s.close();
  }),
);

async function storeWithFacts(): Promise<{ ctx: MemoContext; emb: TestDimEmbedder; live: string; gone: string }> {
  const s = openTempStore();
  stores.push(s);
  const emb = new TestDimEmbedder(TEST_MODEL_A);
  const ctx: MemoContext = { db: s.sqlite, embedder: emb };
  const [[m1], [m2]] = await addMemories(ctx, [
    { text: "User: I keep bees on the roof" },
    { text: "User: I sold the boat" },
  ]);
  const texts = ["Keeps bees on the roof", "Owns a small sailing boat"];
  const [live, gone] = insertFacts(
    ctx.db,
    "personal",
    [
      { text: texts[0]!, sources: [m1!], origin: "learned" },
      { text: texts[1]!, sources: [m2!], origin: "learned" },
    ],
    await emb.embedDocuments(texts),
    TEST_MODEL_A,
  );
  softDeleteMemories(ctx.db, [m2!]); // a forgotten fact: its parked vector must follow the model too
  return { ctx, emb, live: live!, gone: gone! };
}

const dims = (ctx: MemoContext, table: string) =>
  (ctx.db.prepare(`SELECT length(embedding) / 4 AS d FROM ${table}`).all() as { d: number }[]).map((r) => r.d);

test("a re-index re-embeds the facts (live and forgotten) after its swap; another model's vectors are never compared", async () => {
  const { ctx, emb, live, gone } = await storeWithFacts();
  const query = (model: string) => ({
    text: "zzz",
    vector: hashedVector("bees roof", model === TEST_MODEL_B ? 6 : 4),
    model,
  });
  assert.equal(searchFacts(ctx.db, "personal", query(TEST_MODEL_A), 5)[0]?.fact.id, live);
  emb.model = TEST_MODEL_B;
  await activeModel(ctx); // starts the re-index
  // The query is the new model's now: the facts' old vectors are skipped, not compared.
  assert.deepEqual(searchFacts(ctx.db, "personal", query(TEST_MODEL_B), 5), []);
  const rec = await reindexDone(ctx.db);
  assert.equal(rec?.status, "ok", rec?.error ?? "");
  assert.equal((rec!.result as { facts: number }).facts, 2);
  assert.equal(getFact(ctx.db, live)!.embeddingModel, TEST_MODEL_B);
  assert.equal(getFact(ctx.db, gone, { forgotten: true })!.embeddingModel, TEST_MODEL_B);
  assert.deepEqual(dims(ctx, "fact_vectors"), [6]);
  assert.deepEqual(dims(ctx, "fact_vector_trash"), [6]);
  const hit = searchFacts(ctx.db, "personal", query(TEST_MODEL_B), 5)[0]!;
  assert.equal(hit.fact.id, live);
  assert.ok(hit.cosine! > 0.5, String(hit.cosine));
  assert.equal(staleFactCount(ctx.db, TEST_MODEL_B), 0);
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("facts left on another model than the bound one are re-embedded in the background", async () => {
  const { ctx, live } = await storeWithFacts();
  await activeModel(ctx);
  // As if the process died between a re-index's swap and its fact re-embed.
  ctx.db.prepare("UPDATE facts SET embedding_model = 'an-old-model'").run();
  assert.equal(staleFactCount(ctx.db, TEST_MODEL_A), 2);
  // The store's model check (every request) notices and catches up in the background.
  await activeModel(ctx);
  assert.equal(await factCatchUpDone(ctx.db), 2);
  assert.equal(staleFactCount(ctx.db, TEST_MODEL_A), 0);
  assert.equal(getFact(ctx.db, live)!.embeddingModel, TEST_MODEL_A);
  assert.deepEqual(checkInvariant(ctx.db), []);
});
