import assert from "node:assert/strict";
import { test } from "node:test";
import { applyImportance, qualityFilter } from "./quality-importance";
import type { FusedCandidate } from "./union-fusion";

const close = (a: number, b: number, what = "") => assert.ok(Math.abs(a - b) < 1e-12, `${what} ${a} ≠ ${b}`);

const cand = (
  rid: number,
  matchType: FusedCandidate["matchType"],
  similarity: number | null,
  bm25: number | null,
  fused = 1,
): FusedCandidate => ({
  rid,
  matchType,
  similarity,
  bm25,
  ftsRank: bm25 === null ? null : 1,
  vectorRank: similarity === null ? null : 1,
  rrf: fused,
  fused,
  signals: [],
});

test("quality filter: vector-only below minSimilarity and fts-only below the floor go; hybrid always stays", () => {
  const cands = [
    cand(1, "vector", 0.69, null),
    cand(2, "vector", 0.7, null),
    cand(3, "fts", null, -0.5),
    cand(4, "fts", null, -2),
    cand(5, "hybrid", 0.01, -0.01),
  ];
  const { kept, dropped } = qualityFilter(cands, { minSimilarity: 0.7, ftsFloor: 1 });
  assert.deepEqual(
    kept.map((c) => c.rid),
    [2, 4, 5],
  );
  assert.deepEqual(
    dropped.map((c) => c.rid),
    [1, 3],
  );
  assert.match(dropped[0]!.reason, /vector-only, similarity 0\.690 < 0\.7/);
  assert.match(dropped[1]!.reason, /fts-only, bm25 0\.500 < 1/);
  // Floor 0 keeps every fts-only result (bm25 is negative).
  assert.equal(qualityFilter(cands, { minSimilarity: -1, ftsFloor: 0 }).kept.length, 5);
});

test("importance nudge: final = fused × (1 + w × importance/5)", () => {
  const info = new Map([
    [1, { importance: 0, pinned: false, timestamp: "2024-01-01" }],
    [2, { importance: 5, pinned: false, timestamp: "2024-01-01" }],
  ]);
  const out = applyImportance(
    [cand(1, "hybrid", 0.9, -1, 0.1), cand(2, "hybrid", 0.9, -1, 0.09)],
    (r) => info.get(r),
    0.2,
  );
  assert.deepEqual(
    out.map((c) => c.rid),
    [2, 1],
  );
  close(out[0]!.final, 0.09 * 1.2);
  close(out[1]!.final, 0.1);
  // Weight 0: the fused order stands.
  assert.deepEqual(
    applyImportance([cand(1, "hybrid", 0.9, -1, 0.1), cand(2, "hybrid", 0.9, -1, 0.09)], (r) => info.get(r), 0).map(
      (c) => c.rid,
    ),
    [1, 2],
  );
});

test("ties: pinned first, then higher importance, then newer; unknown rows count as importance 0", () => {
  const info = new Map([
    [1, { importance: 5, pinned: false, timestamp: "2024-01-01T00:00:00Z" }],
    [2, { importance: 5, pinned: true, timestamp: "2023-01-01T00:00:00Z" }],
    [3, { importance: 2, pinned: false, timestamp: "2025-01-01T00:00:00Z" }],
    [4, { importance: 2, pinned: false, timestamp: "2025-06-01T00:00:00Z" }],
  ]);
  const cs = [1, 2, 3, 4, 5].map((rid) => cand(rid, "hybrid", 0.9, -1, 0.5));
  const out = applyImportance(cs, (r) => info.get(r), 0);
  assert.deepEqual(
    out.map((c) => c.rid),
    [2, 1, 4, 3, 5],
  );
  assert.ok(!("_m" in out[0]!), "internal fields are not leaked");
});
