import assert from "node:assert/strict";
import { test } from "node:test";
import { applyImportance, fuse, qualityFilter, rrfScore, type FusedCandidate, type RankedList } from "./fuse";

const close = (a: number, b: number, what = "") => assert.ok(Math.abs(a - b) < 1e-12, `${what} ${a} ≠ ${b}`);

test("rrfScore: Σ w/(k + rank) with 1-based ranks and k = 60", () => {
  close(rrfScore([{ rank: 1, weight: 1 }]), 1 / 61);
  close(
    rrfScore([
      { rank: 1, weight: 1 },
      { rank: 3, weight: 1 },
    ]),
    1 / 61 + 1 / 63,
  );
  close(
    rrfScore([
      { rank: 2, weight: 0.4 },
      { rank: 1, weight: 1 },
    ]),
    0.4 / 62 + 1 / 61,
  );
  close(rrfScore([{ rank: 10, weight: 2 }], 10), 2 / 20);
  close(rrfScore([{ rank: 5, weight: 0 }]), 0);
  assert.equal(rrfScore([]), 0);
});

const vec = (items: [number, number][], weight = 1): RankedList => ({
  kind: "vector",
  weight,
  items: items.map(([rid, score]) => ({ rid, score })),
});
const fts = (items: [number, number][], weight = 1): RankedList => ({
  kind: "fts",
  weight,
  items: items.map(([rid, score]) => ({ rid, score })),
});

test("fuse (RRF): match types, breakdown fields and exact scores", () => {
  // vector: A=1 (0.9), B=2 (0.8); fts (score = −bm25): B=2 (5), C=3 (3)
  const out = fuse(
    [
      vec([
        [1, 0.9],
        [2, 0.8],
      ]),
      fts([
        [2, 5],
        [3, 3],
      ]),
    ],
    "rrf",
  );
  assert.deepEqual(
    out.map((c) => c.rid),
    [2, 1, 3],
  );
  const [b, a, c] = out;
  assert.equal(b!.matchType, "hybrid");
  assert.equal(a!.matchType, "vector");
  assert.equal(c!.matchType, "fts");
  close(b!.rrf, 1 / 62 + 1 / 61, "B rrf");
  close(a!.rrf, 1 / 61, "A rrf");
  close(c!.rrf, 1 / 62, "C rrf");
  assert.equal(b!.fused, b!.rrf);
  assert.deepEqual(
    { similarity: b!.similarity, vectorRank: b!.vectorRank, ftsRank: b!.ftsRank, bm25: b!.bm25 },
    { similarity: 0.8, vectorRank: 2, ftsRank: 1, bm25: -5 },
  );
  assert.deepEqual(
    { similarity: a!.similarity, ftsRank: a!.ftsRank, bm25: a!.bm25 },
    { similarity: 0.9, ftsRank: null, bm25: null },
  );
  assert.deepEqual(
    { similarity: c!.similarity, vectorRank: c!.vectorRank, ftsRank: c!.ftsRank, bm25: c!.bm25 },
    { similarity: null, vectorRank: null, ftsRank: 2, bm25: -3 },
  );
});

test("fuse (RRF): weights and the k parameter enter the sum", () => {
  const out = fuse([vec([[1, 0.9]], 0.4), fts([[2, 5]], 1)], "rrf", 10);
  close(out.find((c) => c.rid === 1)!.rrf, 0.4 / 11);
  close(out.find((c) => c.rid === 2)!.rrf, 1 / 11);
  assert.deepEqual(
    out.map((c) => c.rid),
    [2, 1],
  );
});

test("fuse: several lists of one kind keep the best similarity, rank and bm25", () => {
  const out = fuse(
    [
      vec([
        [7, 0.6],
        [8, 0.5],
      ]),
      vec([[8, 0.95]], 0.5),
      fts([
        [9, 2],
        [8, 1],
      ]),
      fts([[8, 4]]),
    ],
    "rrf",
  );
  const e = out.find((c) => c.rid === 8)!;
  assert.equal(e.matchType, "hybrid");
  assert.equal(e.similarity, 0.95);
  assert.equal(e.vectorRank, 1);
  assert.equal(e.ftsRank, 1);
  assert.equal(e.bm25, -4);
  close(e.rrf, 1 / 62 + 0.5 / 61 + 1 / 62 + 1 / 61);
});

test("fuse (linear): min-max normalised per list, weighted sum", () => {
  // vector 0.9, 0.8, 0.5 → 1, 0.75, 0; fts 5, 3 → 1, 0
  const out = fuse(
    [
      vec(
        [
          [1, 0.9],
          [2, 0.8],
          [3, 0.5],
        ],
        0.4,
      ),
      fts(
        [
          [2, 5],
          [4, 3],
        ],
        1,
      ),
    ],
    "linear",
  );
  const f = Object.fromEntries(out.map((c) => [c.rid, c.fused]));
  close(f[1]!, 0.4 * 1, "rid 1");
  close(f[2]!, 0.4 * 0.75 + 1, "rid 2");
  close(f[3]!, 0, "rid 3");
  close(f[4]!, 0, "rid 4");
  assert.deepEqual(
    out.map((c) => c.rid),
    [2, 1, 3, 4],
  ); // ties by rid
  // rrf is still reported for the breakdown.
  close(out[0]!.rrf, 0.4 / 62 + 1 / 61);
  // A one-item (or all-equal) list normalises to 1.
  close(fuse([vec([[5, 0.3]], 0.7)], "linear")[0]!.fused, 0.7);
  close(
    fuse(
      [
        fts([
          [5, 2],
          [6, 2],
        ]),
      ],
      "linear",
    )[1]!.fused,
    1,
  );
  assert.deepEqual(fuse([], "linear"), []);
  assert.deepEqual(fuse([vec([])], "rrf"), []);
});

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

test("fuse (linear): a list with a ceiling is normalised by score / ceiling, clipped to [0, 1]", () => {
  // fts with ceiling 10: 12, 5, 3 → 1, 0.5, 0.3; the vector list (no ceiling) stays min-max: 0.9, 0.5 → 1, 0.
  const list: RankedList = {
    ...fts([
      [2, 12],
      [3, 5],
      [4, 3],
    ]),
    ceiling: 10,
  };
  const out = fuse(
    [
      vec(
        [
          [1, 0.9],
          [2, 0.5],
        ],
        0.5,
      ),
      list,
    ],
    "linear",
  );
  const f = Object.fromEntries(out.map((c) => [c.rid, c.fused]));
  close(f[1]!, 0.5, "rid 1");
  close(f[2]!, 1, "rid 2");
  close(f[3]!, 0.5, "rid 3");
  close(f[4]!, 0.3, "rid 4");
  // The best hit of a keyword list stays weak when it matches little of the query (min-max would give 1).
  close(fuse([{ ...fts([[7, 0.4]]), ceiling: 8 }], "linear")[0]!.fused, 0.05);
  // RRF ranks ignore it.
  close(fuse([list], "rrf")[0]!.fused, 1 / 61);
});
