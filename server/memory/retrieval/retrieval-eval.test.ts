/**
 * Retrieval quality with the offline model: a slice of `npm run eval:retrieval` — the REPORTING half's
 * questions (none of which chose a default) against a shorter history of the same person (every
 * exchange a question can be about, plus 250 everyday fillers, in one space), ingested through the
 * service with the real embedding server (USE-lite; embeddings cached in .cache/retrieval-eval), then
 * searched with the shipped USE-lite defaults.
 *
 * A behaviour suite (the headline eval is LoCoMo, docs/retrieval.md): hybrid must never do worse than
 * its best single leg (recall@10, with no tolerance), and unanswerable turns (general knowledge, code,
 * writing, people never mentioned) must get few memories packed (see the bound below).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateLife, type LifeDataset } from "../../test/retrieval-eval/life";
import {
  openLifeStore,
  prepareQueries,
  searchLife,
  USE_LITE,
  type LifeStore,
} from "../../test/retrieval-eval/life-harness";
import { figures, runQuestions } from "../../test/retrieval-eval/life-metrics";
import { defaultSettingsFor, type RetrievalSettings } from "./settings";

let ds: LifeDataset;
let store: LifeStore | undefined;
let shipped: RetrievalSettings;
const legs = () => ({
  vector: { ...shipped, weights: { ...shipped.weights, fts: 0 }, qualityFilter: false },
  keyword: { ...shipped, weights: { ...shipped.weights, vector: 0 }, qualityFilter: false },
});

before(
  async () => {
    ds = generateLife({ fillers: 250 });
    ds.questions = ds.questions.filter((q) => q.half === "reporting");
    store = await openLifeStore(ds);
    shipped = defaultSettingsFor(store.model);
    await prepareQueries(store, ds, ds.questions, [shipped, legs().vector]);
  },
  { timeout: 600_000 },
);
after(async () => {
  await store?.close();
});

test("the slice: one space, the reporting half's questions of every type, every gold stored once", () => {
  assert.equal(store!.model, USE_LITE);
  assert.ok(ds.memories.length >= 400, `${ds.memories.length} memories`);
  const types = new Set(ds.questions.map((q) => q.type));
  for (const t of [
    "single-hop",
    "multi-hop",
    "temporal",
    "update",
    "assistant-said",
    "preference",
    "inference",
    "unanswerable",
  ])
    assert.ok(types.has(t as never), t);
  for (const q of ds.questions) for (const g of q.gold) assert.ok(store!.idOf.get(g), `gold ${g} of ${q.id}`);
});

test("fused defaults ≥ each single leg (recall@10); unanswerable turns get ≤ 2 memories of 6 packed", async (t) => {
  const fused = figures(store!, await runQuestions(store!, ds, ds.questions, shipped), shipped.minConfidence);
  const v = figures(store!, await runQuestions(store!, ds, ds.questions, legs().vector), shipped.minConfidence);
  const k = figures(store!, await runQuestions(store!, ds, ds.questions, legs().keyword), shipped.minConfidence);
  t.diagnostic(
    `n=${fused.answerable.n}+${fused.unanswerable.n} recall@10 fused ${fused.answerable.recall10} vector ${v.answerable.recall10} keyword ${k.answerable.recall10}; ` +
      `packed r@6 ${fused.answerable.packedRecall6} (unfiltered ${fused.answerable.recall6}), ${fused.answerable.packed} packed (${fused.answerable.packedOther} not gold); unanswerable packed ${fused.unanswerable.packed}`,
  );
  assert.ok(
    fused.answerable.recall10 >= v.answerable.recall10,
    `fused ${fused.answerable.recall10} < vector ${v.answerable.recall10}`,
  );
  assert.ok(
    fused.answerable.recall10 >= k.answerable.recall10,
    `fused ${fused.answerable.recall10} < keyword ${k.answerable.recall10}`,
  );
  // A behaviour check, not a score to climb: the threshold keeps most of the prompt empty for turns no
  // memory answers. Measured here 1.55 with the confidence fitted on LoCoMo (previous defaults, no
  // threshold: 6.0); the bound is relaxed from 1.0, which the removed question-reading rules reached.
  assert.ok(fused.unanswerable.packed <= 2.0, `unanswerable turns got ${fused.unanswerable.packed} memories packed`);
  // Neither leg is trivially perfect, so the comparison means something.
  assert.ok(v.answerable.recall10 < 0.97 && k.answerable.recall10 < 0.97);
});

test("the chat's top 6 (k = 6) is the eval's and Debug Search's (k = 10): one ranking, so the figures above are the chat's", async () => {
  const differ: string[] = [];
  for (const q of ds.questions) {
    const six = (await searchLife(store!, ds, q, shipped, 6)).results.map((r) => [r.id, r.scores.confidence]);
    const ten = (await searchLife(store!, ds, q, shipped, 10)).results
      .slice(0, 6)
      .map((r) => [r.id, r.scores.confidence]);
    if (JSON.stringify(six) !== JSON.stringify(ten)) differ.push(q.text);
  }
  assert.deepEqual(differ, [], `${differ.length} of ${ds.questions.length} turns rank another top 6 at k = 6`);
});
