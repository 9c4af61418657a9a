import assert from "node:assert/strict";
import { test } from "node:test";
import type { LifeQuestion } from "./life";
import type { LifeStore } from "./life-harness";
import { figures, type PerQuestion } from "./life-metrics";

// figures() reads only the store's key → id map; the rows below are hand-made results.
const store = { idOf: new Map(["g1", "g2", "x1", "x2", "x3"].map((k) => [k, `id-${k}`])) } as unknown as LifeStore;
const question = (id: string, gold: string[], type: LifeQuestion["type"]): LifeQuestion => ({
  id,
  half: "reporting",
  type,
  text: id,
  context: [],
  gold,
  at: "2024-12-01T12:00:00.000Z",
});
const row = (q: LifeQuestion, keys: string[], confidences: number[]): PerQuestion => ({
  q,
  ids: keys.map((k) => `id-${k}`),
  confidences,
});

test("packed figures: what reaches the prompt at the minimum confidence, and how much of it is not the gold", () => {
  const rows = [
    // Gold g1 first, g2 below the threshold: 3 packed, 2 of them not gold; packed recall 1 of 2.
    row(question("a", ["g1", "g2"], "multi-hop"), ["g1", "x1", "x2", "g2"], [0.9, 0.6, 0.5, 0.2]),
    // Gold second: 1 packed, the gold itself.
    row(question("b", ["g1"], "single-hop"), ["x3", "g1"], [0.29, 0.8]),
    // Nothing answers: 2 packed, both noise.
    row(question("c", [], "unanswerable"), ["x1", "x2", "x3"], [0.5, 0.4, 0.1]),
  ];
  const e = figures(store, rows, 0.3);
  assert.equal(e.answerable.n, 2);
  assert.equal(e.answerable.packed, 2);
  assert.equal(e.answerable.packedOther, 1);
  assert.equal(e.answerable.packedRecall6, 0.75);
  assert.equal(e.answerable.recall6, 1);
  assert.equal(e.unanswerable.packed, 2);
  assert.equal(e.unanswerable.packedOther, 2, "on a turn nothing answers, everything packed is noise");
  assert.equal(e.perType["multi-hop"]!.packedOther, 2);
  // A threshold above every confidence packs nothing.
  const none = figures(store, rows, 0.95);
  assert.equal(none.answerable.packed, 0);
  assert.equal(none.answerable.packedOther, 0);
  assert.equal(none.answerable.packedRecall6, 0);
});
