/**
 * Every declared stage records its mark (stages.ts): a stage that forgot its `mark` would charge its time to
 * the next one in `npm run bench`. A turn's recall runs on a real store with a TEST DOUBLE embedder.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { recallForPrompt } from "../../chat/turn-recall";
import { TestDimEmbedder, hashedVector } from "../../test/test-dim-embedder";
import { openTempStore } from "../../test/temp-store";
import { insertMemories } from "../store";
import { STAGES, StageTimer } from "./stages";

const embedder = new TestDimEmbedder("test-8d-stages");
const st = openTempStore({ model: embedder.model, dim: embedder.dim });
after(() => st.close());

test("a turn's recall marks every declared stage, in the stages' time", async () => {
  const texts = [
    "Garden plans: raised beds by the fence",
    "Bought tomato seeds for the garden",
    "My sister lives in Berlin",
  ];
  insertMemories(
    st.sqlite,
    texts.map((content, i) => ({ spaceId: "home", content, timestamp: `2024-09-1${i}T10:00:00.000Z` })),
    texts.map((t) => hashedVector(t, embedder.dim)),
    embedder.model,
  );
  const timer = new StageTimer();
  const t0 = performance.now();
  const r = await recallForPrompt(
    { db: st.sqlite, embedder },
    {
      space: "home",
      query: "What were my garden plans last week?",
      context: ["and the seeds?"],
      at: "2024-09-18T12:00:00.000Z",
    },
    { promote: false, timer },
  );
  const elapsed = performance.now() - t0;
  assert.equal(r.error, null);
  const missing = STAGES.filter((s) => !timer.marked.has(s));
  assert.deepEqual(missing, [], `stages without a mark (their time went to the next): ${missing.join(", ")}`);
  // The marks tile the recall: their sum is its time (what the bench reports per stage adds up).
  const sum = STAGES.reduce((a, s) => a + timer.ms[s], 0);
  assert.ok(sum <= elapsed + 1 && sum > 0, `${sum} ms marked of ${elapsed} ms`);
});
