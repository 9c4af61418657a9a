/**
 * A slice of LoCoMo's reporting half (conv-49: 260 exchanges, its questions of categories 1–4) in the
 * unit suite: hybrid recall@10 must stay at or above each leg alone, and 60 everyday prompts must get
 * ≤ 0.5 memories of 6 packed on average. Reads ../shared/eval-data/locomo10.json next to the checkout
 * (the data is never in the repository) and skips with a message when it is absent. Real embedding
 * model (USE-lite) behind the eval's cache (.cache/retrieval-eval): ~1 minute the first time.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { packable } from "../../memory/retrieval/retrieve";
import { EVERYDAY_PROMPTS } from "./everyday-prompts";
import { ask, openLocomoStore, rankedTurns, spaceOf, useSettings, type LocomoStore } from "./harness";
import { type Conversation, DEFAULT_LOCOMO_PATH, loadLocomo, recallAt } from "./locomo";

const SLICE = "conv-49";
const data = loadLocomo(DEFAULT_LOCOMO_PATH);
const skip = data ? false : `LoCoMo not found at ${DEFAULT_LOCOMO_PATH} (see ../shared/eval-data/README.md): skipped`;
let conv: Conversation;
let store: LocomoStore | undefined;

before(
  async () => {
    if (!data) return;
    conv = data.find((c) => c.id === SLICE)!;
    store = await openLocomoStore([conv]);
  },
  { timeout: 600_000 },
);
after(async () => {
  await store?.close();
});

async function recall10(patch: Parameters<typeof useSettings>[1]): Promise<number> {
  useSettings(store!, patch);
  let sum = 0;
  for (const q of conv.questions)
    sum += recallAt(q.evidence, rankedTurns(store!, await ask(store!, spaceOf(conv), q, conv.lastDate)), 10);
  return sum / conv.questions.length;
}

test("LoCoMo slice: fused recall@10 ≥ BM25 alone and ≥ the dense leg alone", { skip, timeout: 600_000 }, async (t) => {
  const fused = await recall10({});
  const bm25 = await recall10({ weights: { vector: 0 } });
  const dense = await recall10({ weights: { fts: 0 } });
  t.diagnostic(`${SLICE}: ${conv.questions.length} questions, recall@10 fused ${fused} bm25 ${bm25} dense ${dense}`);
  assert.ok(fused >= bm25, `fused ${fused} < bm25 ${bm25}`);
  assert.ok(fused >= dense, `fused ${fused} < dense ${dense}`);
  assert.ok(bm25 < 0.99 && dense < 0.99, "neither leg is trivially perfect");
});

test("LoCoMo slice: everyday prompts get ≤ 0.5 memories of 6 packed", { skip, timeout: 600_000 }, async (t) => {
  useSettings(store!, {});
  let packed = 0;
  for (const p of EVERYDAY_PROMPTS) {
    const r = await ask(store!, spaceOf(conv), { question: p, category: 0, evidence: [] }, conv.lastDate);
    packed += packable(r.results, r.settings.minConfidence).slice(0, r.settings.topN).length;
  }
  const mean = packed / EVERYDAY_PROMPTS.length;
  t.diagnostic(`${EVERYDAY_PROMPTS.length} everyday prompts in ${SLICE}: ${mean} memories packed on average`);
  assert.equal(EVERYDAY_PROMPTS.length, 60);
  assert.ok(mean <= 0.5, `${mean} memories of 6 packed`);
});
