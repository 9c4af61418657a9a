/**
 * `npm run bench`: retrieval latency on synthetic stores, JSON out.
 *
 *   npm run bench -- --sizes 10000,100000 [--queries 200] [--dim 768] [--out bench.json]
 *
 * Each store holds n memories: 768-d unit vectors with cluster structure and Zipf-distributed text,
 * generated from a fixed seed and cached under data/bench/ so reruns are fast. Per size it reports
 * p50/p95 (ms) of hybrid retrieval excluding query embedding, the vector leg as served, an exact scan
 * in this process (the baseline), vec0 KNN, and the keyword leg alone; recall@10 of the served vector
 * leg against exact; and ratios against the baselines.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { dataDir } from "../server/config";
import { openDb } from "../server/db";
import { keywordSearch } from "../server/memory/keyword-search";
import { buildQueries } from "../server/memory/query-builder";
import { searchWithVectors } from "../server/memory/retrieve";
import { defaultSettingsFor } from "../server/memory/settings";
import { bindEmbeddingModel, insertMemories, type NewMemory } from "../server/memory/store";
import { startAnnIndex } from "../server/memory/ann-index";
import { vec0Search, vectorSearchWithSource } from "../server/memory/vector-search";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000" },
    queries: { type: "string", default: "200" },
    dim: { type: "string", default: "768" },
    out: { type: "string" },
    model: { type: "string", default: "nomic-embed-text-v1.5" },
  },
});

const SPACE = "bench";
const DIM = Number(values.dim);
const NQ = Number(values.queries);

/** mulberry32: small, fast, seedable. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(r: () => number): number {
  const u = Math.max(1e-12, r());
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

const VOCAB = 20_000;
const CLUSTERS = 256;

function makeWord(i: number): string {
  const syll = ["ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "pi", "xan", "qu", "bel", "ost", "ri", "na", "zem"];
  let s = "";
  let x = i + 17;
  do {
    s += syll[x % syll.length];
    x = Math.floor(x / syll.length);
  } while (x > 0);
  return s;
}

/** Zipf(s≈1.07) sampler over VOCAB ranks via a precomputed CDF. */
function zipfSampler(r: () => number) {
  const cdf = new Float64Array(VOCAB);
  let acc = 0;
  for (let i = 0; i < VOCAB; i++) cdf[i] = acc += 1 / Math.pow(i + 1, 1.07);
  for (let i = 0; i < VOCAB; i++) cdf[i]! /= acc;
  return () => {
    const u = r();
    let lo = 0;
    let hi = VOCAB - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const LATENT = 32;

/**
 * Vectors with cluster structure of low intrinsic dimension, as text embeddings have: points are drawn
 * around CLUSTERS centres in a 32-d latent space, mapped to DIM by a fixed random projection, offset by a
 * shared direction (embeddings are anisotropic) plus a little isotropic noise, then normalised.
 */
function makeSpace(dim: number) {
  const r = rng(7);
  const proj = Float32Array.from({ length: dim * LATENT }, () => gauss(r) / Math.sqrt(LATENT));
  const bias = normalize(Float32Array.from({ length: dim }, () => gauss(r)));
  const centres = Array.from({ length: CLUSTERS }, () => Float32Array.from({ length: LATENT }, () => gauss(r)));
  return {
    point(topic: number, spread: number, rr: () => number): Float32Array {
      const z = centres[topic]!.map((x) => x + spread * gauss(rr));
      const v = new Float32Array(dim);
      for (let i = 0; i < dim; i++) {
        let a = 0.8 * bias[i]!;
        for (let j = 0; j < LATENT; j++) a += proj[i * LATENT + j]! * z[j]!;
        v[i] = a + 0.05 * gauss(rr);
      }
      return normalize(v);
    },
  };
}

function text(r: () => number, zipf: () => number, words: number, topic: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(makeWord(r() < 0.15 ? 2000 + ((topic * 37 + Math.floor(r() * 40)) % 18000) : zipf()));
  return out.join(" ");
}

async function buildStore(n: number) {
  const dir = path.join(dataDir(), "bench");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `store-${n}-d${DIM}.db`);
  const opened = openDb(file);
  const db = opened.sqlite;
  bindEmbeddingModel(db, values.model!, DIM);
  const have = (db.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ?").get(SPACE) as { n: number }).n;
  if (have >= n) return { opened, built: false, buildMs: 0 };
  if (have > 0) {
    opened.sqlite.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return buildStore(n);
  }
  const t0 = performance.now();
  const r = rng(n);
  const zipf = zipfSampler(r);
  const space = makeSpace(DIM);
  const BATCH = 2000;
  for (let start = 0; start < n; start += BATCH) {
    const items: NewMemory[] = [];
    const vecs: Float32Array[] = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const topic = Math.floor(r() * CLUSTERS);
      vecs.push(space.point(topic, 0.5, r));
      items.push({ spaceId: SPACE, content: text(r, zipf, 20 + Math.floor(r() * 40), topic), timestamp: new Date(1.6e12 + i * 60_000).toISOString() });
    }
    insertMemories(db, items, vecs, values.model!);
    if (process.stderr.isTTY) process.stderr.write(`\rbuilding ${n}: ${Math.min(n, start + BATCH)}/${n}`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  db.pragma("wal_checkpoint(TRUNCATE)");
  return { opened, built: true, buildMs: performance.now() - t0 };
}

/** All live vectors of the space in one contiguous array, for the exact baseline. */
function loadMatrix(db: import("better-sqlite3").Database) {
  const rows = db.prepare("SELECT rowid AS rid, embedding FROM memory_vec WHERE space_id = ?").all(SPACE) as { rid: number; embedding: Buffer }[];
  const mat = new Float32Array(rows.length * DIM);
  const rids = new Int32Array(rows.length);
  rows.forEach((row, i) => {
    mat.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, DIM), i * DIM);
    rids[i] = row.rid;
  });
  return { mat, rids };
}

/** Exact top-k by dot product (vectors are unit length) with a small insertion-sorted heap. */
function exactTopK(mat: Float32Array, rids: Int32Array, q: Float32Array, k: number): number[] {
  const n = rids.length;
  const bestS = new Float64Array(k).fill(-Infinity);
  const bestI = new Int32Array(k).fill(-1);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const off = i * DIM;
    for (let d = 0; d < DIM; d++) s += mat[off + d]! * q[d]!;
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
  return Array.from(bestI).filter((i) => i >= 0).map((i) => rids[i]!);
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
  return { p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3) };
}

