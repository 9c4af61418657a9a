/**
 * `npm run bench:jobs`: the background jobs' hot steps, JSON out.
 *
 *   npm run bench:jobs -- [--n 200] [--dim 768] [--iterations 300] [--swap-rows 5000]
 *
 * - pairwise: consolidation's similarity step for n memories (the most recent 200 of a space): all
 *   pairs' cosine, pairs ≥ 0.92, greedy disjoint matching (server/memory/lifecycle/consolidate.ts), beside a
 *   naive implementation measured in the same run (number[][] vectors, per-pair cosine with both norms
 *   recomputed) — the baseline; both must find the same pairs.
 * - load: reading those n memories and their vectors from a real store (memory_vec).
 * - swap: the re-index swap (server/memory/index/reindex.ts) over a store of --swap-rows memories: one
 *   transaction that recreates memory_vec and copies the new vectors in; reported per row.
 * Vectors are 768-d with cluster structure (near-duplicates exist), from a fixed seed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "../server/db";
import { disjointPairs, loadCandidates, similarPairs, type SimilarPair } from "../server/memory/lifecycle/consolidate";
import { beginReindex, pendingBatch, storeBatch, swapVectorTables } from "../server/memory/index/reindex";
import { bindEmbeddingModel, insertMemories } from "../server/memory/store";
import { gauss, rng } from "./bench/synthetic";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "200" },
    dim: { type: "string", default: "768" },
    iterations: { type: "string", default: "300" },
    threshold: { type: "string", default: "0.92" },
    "swap-rows": { type: "string", default: "5000" },
  },
});
const N = Number(values.n);
const DIM = Number(values.dim);
const ITER = Number(values.iterations);
const THRESHOLD = Number(values.threshold);
const SWAP_ROWS = Number(values["swap-rows"]);

/**
 * n unit vectors around n/4 centres; small noise makes some pairs ≥ 0.92. `shared` adds a direction
 * common to all (real sentence embeddings are anisotropic: unrelated texts have cosine ≈ 0.3–0.6).
 */
function vectors(n: number, dim: number, seed: number, shared = 0): Float32Array[] {
  const r = rng(seed);
  const common = Float32Array.from({ length: dim }, () => gauss(r));
  const centres = Array.from({ length: Math.max(1, Math.floor(n / 4)) }, () =>
    Float32Array.from({ length: dim }, (_, k) => gauss(r) + shared * common[k]!),
  );
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(r() * centres.length)]!;
    const noise = 0.15 + r() * 0.5;
    const v = Float32Array.from(c, (x) => x + noise * gauss(r));
    let s = 0;
    for (const x of v) s += x * x;
    s = Math.sqrt(s);
    return v.map((x) => x / s);
  });
}

/** The baseline: what one writes first. */
function naivePairs(vs: number[][], threshold: number): SimilarPair[] {
  const out: SimilarPair[] = [];
  for (let i = 0; i < vs.length; i++) {
    for (let j = i + 1; j < vs.length; j++) {
      const a = vs[i]!;
      const b = vs[j]!;
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let k = 0; k < a.length; k++) {
        dot += a[k]! * b[k]!;
        na += a[k]! * a[k]!;
        nb += b[k]! * b[k]!;
      }
      const s = dot / Math.sqrt(na * nb);
      if (s >= threshold) out.push({ i, j, similarity: s });
    }
  }
  out.sort((x, y) => y.similarity - x.similarity);
  return disjointPairs(out);
}

function stats(samples: number[]): { p50: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3) };
}

function time<T>(fn: () => T): [number, T] {
  const t0 = process.hrtime.bigint();
  const out = fn();
  return [Number(process.hrtime.bigint() - t0) / 1e6, out];
}

const key = (ps: SimilarPair[]) => ps.map((p) => `${p.i}-${p.j}`).join(",");

