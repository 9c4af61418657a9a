/**
 * A slice of `npm run eval:retrieval` for the retrieval slice eval (server/memory/retrieval/retrieval-slice.eval.ts,
 * `npm run eval:retrieval-slice`) and its smoke in `npm test` (retrieval-slice.test.ts): the REPORTING half's
 * questions (none of which chose a default) against a shorter history of the same person, ingested through the
 * service with the real embedding server (USE-lite; embeddings cached in .cache/retrieval-eval), then searched
 * with the shipped USE-lite defaults. The checks are shared so the smoke runs the eval's code on less.
 */
import assert from "node:assert/strict";
import { defaultSettingsFor, type RetrievalSettings } from "../../memory/retrieval/settings";
import { generateLife, LIFE_TYPES, type LifeDataset, type LifeQuestion } from "./life";
import { openLifeStore, prepareQueries, searchLife, USE_LITE, type LifeStore } from "./life-harness";
import { type Evaluation, figures, runQuestions } from "./life-metrics";

export interface Slice {
  ds: LifeDataset;
  store: LifeStore;
  shipped: RetrievalSettings;
  legs: { vector: RetrievalSettings; keyword: RetrievalSettings };
}

/**
 * The slice: `fillers` everyday fillers; the reporting half's questions, or `perType` of each type; the memories
 * every question of the slice can be about (with `perType`: only those its questions' gold and stale name).
 */
export async function openSlice(opts: { fillers: number; perType?: number }): Promise<Slice> {
  const ds = generateLife({ fillers: opts.fillers });
  ds.questions = ds.questions.filter((q) => q.half === "reporting");
  if (opts.perType !== undefined) {
    const n = opts.perType;
    ds.questions = LIFE_TYPES.flatMap((t) => ds.questions.filter((q) => q.type === t).slice(0, n));
    const named = new Set(ds.questions.flatMap((q) => [...q.gold, ...(q.stale ? [q.stale] : [])]));
    ds.memories = ds.memories.filter((m) => named.has(m.key) || m.role === "filler");
  }
  const store = await openLifeStore(ds);
  const shipped = defaultSettingsFor(store.model);
  const legs = {
    vector: { ...shipped, weights: { ...shipped.weights, fts: 0 }, qualityFilter: false },
    keyword: { ...shipped, weights: { ...shipped.weights, vector: 0 }, qualityFilter: false },
  };
  await prepareQueries(store, ds, ds.questions, [shipped, legs.vector]);
  return { ds, store, shipped, legs };
}

/** One space, the reporting half's questions of every type, every gold stored once. */
export function assertSliceShape(s: Slice, minMemories: number): void {
  assert.equal(s.store.model, USE_LITE);
  assert.ok(s.ds.memories.length >= minMemories, `${s.ds.memories.length} memories`);
  const types = new Set(s.ds.questions.map((q) => q.type));
  for (const t of LIFE_TYPES) assert.ok(types.has(t), t);
  for (const q of s.ds.questions) for (const g of q.gold) assert.ok(s.store.idOf.get(g), `gold ${g} of ${q.id}`);
}

export interface FusionFigures {
  fused: Evaluation;
  vector: Evaluation;
  keyword: Evaluation;
}

export async function measureFusion(s: Slice): Promise<FusionFigures> {
  const run = async (settings: RetrievalSettings) =>
    figures(s.store, await runQuestions(s.store, s.ds, s.ds.questions, settings), s.shipped.minConfidence);
  return { fused: await run(s.shipped), vector: await run(s.legs.vector), keyword: await run(s.legs.keyword) };
}

export function fusionLine({ fused, vector: v, keyword: k }: FusionFigures): string {
  return (
    `n=${fused.answerable.n}+${fused.unanswerable.n} recall@10 fused ${fused.answerable.recall10} vector ${v.answerable.recall10} keyword ${k.answerable.recall10}; ` +
    `packed r@6 ${fused.answerable.packedRecall6} (unfiltered ${fused.answerable.recall6}), ${fused.answerable.packed} packed (${fused.answerable.packedOther} not gold); unanswerable packed ${fused.unanswerable.packed}`
  );
}

/**
 * Hybrid never does worse than its best single leg (recall@10, with no tolerance), and unanswerable turns get at
 * most `maxUnanswerablePacked` memories of 6 packed.
 */
export function assertFusion({ fused, vector: v, keyword: k }: FusionFigures, maxUnanswerablePacked: number): void {
  assert.ok(
    fused.answerable.recall10 >= v.answerable.recall10,
    `fused ${fused.answerable.recall10} < vector ${v.answerable.recall10}`,
  );
  assert.ok(
    fused.answerable.recall10 >= k.answerable.recall10,
    `fused ${fused.answerable.recall10} < keyword ${k.answerable.recall10}`,
  );
  assert.ok(
    fused.unanswerable.packed <= maxUnanswerablePacked,
    `unanswerable turns got ${fused.unanswerable.packed} memories packed`,
  );
}

/** The questions whose top 6 at k = 6 (the chat's) is not the first 6 at k = 10 (the eval's, Debug Search's). */
export async function topSixDiffers(s: Slice, questions: LifeQuestion[] = s.ds.questions): Promise<string[]> {
  const differ: string[] = [];
  for (const q of questions) {
    const six = (await searchLife(s.store, s.ds, q, s.shipped, 6)).results.map((r) => [r.id, r.scores.confidence]);
    const ten = (await searchLife(s.store, s.ds, q, s.shipped, 10)).results
      .slice(0, 6)
      .map((r) => [r.id, r.scores.confidence]);
    if (JSON.stringify(six) !== JSON.stringify(ten)) differ.push(q.text);
  }
  return differ;
}