function time<T>(fn: () => T): [number, T] {
  const t = process.hrtime.bigint();
  const v = fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}

async function benchSize(n: number) {
  const { opened, built, buildMs } = await buildStore(n);
  const db = opened.sqlite;
  const settings = defaultSettingsFor(values.model!);
  const r = rng(1234 + n);
  const zipf = zipfSampler(r);
  const space = makeSpace(DIM);
  const queries = Array.from({ length: NQ }, () => {
    const topic = Math.floor(r() * CLUSTERS);
    return { vec: space.point(topic, 0.5, r), text: text(r, zipf, 4 + Math.floor(r() * 6), topic) };
  });
  // The served index: loaded from its saved files when current, else built (timed) from vec0.
  const annDir = path.join(path.dirname(opened.file), `ann-${n}-d${DIM}`);
  const heapBefore = process.memoryUsage().rss;
  const tb = performance.now();
  const ann = startAnnIndex(db, DIM, annDir);
  await ann.build();
  const annBuildMs = performance.now() - tb;
  const annRssMB = (process.memoryUsage().rss - heapBefore) / 1048576;
  const { mat, rids } = loadMatrix(db);
  const k = 10;
  const pool = 50;
  // Warm-up: page cache, statement cache, JIT.
  for (const q of queries.slice(0, 10)) {
    vectorSearchWithSource(db, SPACE, q.vec, pool);
    vec0Search(db, SPACE, q.vec, pool);
    keywordSearch(db, SPACE, q.text, pool, settings);
    exactTopK(mat, rids, q.vec, k);
  }
  const hybrid: number[] = [];
  const vector: number[] = [];
  const exact: number[] = [];
  const vec0: number[] = [];
  const keyword: number[] = [];
  let recallHits = 0;
  const sources = { vec0: 0 };
  for (const q of queries) {
    const qs = buildQueries(q.text, [], { contextMessages: 0, anchorQuery: false });
    hybrid.push(time(() => searchWithVectors(db, { query: q.text, spaceId: SPACE, k }, settings, qs, [q.vec]))[0]);
    const [tv, served] = time(() => vectorSearchWithSource(db, SPACE, q.vec, pool));
    vector.push(tv);
    if (served.source !== "ann") sources.vec0++;
    const [te, truth] = time(() => exactTopK(mat, rids, q.vec, k));
    exact.push(te);
    vec0.push(time(() => vec0Search(db, SPACE, q.vec, pool))[0]);
    keyword.push(time(() => keywordSearch(db, SPACE, q.text, pool, settings))[0]);
    const got = new Set(served.hits.slice(0, k).map((h) => h.rid));
    recallHits += truth.filter((x) => got.has(x)).length;
  }
  const out = {
    n,
    hybrid: stats(hybrid),
    vector: stats(vector),
    exact: stats(exact),
    vec0: stats(vec0),
    keyword: stats(keyword),
    recallAt10: +(recallHits / (NQ * k)).toFixed(4),
    buildMs: Math.round(annBuildMs),
    indexLoadedFromFile: ann.loadedFromFile,
    indexMB: ann.memoryMB(),
    rssGrowthMB: +annRssMB.toFixed(1),
    storeBuildMs: Math.round(buildMs),
    storeBuilt: built,
    queriesServedByVec0: sources.vec0,
    ratios: {} as Record<string, number>,
  };
  out.ratios = {
    vectorOverExact: +(out.vector.p50 / out.exact.p50).toFixed(3),
    vectorOverVec0: +(out.vector.p50 / out.vec0.p50).toFixed(3),
    hybridOverExact: +(out.hybrid.p50 / out.exact.p50).toFixed(3),
  };
  opened.sqlite.close();
  return out;
}

async function main() {
  const sizes = values.sizes!.split(",").map((s) => Number(s.trim())).filter((x) => x > 0);
  const result = { machine: { cpus: (await import("node:os")).availableParallelism(), node: process.version }, dim: DIM, queries: NQ, sizes: [] as unknown[] };
  for (const n of sizes) result.sizes.push(await benchSize(n));
  const json = JSON.stringify(result, null, 2);
  if (values.out) fs.writeFileSync(values.out, json + "\n");
  console.log(json);
}

void main();
