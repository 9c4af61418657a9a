/**
 * A turn that searches added shared spaces embeds each query text once (embedOnce): the same dense text
 * is not sent to the embedder again for the next space. The embedder here is a TEST DOUBLE that counts.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Embedder } from "../core/context";
import { insertMemories } from "../memory/store";
import { hashedVector } from "../test/test-dim-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { embedOnce, recallForPrompt } from "./turn-recall";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

const MODEL = "test-8d-count";
const DIM = 8;

/** TEST DOUBLE: hashed bags of words, counting what it is asked to embed. */
class CountingEmbedder implements Embedder {
  texts: string[] = [];
  async info() {
    return { model: MODEL, dim: DIM };
  }
  async embedQueries(texts: string[]) {
    this.texts.push(...texts);
    return texts.map((t) => hashedVector(t, DIM));
  }
  async embedDocuments(texts: string[]) {
    return texts.map((t) => hashedVector(t, DIM));
  }
  async tokenize(text: string) {
    return text.split(/\s+/).map((_, i) => i);
  }
}

test("embedOnce: a text already embedded this turn is not embedded again; new texts go in one call", async () => {
  const inner = new CountingEmbedder();
  const e = embedOnce(inner);
  const [a1] = await e.embedQueries(["soup recipe"]);
  const [a2, b] = await e.embedQueries(["soup recipe", "bread"]);
  assert.deepEqual(inner.texts, ["soup recipe", "bread"]);
  assert.equal(a2, a1);
  assert.deepEqual([...b!], [...hashedVector("bread", DIM)]);
});

test("a turn with an added space embeds its query once and still reads both spaces", async () => {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  const texts = ["lentil soup needs cumin", "my lentil soup is too thin"];
  insertMemories(
    s.sqlite,
    texts.map((content, i) => ({ spaceId: i === 0 ? "recipes" : "personal", content })),
    texts.map((t) => hashedVector(t, DIM)),
    MODEL,
  );
  const embedder = new CountingEmbedder();
  const r = await recallForPrompt(
    { db: s.sqlite, embedder },
    { space: "personal", added: ["recipes"], query: "what goes into lentil soup", context: [] },
    { promote: false },
  );
  assert.deepEqual(embedder.texts, ["what goes into lentil soup"], "one embedding for two spaces");
  assert.equal(r.considered, 2, "a result from each space");
});
