import assert from "node:assert/strict";
import { test } from "node:test";
import type { DerivedMemory } from "../store/provenance";
import { belowSources, withProvenance } from "./provenance";
import type { Staged } from "./boosts";
import { movesOf } from "./signals";

const cand = (rid: number, fused: number): Staged & { final: number } => ({
  rid,
  matchType: "hybrid",
  similarity: null,
  ftsRank: null,
  bm25: null,
  vectorRank: null,
  rrf: 0,
  fused,
  final: fused,
  signals: [],
  dateMatch: false,
});

const derived = (sources: number[], novelty: number): DerivedMemory => ({
  sources: new Set(sources),
  novelty,
  retired: null,
});

test("a derived candidate scores × (w + (1 − w) × novelty); the person's own words are untouched", () => {
  const cands = [cand(1, 1), cand(2, 0.8), cand(3, 0.5)];
  const out = withProvenance(cands, new Map([[1, derived([2], 0)]]), { derivedWeight: 0.3 });
  assert.deepEqual(
    out.map((c) => [c.rid, +c.fused.toFixed(3)]),
    [
      [2, 0.8],
      [3, 0.5],
      [1, 0.3],
    ],
  );
  assert.match(movesOf(out[2]!.signals)[0]!, /^derived ×0\.30 \(0% new/);
  const half = withProvenance([cand(1, 1)], new Map([[1, derived([2], 0.5)]]), { derivedWeight: 0.3 });
  assert.equal(+half[0]!.fused.toFixed(3), 0.65);
  // Off at 1: nothing moves.
  const off = withProvenance([cand(1, 1)], new Map([[1, derived([2], 0)]]), { derivedWeight: 1 });
  assert.equal(off[0]!.fused, 1);
});

test("a mostly restated candidate ranks just below the best of its sources that was found; a new one may lead", () => {
  const cands = [cand(1, 1), cand(2, 0.6), cand(3, 0.4), cand(4, 0.9)];
  const d = new Map([
    [1, derived([2, 3, 99], 0.1)], // restated 2 and 3 (99 was not found)
    [4, derived([3], 0.8)], // added most of its words: it is evidence of its own
  ]);
  const out = belowSources(cands, d, { derivedWeight: 0.3 });
  assert.deepEqual(
    out.map((c) => c.rid),
    [4, 2, 1, 3],
  );
  assert.ok(out[2]!.final < 0.6 && out[2]!.final > 0.59);
  assert.deepEqual(movesOf(out[2]!.signals), ["below its source (restated it)"]);
  // Its sources not found at all: nothing to stay below.
  const alone = belowSources([cand(1, 1), cand(5, 0.2)], new Map([[1, derived([7], 0)]]), { derivedWeight: 0.3 });
  assert.deepEqual(
    alone.map((c) => c.rid),
    [1, 5],
  );
});
