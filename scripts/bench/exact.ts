/**
 * The benchmark's ground truth and statistics (scripts/bench.ts): the space's vectors as one matrix, the exact
 * top k by a full scan, recall@k of a search against it, percentiles and a timer.
 */
import type Database from "better-sqlite3";

/** All live vectors of the space in one contiguous array, for the exact baseline. */
export function loadMatrix(db: Database.Database, space: string, dim: number) {
  const rows = db
    .prepare("SELECT rowid AS rid, embedding FROM memory_vec WHERE space_id = ?")
    .iterate(space) as Iterable<{ rid: number; embedding: Buffer }>;
  const count = (
    db.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ? AND soft_deleted = 0").get(space) as { n: number }
  ).n;
  const mat = new Float32Array(count * dim);
  const rids = new Int32Array(count);
  let i = 0;
  for (const row of rows) {
    mat.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, dim), i * dim);
    rids[i++] = row.rid;
  }
  return { mat, rids: rids.subarray(0, i) };
}

/** Exact top-k by dot product (vectors are unit length) with a small insertion-sorted heap. */
export function exactTopK(mat: Float32Array, rids: Int32Array, q: Float32Array, k: number): number[] {
  const dim = q.length;
  const n = rids.length;
  const bestS = new Float64Array(k).fill(-Infinity);
  const bestI = new Int32Array(k).fill(-1);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const off = i * dim;
    for (let d = 0; d < dim; d++) s += mat[off + d]! * q[d]!;
    if (s > bestS[k - 1]!) {
      let j = k - 1;
      while (j > 0 && bestS[j - 1]! < s) {
        bestS[j] = bestS[j - 1]!;
        bestI[j] = bestI[j - 1]!;
        j--;
      }
      bestS[j] = s;
      bestI[j] = i;
    }
  }
  return Array.from(bestI)
    .filter((i) => i >= 0)
    .map((i) => rids[i]!);
}

/** Share of the exact scan's top k found in each search's top k, over all queries. */
export function recallAt(found: number[][], exact: number[][], k: number): number {
  let hits = 0;
  found.forEach((f, i) => {
    const got = new Set(f.slice(0, k));
    hits += exact[i]!.filter((x) => got.has(x)).length;
  });
  return +(hits / (exact.length * k)).toFixed(4);
}

/** Median and 95th percentile, in the unit given. */
export function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3) };
}

/** How long `fn` took in ms, and its value. */
export function time<T>(fn: () => T): [number, T] {
  const t = process.hrtime.bigint();
  const v = fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}
