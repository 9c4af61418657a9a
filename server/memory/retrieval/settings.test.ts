import assert from "node:assert/strict";
import { after, test } from "node:test";
import { ZodError } from "zod";
import { openTempStore } from "../../test/temp-store";
import { defaultSettingsFor, loadRetrievalSettings, retrievalSettingsSchema, saveRetrievalSettings } from "./settings";

const NOMIC = "nomic-embed-text-v1.5.Q8_0";
const USE = "universal-sentence-encoder-lite";
const s = openTempStore();
after(() => s.close());

test("nomic defaults: linear fusion over the scored union (RRF a setting), equal weights, min_similarity 0.7, top 6, anchor on", () => {
  const d = defaultSettingsFor(NOMIC);
  assert.equal(d.fusion, "linear");
  assert.equal(d.rrfK, 60);
  assert.deepEqual(d.weights, { vector: 1, fts: 1, anchor: 1, factVector: 0.5, factFts: 0.5 });
  assert.equal(d.minSimilarity, 0.7);
  assert.equal(d.topN, 6);
  assert.equal(d.contextMessages, 3);
  assert.equal(d.anchorQuery, true);
  assert.equal(d.qualityFilter, true);
});

test("USE-lite defaults (chosen on LoCoMo's tuning half): linear, 1 context message, no anchor, dense query cleaned, confidence threshold", () => {
  const d = defaultSettingsFor(USE);
  assert.equal(d.fusion, "linear");
  assert.deepEqual(d.weights, { vector: 1, fts: 1, anchor: 0.5, factVector: 0.5, factFts: 0.5 });
  assert.equal(d.contextMessages, 1);
  assert.equal(d.anchorQuery, false);
  assert.equal(d.qualityFilter, false);
  assert.equal(d.denseMaxDocFraction, 0.3);
  assert.equal(d.topN, 6);
  assert.ok(d.minConfidence > 0 && d.minConfidence < 1);
});

test("the model-independent techniques and the calibrated threshold are shared by every model", () => {
  const n = defaultSettingsFor(NOMIC);
  const u = defaultSettingsFor(USE);
  for (const k of ["dateBoost", "neighbourWeight", "minConfidence", "packSpeakers"] as const)
    assert.equal(n[k], u[k], k);
  assert.equal(n.denseMaxDocFraction, 1, "embedding-specific: off where nothing can be measured");
});

test("every default is valid by the schema, and defaults are fresh copies", () => {
  for (const m of [NOMIC, USE, "some-other-model"]) retrievalSettingsSchema.parse(defaultSettingsFor(m));
  const a = defaultSettingsFor(USE);
  a.weights.vector = 9;
  assert.equal(defaultSettingsFor(USE).weights.vector, 1);
});

test("saved settings overlay the model's defaults, per model, weights merged", () => {
  const saved = saveRetrievalSettings(s.sqlite, USE, { topN: 10, weights: { vector: 0.3 } as never });
  assert.equal(saved.topN, 10);
  assert.deepEqual(saved.weights, { vector: 0.3, fts: 1, anchor: 0.5, factVector: 0.5, factFts: 0.5 });
  const loaded = loadRetrievalSettings(s.sqlite, USE);
  assert.deepEqual(loaded, saved);
  assert.equal(loaded.fusion, "linear");
  // Another model is untouched.
  assert.deepEqual(loadRetrievalSettings(s.sqlite, NOMIC), defaultSettingsFor(NOMIC));
  // A second save patches on top of the first.
  assert.equal(saveRetrievalSettings(s.sqlite, USE, { fusion: "rrf" }).topN, 10);
});

test("invalid values are refused and nothing is saved", () => {
  const before = loadRetrievalSettings(s.sqlite, NOMIC);
  assert.throws(() => saveRetrievalSettings(s.sqlite, NOMIC, { topN: 21 }), ZodError);
  assert.throws(() => saveRetrievalSettings(s.sqlite, NOMIC, { topN: 0 }), ZodError);
  assert.throws(() => saveRetrievalSettings(s.sqlite, NOMIC, { contextMessages: 4 }), ZodError);
  assert.throws(() => saveRetrievalSettings(s.sqlite, NOMIC, { fusion: "max" as never }), ZodError);
  assert.deepEqual(loadRetrievalSettings(s.sqlite, NOMIC), before);
});

test("a corrupt saved row falls back to the defaults", () => {
  s.sqlite.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)").run(`retrieval:${NOMIC}`, "{not json");
  assert.deepEqual(loadRetrievalSettings(s.sqlite, NOMIC), defaultSettingsFor(NOMIC));
  s.sqlite
    .prepare("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)")
    .run(`retrieval:${NOMIC}`, JSON.stringify({ topN: 999 }));
  assert.deepEqual(loadRetrievalSettings(s.sqlite, NOMIC), defaultSettingsFor(NOMIC));
});
