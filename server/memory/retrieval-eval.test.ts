/**
 * Retrieval quality with the offline model (SPEC §1.5; NOTES-stack "Retrieval quality with the offline
 * model"): a slice of `npm run eval:retrieval` — the first 3 conversations of the generated test set
 * (213 memories, 81 questions) in a temp store, ingested through the service with the real embedding
 * server (USE-lite), searched after embedding with the USE-lite defaults of settings.ts.
 *
 * Hybrid must never do worse than its best single leg: the fused default's recall@10 is at least each
 * leg's under the same query settings, with no tolerance (on this slice fusion ties the vector leg on
 * recall and beats both legs on MRR; on the full set it is +0.05 over the vector leg). And a handful of
 * hand-checked paraphrases (no shared content word) must rank their gold memory above unrelated ones.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateDataset, sliceDataset, sharedStems, type EvalDataset, type EvalMemory, type EvalQuestion } from "../test/retrieval-eval/dataset";
import { HAND_CHECKED } from "../test/retrieval-eval/hand-checked";
import { TOPICS } from "../test/retrieval-eval/topics";
import {
  applyPatch,
  LEG_KEYWORD,
  LEG_VECTOR,
  openEvalStore,
  QueryVectorCache,
  rankedIds,
  runConfig,
  useLiteDefaults,
  type EvalStore,
} from "../test/retrieval-eval/harness";
import type { RetrievalSettings } from "./settings";

const SLICE = 3;
let ds: EvalDataset;
let store: EvalStore | undefined;
let cache: QueryVectorCache;
let defaults: RetrievalSettings;
let handQuestions: EvalQuestion[];

before(
  async () => {
    ds = sliceDataset(generateDataset(), SLICE);
    store = await openEvalStore(ds);
    defaults = useLiteDefaults(store.model);
    handQuestions = HAND_CHECKED.map((c, i) => {
      const [conv, topic] = c.gold.split(":") as [string, string];
      return {
        id: `hand-${i + 1}`,
        conv,
        space: `eval-${conv}`,
        text: c.question,
        context: [],
        gold: [c.gold],
        type: "paraphrase",
        topic,
        category: TOPICS.find((t) => t.id === topic)!.category,
        words: c.question.split(/\s+/).length,
        overlap: 0,
      } satisfies EvalQuestion;
    });
    cache = new QueryVectorCache(store.ctx);
    await cache.prepare([...ds.questions, ...handQuestions], [{ contextMessages: defaults.contextMessages, anchorQuery: defaults.anchorQuery }]);
  },
  { timeout: 180_000 },
);
after(async () => {
  await store?.close();
});

test("the slice: 3 conversations of the eval set, every gold memory stored once, the USE-lite model", () => {
  assert.equal(ds.conversations.length, SLICE);
  assert.ok(ds.questions.length >= 40, `only ${ds.questions.length} questions`);
  assert.equal(store!.model, "universal-sentence-encoder-lite");
  for (const q of ds.questions) for (const g of q.gold) assert.ok(store!.idOf.get(g), `gold ${g} of ${q.id} is stored`);
  const types = new Set(ds.questions.map((q) => q.type));
  assert.deepEqual([...types].sort(), ["followup", "keyword", "long", "paraphrase"]);
});

test("the fused default is at least as good as its best single leg (recall@10, and MRR)", (t) => {
  const query = { contextMessages: defaults.contextMessages, anchorQuery: defaults.anchorQuery, weights: { anchor: defaults.weights.anchor } };
  const fused = runConfig(store!, cache, ds.questions, defaults, { name: "default", group: "default" });
  const vector = runConfig(store!, cache, ds.questions, applyPatch(defaults, { ...query, ...LEG_VECTOR }), { name: "vector", group: "leg" });
  const keyword = runConfig(store!, cache, ds.questions, applyPatch(defaults, { ...query, ...LEG_KEYWORD }), { name: "keyword", group: "leg" });
  t.diagnostic(
    `n=${ds.questions.length} recall@10 fused ${fused.recall} vector ${vector.recall} keyword ${keyword.recall}; ` +
      `MRR fused ${fused.mrr} vector ${vector.mrr} keyword ${keyword.mrr}`,
  );
  assert.ok(fused.recall >= Math.max(vector.recall, keyword.recall), `fused ${fused.recall} < best leg ${Math.max(vector.recall, keyword.recall)}`);
  assert.ok(fused.mrr >= Math.max(vector.mrr, keyword.mrr), `fused MRR ${fused.mrr} < best leg ${Math.max(vector.mrr, keyword.mrr)}`);
  // Neither leg is trivially perfect on this set, so the comparison means something.
  assert.ok(vector.recall < 0.97 && keyword.recall < 0.97);
});

test("hand-checked paraphrases rank their gold memory above every unrelated memory", () => {
  const memory = new Map<string, EvalMemory>(ds.conversations.flatMap((c) => c.memories).map((m) => [m.key, m]));
  const byId = new Map<string, EvalMemory>([...store!.idOf].map(([key, id]) => [id, memory.get(key)!]));
  const vectorOnly = applyPatch(defaults, LEG_VECTOR);
  for (const [i, c] of HAND_CHECKED.entries()) {
    const gold: EvalMemory | undefined = memory.get(c.gold);
    assert.ok(gold, `${c.gold} exists`);
    const goldTopic = gold.topic;
    assert.ok(gold.text.startsWith(c.goldStartsWith), `${c.gold} is still the hand-checked exchange: ${gold.text.slice(0, 80)}`);
    assert.deepEqual(sharedStems(c.question, gold.text), [], `"${c.question}" shares no content word with its gold`);
    for (const [name, settings] of [["default", defaults], ["vector leg", vectorOnly]] as const) {
      const ranked: EvalMemory[] = rankedIds(store!, cache, handQuestions[i]!, settings, 10).map((id) => byId.get(id)!);
      const at = ranked.findIndex((m) => m.key === c.gold);
      assert.ok(at >= 0 && at < c.within, `${name}: "${c.question}" has ${c.gold} at ${at + 1}, want ≤ ${c.within} (${c.why})`);
      const unrelatedAbove: EvalMemory[] = ranked.slice(0, at).filter((m: EvalMemory) => m.topic !== goldTopic);
      assert.deepEqual(unrelatedAbove.map((m) => m.key), [], `${name}: unrelated memories outrank ${c.gold} for "${c.question}"`);
    }
  }
});
