/**
 * The eval harness with a GGUF embedding model (`npm run eval:retrieval -- --model FILE.gguf`): the real
 * llama.cpp path on a tiny nomic-bert written here (random weights: its vectors mean nothing, so no
 * figure is checked, only that the eval runs on it as it would on nomic-embed-text-v1.5).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { boundModel } from "../../memory/store";
import { defaultSettingsFor } from "../../memory/retrieval/settings";
import { confidenceModelFor } from "../../memory/retrieval/confidence";
import { TINY_NOMIC_FILE, writeTinyNomicGguf } from "../gguf/write-gguf";
import { generateLife } from "./life";
import { modelIdentity, openLifeStore, prepareQueries } from "./life-harness";
import { figures, runQuestions } from "./life-metrics";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-life-gguf-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the eval runs on a GGUF through llama.cpp: the model's own profile, its width, a cache per file", async () => {
  const a = path.join(dir, "a", TINY_NOMIC_FILE);
  const b = path.join(dir, "b", TINY_NOMIC_FILE);
  fs.mkdirSync(path.dirname(a));
  fs.mkdirSync(path.dirname(b));
  writeTinyNomicGguf(a, { seed: 7 });
  writeTinyNomicGguf(b, { seed: 8 });
  // Named alike, never sharing cached vectors.
  assert.equal(modelIdentity({ kind: "gguf", path: a, reason: "" }).model, "nomic-embed-text-v1.5-test-tiny");
  assert.notEqual(
    modelIdentity({ kind: "gguf", path: a, reason: "" }).cacheName,
    modelIdentity({ kind: "gguf", path: b, reason: "" }).cacheName,
  );

  const ds = generateLife({ fillers: 40 });
  ds.questions = ds.questions.filter((q) => q.half === "reporting").slice(0, 24);
  const cacheDir = path.join(dir, "cache");
  const open = (file: string) => openLifeStore(ds, { cacheDir, choice: { kind: "gguf", path: file, reason: "test" } });
  const store = await open(a);
  try {
    assert.equal(store.model, "nomic-embed-text-v1.5-test-tiny");
    assert.deepEqual(boundModel(store.db), { model: "nomic-embed-text-v1.5-test-tiny", dim: 64 });
    assert.equal(store.embedder.misses, ds.memories.length, "every passage embedded by llama.cpp");
    // nomic's profile (linear fusion over the scored union like every model, the anchor query, three
    // context messages) and its confidence model.
    const s = defaultSettingsFor(store.model);
    assert.equal(s.fusion, "linear");
    await prepareQueries(store, ds, ds.questions, [s]);
    const rows = await runQuestions(store, ds, ds.questions, s);
    assert.ok(rows.every((r) => r.ids.length > 0 && r.confidences.every((c) => c >= 0 && c <= 1)));
    assert.deepEqual(confidenceModelFor(store.model).similarityRange, [0.4, 0.8]);
    const e = figures(store, rows, s.minConfidence);
    assert.equal(e.answerable.n + e.unanswerable.n, ds.questions.length);
  } finally {
    await store.close();
  }
  // Rerun: the same file is served from the cache, the other file is embedded anew.
  const again = await open(a);
  assert.equal(again.embedder.misses, 0);
  await again.close();
  const other = await open(b);
  assert.equal(other.embedder.misses, ds.memories.length);
  await other.close();
});
