/**
 * Consolidation in a household (issue 32): it goes over every person's spaces but pairs only within one
 * space, so two people's memories are never merged, however alike. Vectors from the 4-dimensional test
 * embedder (identical text, identical vector), no network.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runAsSystem } from "../../core/acting";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../../test/test-dim-embedder";
import { checkInvariant, insertMemories } from "../store";
import { consolidate } from "./consolidate";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

test("consolidation never pairs memories of two people, however alike (issue 32)", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const same = "alpha beta gamma";
  // The same text in the owner's `personal`, p1's `personal` and p2's `work`: identical vectors (cosine 1).
  insertMemories(
    s.sqlite,
    ["personal", "p1~personal", "p2~work"].map((spaceId) => ({ spaceId, content: same })),
    [0, 1, 2].map(() => hashedVector(same, 4)),
    TEST_MODEL_A,
  );
  const merged: string[][] = [];
  const merge = async (a: string, b: string) => {
    merged.push([a, b]);
    return a;
  };
  const r = await runAsSystem(() =>
    consolidate({ db: s.sqlite, embedder: new TestDimEmbedder() }, TEST_MODEL_A, { threshold: 0.92, merge }),
  );
  assert.equal(r.spaces, 3, "every person's spaces are visited");
  assert.equal(r.pairs, 0);
  assert.deepEqual(merged, []);
  // The control: a second copy in p1's own space is a pair, and its merge stays in p1's space.
  insertMemories(s.sqlite, [{ spaceId: "p1~personal", content: same }], [hashedVector(same, 4)], TEST_MODEL_A);
  const r2 = await runAsSystem(() =>
    consolidate({ db: s.sqlite, embedder: new TestDimEmbedder() }, TEST_MODEL_A, { threshold: 0.92, merge }),
  );
  assert.equal(r2.pairs, 1);
  assert.equal(r2.counts.merged, 1);
  const spaceOf = (id: string) =>
    (s.sqlite.prepare("SELECT space_id AS s FROM memories WHERE id = ?").get(id) as { s: string }).s;
  for (const m of r2.merges) {
    assert.equal(spaceOf(m.id), "p1~personal");
    assert.deepEqual(m.from.map(spaceOf), ["p1~personal", "p1~personal"]);
  }
  assert.deepEqual(checkInvariant(s.sqlite), []);
});
