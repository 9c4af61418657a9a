import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedUseLite } from "../test/in-process-embedder";
import { englishText } from "../test/english-text";
import { USE_LITE_MODEL_ID } from "./engines/use-lite";
import { tokenCounterFor } from "./token-count";

test("USE-lite tokens are counted by the model's own tokenizer, as the embedding worker counts them", async () => {
  const engine = await sharedUseLite();
  const viaServer: string[] = [];
  const counter = await tokenCounterFor(USE_LITE_MODEL_ID, async (t) => {
    viaServer.push(t);
    return [];
  });
  const texts = [...englishText(6_000, "token-count").split("\n\n"), "naïve café — 東京 🙂", "x"];
  let total = 0;
  for (const t of texts) {
    const n = await counter.count(t);
    assert.equal(n, (await engine.tokenize(t)).length, `count of ${JSON.stringify(t.slice(0, 40))}`);
    total += n;
  }
  assert.ok(total > texts.join(" ").split(/\s+/).length * 0.8, `a plausible count for English (${total} tokens)`);
  assert.deepEqual(viaServer, [], "USE-lite needs no server round trip");
  await engine.close();
});

test("other models are counted by the embedding server's /tokenize", async () => {
  const counter = await tokenCounterFor("nomic-embed-text-v1.5.Q8_0", async (t) => t.split(" ").map((_, i) => i));
  assert.equal(await counter.count("three small words"), 3);
  assert.match(counter.source, /tokenize/);
});
