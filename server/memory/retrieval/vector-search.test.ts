import assert from "node:assert/strict";
import { after, test } from "node:test";
import { axisVector, openTempStore } from "../../test/temp-store";
import { insertMemories, softDeleteMemories } from "../store";
import { vectorSearchWithSource } from "./vector-search";

const vectorSearch = (...a: Parameters<typeof vectorSearchWithSource>) => vectorSearchWithSource(...a).hits;

const DIM = 4;
const s = openTempStore({ model: "test-model", dim: DIM });
after(() => s.close());

/** Unit vector at angle θ in the plane of axes 0 and 1: cosine with axis 0 is cos θ. */
const angle = (theta: number) => {
  const v = new Float32Array(DIM);
  v[0] = Math.cos(theta);
  v[1] = Math.sin(theta);
  return v;
};

const ids = insertMemories(
  s.sqlite,
  [
    { spaceId: "personal", content: "near" }, // rid 1, cos 1
    { spaceId: "personal", content: "mid" }, // rid 2, cos 0.5
    { spaceId: "personal", content: "far" }, // rid 3, cos 0
    { spaceId: "work", content: "other space, identical vector" }, // rid 4
  ],
  [angle(0), angle(Math.PI / 3), angle(Math.PI / 2), angle(0)],
  "test-model",
);

test("exact cosine KNN: best first, similarity = 1 − cosine distance", () => {
  const hits = vectorSearch(s.sqlite, "personal", axisVector(DIM, 0), 10);
  assert.deepEqual(
    hits.map((h) => h.rid),
    [1, 2, 3],
  );
  const expected = [1, 0.5, 0];
  hits.forEach((h, i) => assert.ok(Math.abs(h.similarity - expected[i]!) < 1e-6, `rid ${h.rid}: ${h.similarity}`));
});

test("k limits the result; k ≤ 0 still asks for one", () => {
  assert.deepEqual(
    vectorSearch(s.sqlite, "personal", axisVector(DIM, 0), 2).map((h) => h.rid),
    [1, 2],
  );
  assert.deepEqual(
    vectorSearch(s.sqlite, "personal", axisVector(DIM, 0), 0).map((h) => h.rid),
    [1],
  );
});

test("never crosses spaces", () => {
  assert.deepEqual(
    vectorSearch(s.sqlite, "work", axisVector(DIM, 0), 10).map((h) => h.rid),
    [4],
  );
  assert.deepEqual(vectorSearch(s.sqlite, "unknown", axisVector(DIM, 0), 10), []);
});

test("soft-deleted memories leave the vector index", () => {
  softDeleteMemories(s.sqlite, [ids[0]!]);
  assert.deepEqual(
    vectorSearch(s.sqlite, "personal", axisVector(DIM, 0), 10).map((h) => h.rid),
    [2, 3],
  );
});

test("a query of the wrong dimension is an error, not a silent empty result", () => {
  assert.throws(() => vectorSearch(s.sqlite, "personal", new Float32Array(DIM + 1).fill(0.1), 5), /dimension/i);
});
