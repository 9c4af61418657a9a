import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openTempStore } from "../../test/temp-store";
import { buildQueries } from "./query-builder";
import { searchWithVectors } from "./retrieve";
import { unitCosine } from "./cosine";
import { fuseUnion, minMax } from "./union-fusion";
import { keywordSearchScored } from "./keyword-search";
import { defaultSettingsFor } from "./settings";
import { insertMemories, storedVectors } from "../store";

const s = openTempStore({ model: "universal-sentence-encoder-lite", dim: 8 });
after(() => s.close());
const unit = (xs: number[]) => {
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
};

test("min–max over the union: best 1, worst 0; a flat signal cannot rank", () => {
  assert.deepEqual(minMax([2, 4, 3]), [0, 1, 0.5]);
  assert.deepEqual(minMax([0.3, 0.3]), [1, 1]);
  assert.deepEqual(minMax([]), []);
});

test("fusion: each signal normalised over the union, weighted and summed; a missing keyword score is 0 there", () => {
  const found = new Map([
    [1, { vectorRank: 1, ftsRank: null }],
    [2, { vectorRank: null, ftsRank: 1 }],
    [3, { vectorRank: 2, ftsRank: 2 }],
  ]);
  const fused = fuseUnion({
    found,
    signals: [
      {
        kind: "vector",
        weight: 1,
        scores: new Map([
          [1, 0.6],
          [2, 0.5],
          [3, 0.2],
        ]),
      },
      {
        kind: "fts",
        weight: 1,
        scores: new Map([
          [2, 8],
          [3, 4],
        ]),
      },
    ],
    similarity: new Map([
      [1, 0.6],
      [2, 0.5],
      [3, 0.2],
    ]),
    keyword: new Map([
      [2, 8],
      [3, 4],
    ]),
    method: "linear",
    rrfK: 60,
  });
  const by = new Map(fused.map((c) => [c.rid, c]));
  // rid 2: vector (0.5 − 0.2) / 0.4 = 0.75, keyword 1 → 1.75, above rid 1 (1 + 0) and rid 3 (0 + 0.5).
  assert.deepEqual(
    fused.map((c) => c.rid),
    [2, 1, 3],
  );
  assert.ok(Math.abs(by.get(2)!.fused - 1.75) < 1e-9);
  assert.equal(by.get(1)!.bm25, null);
  assert.equal(by.get(2)!.bm25, -8);
  assert.equal(by.get(2)!.similarity, 0.5);
  assert.deepEqual([by.get(1)!.matchType, by.get(2)!.matchType, by.get(3)!.matchType], ["vector", "fts", "hybrid"]);
});

test("a keyword-only candidate gets its true cosine from its stored vector, and bm25 is read for the union only", () => {
  const near = unit([1, 0.1, 0, 0, 0, 0, 0, 0]);
  // 30 memories nearer the query than the one with the rare word, so the vector leg's pool of 20 misses it.
  const fillers = Array.from({ length: 30 }, (_, i) => unit([1, 0.05 + i * 0.001, 0.01, 0, 0, 0, 0, 0]));
  const rare = unit([0.2, 0, 1, 0, 0, 0, 0, 0]);
  const ids = insertMemories(
    s.sqlite,
    [
      ...fillers.map((_, i) => ({ spaceId: "u", content: `ordinary filler note number ${i}` })),
      { spaceId: "u", content: "the zeppelin tickets are in the drawer" },
    ],
    [...fillers, rare],
    "universal-sentence-encoder-lite",
  );
  const settings = {
    ...defaultSettingsFor("universal-sentence-encoder-lite"),
    neighbourWeight: 0,
    denseMaxDocFraction: 1,
  };
  const query = "zeppelin";
  const r = searchWithVectors(
    s.sqlite,
    { query, spaceId: "u", k: 10, pool: 20 },
    settings,
    buildQueries(query, [], { contextMessages: 0, anchorQuery: false }),
    [near],
  );
  const hit = r.results.find((m) => m.id === ids.at(-1));
  assert.ok(hit, "found by the keyword leg");
  assert.equal(hit!.scores.vectorRank, null, "the vector leg's pool did not hold it");
  assert.ok(Math.abs(hit!.scores.similarity! - unitCosine(near, rare)) < 1e-6, "its cosine is the true one, not 0");
  // The direct reads.
  const rids = (
    s.sqlite.prepare("SELECT rid FROM memories WHERE space_id = 'u' ORDER BY rid").all() as { rid: number }[]
  ).map((x) => x.rid);
  const vecs = storedVectors(s.sqlite, rids);
  assert.equal(vecs.size, rids.length);
  assert.ok(Math.abs(unitCosine(vecs.get(rids.at(-1)!)!, rare) - 1) < 1e-6);
  // The keyword leg's one statement scores every match: only the memory that holds the word, above 0.
  const bm = keywordSearchScored(s.sqlite, "u", "zeppelin", 20).scores;
  assert.ok(
    rids.slice(0, 5).every((rid) => !bm.has(rid)),
    "a memory without the word is not scored",
  );
  assert.equal(bm.size, 1);
  assert.ok(bm.get(rids.at(-1)!)! > 0);
});
