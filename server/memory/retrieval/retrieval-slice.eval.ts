/**
 * Retrieval quality with the offline model, an eval (`npm run eval:retrieval-slice`, docs/testing.md#evals-quality-measured-when-its-subject-changes): a
 * slice of `npm run eval:retrieval` — the REPORTING half's questions (none of which chose a default) against a
 * shorter history of the same person (every exchange a question can be about, plus 250 everyday fillers, in one
 * space), ingested through the service with the real embedding server (USE-lite; embeddings cached in
 * .cache/retrieval-eval), then searched with the shipped USE-lite defaults (server/test/retrieval-eval/slice.ts).
 * `npm test` runs the same checks on a few questions of each type (retrieval-slice.test.ts).
 *
 * Hybrid must never do worse than its best single leg (recall@10, with no tolerance), and unanswerable turns
 * (general knowledge, code, writing, people never mentioned) must get few memories packed (see the bound below).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { recordEval } from "../../test/eval-report";
import {
  assertFusion,
  assertSliceShape,
  fusionLine,
  measureFusion,
  openSlice,
  type Slice,
  topSixDiffers,
} from "../../test/retrieval-eval/slice";

let slice: Slice | undefined;

before(
  async () => {
    slice = await openSlice({ fillers: 250 });
  },
  { timeout: 600_000 },
);
after(async () => {
  await slice?.store.close();
});

test("the slice: one space, the reporting half's questions of every type, every gold stored once", () => {
  assertSliceShape(slice!, 400);
});

test("fused defaults ≥ each single leg (recall@10); unanswerable turns get ≤ 2 memories of 6 packed", async (t) => {
  const f = await measureFusion(slice!);
  t.diagnostic(fusionLine(f));
  // A behaviour check, not a score to climb: the threshold keeps most of the prompt empty for turns no
  // memory answers. Measured here 1.69 with the confidence fitted on LoCoMo (previous defaults, no
  // threshold: 6.0); the bound is relaxed from 1.0, which the removed question-reading rules reached.
  const maxUnanswerablePacked = 2.0;
  recordEval({
    run: "retrieval slice, shipped USE-lite defaults",
    figures: {
      questions: slice!.ds.questions.length,
      memories: slice!.ds.memories.length,
      fusedRecall10: f.fused.answerable.recall10,
      vectorRecall10: f.vector.answerable.recall10,
      keywordRecall10: f.keyword.answerable.recall10,
      fusedMinusVector: round4(f.fused.answerable.recall10 - f.vector.answerable.recall10),
      fusedMinusKeyword: round4(f.fused.answerable.recall10 - f.keyword.answerable.recall10),
      packedRecall6: f.fused.answerable.packedRecall6,
      unanswerablePacked: f.fused.unanswerable.packed,
      fused: f.fused,
    },
    atLeast: { fusedMinusVector: 0, fusedMinusKeyword: 0 },
    atMost: { unanswerablePacked: maxUnanswerablePacked, vectorRecall10: 0.97, keywordRecall10: 0.97 },
  });
  assertFusion(f, maxUnanswerablePacked);
  // Neither leg is trivially perfect, so the comparison means something.
  assert.ok(f.vector.answerable.recall10 < 0.97 && f.keyword.answerable.recall10 < 0.97);
});

test("the chat's top 6 (k = 6) is the eval's and Debug Search's (k = 10): one ranking, so the figures above are the chat's", async () => {
  const differ = await topSixDiffers(slice!);
  assert.deepEqual(differ, [], `${differ.length} of ${slice!.ds.questions.length} turns rank another top 6 at k = 6`);
});

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