function pairwise(label: string, shared: number) {
  const vs = vectors(N, DIM, 42, shared);
  const arrays = vs.map((v) => Array.from(v));
  let cos = 0;
  let cnt = 0;
  for (let i = 0; i < vs.length; i += 7)
    for (let j = i + 1; j < vs.length; j += 5) {
      let s = 0;
      for (let k = 0; k < DIM; k++) s += vs[i]![k]! * vs[j]![k]!;
      cos += s;
      cnt++;
    }
  // Warm both up (JIT), then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    disjointPairs(similarPairs(vs, THRESHOLD));
    naivePairs(arrays, THRESHOLD);
  }
  const fast: number[] = [];
  const naive: number[] = [];
  let found: SimilarPair[] = [];
  let baselineFound: SimilarPair[] = [];
  for (let i = 0; i < ITER; i++) {
    const [a, pairs] = time(() => disjointPairs(similarPairs(vs, THRESHOLD)));
    const [b, basePairs] = time(() => naivePairs(arrays, THRESHOLD));
    fast.push(a);
    naive.push(b);
    found = pairs;
    baselineFound = basePairs;
  }
  const p = stats(fast);
  const base = stats(naive);
  return {
    what: `consolidation similarity step (${label}): all pairs' cosine, pairs >= threshold, disjoint greedy matching`,
    n: N,
    dim: DIM,
    threshold: THRESHOLD,
    meanCosine: +(cos / cnt).toFixed(3),
    iterations: ITER,
    pairs: found.length,
    ms: p,
    baseline: {
      what: "naive per-pair cosine over number[][] (norms recomputed per pair)",
      ms: base,
      pairs: baselineFound.length,
    },
    samePairsAsBaseline: key(found) === key(baselineFound),
    ratioP50: +(p.p50 / base.p50).toFixed(3),
    speedupP50: +(base.p50 / p.p50).toFixed(2),
  };
}
const spread = pairwise("clustered, unrelated vectors near-orthogonal", 0);
const anisotropic = pairwise("clustered, with a shared direction like real sentence embeddings", 0.9);

// Loading the candidates from a real store, and the re-index swap.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-jobs-"));
try {
  const { sqlite: db } = openDb(path.join(dir, "memory.db"));
  bindEmbeddingModel(db, "bench-a", DIM);
  const total = Math.max(N, SWAP_ROWS);
  const all = vectors(total, DIM, 7);
  for (let i = 0; i < total; i += 1000) {
    const slice = all.slice(i, i + 1000);
    insertMemories(
      db,
      slice.map((_, k) => ({
        spaceId: "bench",
        content: `memory ${i + k}`,
        timestamp: new Date(Date.UTC(2024, 0, 1) + (i + k) * 60_000).toISOString(),
      })),
      slice,
      "bench-a",
    );
  }
  const loads: number[] = [];
  for (let i = 0; i < Math.min(ITER, 100); i++) loads.push(time(() => loadCandidates(db, "bench", N))[0]);

  beginReindex(db, { model: "bench-b", dim: DIM });
  for (let after = 0; ; ) {
    const rows = pendingBatch(db, after, 1000);
    if (!rows.length) break;
    storeBatch(
      db,
      rows,
      rows.map((r) => all[r.rid - 1]!),
    );
    after = rows[rows.length - 1]!.rid;
  }
  const [swapMs, swapped] = time(() => swapVectorTables(db));
  db.close();

  console.log(
    JSON.stringify(
      {
        bench: "jobs",
        node: process.version,
        cpus: os.cpus().length,
        pairwise: spread,
        pairwiseAnisotropic: anisotropic,
        load: { what: `read ${N} most recent live memories with their vectors from memory_vec`, ms: stats(loads) },
        swap: {
          what: "re-index swap: recreate memory_vec and copy the new vectors, one transaction",
          rows: total,
          swapped,
          ms: +swapMs.toFixed(1),
          usPerRow: +((swapMs * 1000) / total).toFixed(1),
        },
      },
      null,
      2,
    ),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
