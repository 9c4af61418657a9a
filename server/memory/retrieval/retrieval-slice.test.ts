/**
 * The retrieval slice's smoke (issue 56): the eval's checks (retrieval-slice.eval.ts, `npm run
 * eval:retrieval-slice`; server/test/retrieval-eval/slice.ts) on two reporting questions of each type against
 * the memories they name and 30 fillers, through the same path — the service's ingest with the real embedding
 * server (USE-lite), the shipped defaults' search — so `npm test` checks in seconds that hybrid is no worse than
 * either leg, unanswerable turns stay near empty, and the chat's top 6 is Debug Search's. Recall figures are
 * the eval's.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
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
    slice = await openSlice({ fillers: 30, perType: 2 });
  },
  { timeout: 120_000 },
);
after(async () => {
  await slice?.store.close();
});

test("the smoke's slice: the reporting half's questions of every type, every gold stored once", () => {
  assertSliceShape(slice!, 40);
  assert.equal(slice!.ds.questions.length, 16);
});

test("fused defaults ≥ each single leg (recall@10); unanswerable turns get ≤ 2 memories of 6 packed", async (t) => {
  const f = await measureFusion(slice!);
  t.diagnostic(fusionLine(f));
  assertFusion(f, 2.0);
});

test("the chat's top 6 (k = 6) is Debug Search's (k = 10)", async () => {
  const differ = await topSixDiffers(slice!);
  assert.deepEqual(differ, [], `${differ.length} of ${slice!.ds.questions.length} turns rank another top 6 at k = 6`);
});
