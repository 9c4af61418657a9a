/**
 * Synthetic stores for `npm run bench`: seeded vectors and Zipf-distributed text.
 *
 * Two vector sets:
 * - `clustered`: points around 256 centres in a 32-d latent space, mapped to the dimension by a fixed
 *   random projection, offset by a shared direction plus a little isotropic noise (easy for a graph);
 * - `fitted`: Gaussian vectors with the mean length and covariance spectrum of real USE-lite embeddings
 *   of the repo's generated text (scripts/bench/spectrum.ts, fitted by scripts/fit-spectrum.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spectrumSampler, type Spectrum } from "./spectrum";

export type VectorSet = "clustered" | "fitted";

/** mulberry32: small, fast, seedable. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * How many draws after rng(from) starts, rng(to) starts: mulberry32's state only steps by a constant, so
 * two seeds give the same stream shifted by (to - from) / step (mod 2^32), as a signed count of draws.
 * The bench checks with it that fresh queries do not replay the draws its store was made of.
 */
export function streamOffset(from: number, to: number): number {
  const M = 2n ** 32n;
  const inverse = 3696798301n; // 0x6d2b79f5⁻¹ mod 2^32
  const j = ((((BigInt(to) - BigInt(from)) % M) + M) * inverse) % M;
  return Number(j >= M / 2n ? j - M : j);
}

export function gauss(r: () => number): number {
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
export const CLUSTERS = 256;

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
export function zipfSampler(r: () => number) {
  const cdf = new Float64Array(VOCAB);
  let acc = 0;
  for (let i = 0; i < VOCAB; i++) cdf[i] = acc += 1 / (i + 1) ** 1.07;
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

/** Text of `words` words: Zipf-distributed, 15% drawn from the topic's own words. */
export function text(r: () => number, zipf: () => number, words: number, topic: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++)
    out.push(makeWord(r() < 0.15 ? 2000 + ((topic * 37 + Math.floor(r() * 40)) % 18000) : zipf()));
  return out.join(" ");
}

/** One of a topic's own words (the 15% of `text`'s words that are topical): rare in the store, as a thing's name is. */
export function topicWord(r: () => number, topic: number): string {
  return makeWord(2000 + ((topic * 37 + Math.floor(r() * 40)) % 18000));
}

const LATENT = 32;

function clusteredSpace(dim: number) {
  const r = rng(7);
  const proj = Float32Array.from({ length: dim * LATENT }, () => gauss(r) / Math.sqrt(LATENT));
  const bias = normalize(Float32Array.from({ length: dim }, () => gauss(r)));
  const centres = Array.from({ length: CLUSTERS }, () => Float32Array.from({ length: LATENT }, () => gauss(r)));
  return (topic: number, rr: () => number): Float32Array => {
    const z = centres[topic]!.map((x) => x + 0.5 * gauss(rr));
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) {
      let a = 0.8 * bias[i]!;
      for (let j = 0; j < LATENT; j++) a += proj[i * LATENT + j]! * z[j]!;
      v[i] = a + 0.05 * gauss(rr);
    }
    return normalize(v);
  };
}

export function loadSpectrum(): Spectrum {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "use-lite-spectrum.json");
  return JSON.parse(fs.readFileSync(file, "utf8")) as Spectrum;
}

/**
 * A point generator for a set: `point(topic, r)` draws one vector (the fitted set ignores topics: it has
 * no cluster structure). The fitted set's basis is fixed by its own seed, so stores and queries agree.
 */
export function vectorSpace(
  set: VectorSet,
  dim: number,
): { point(topic: number, r: () => number): Float32Array; describe: Record<string, unknown> } {
  if (set === "clustered") return { point: clusteredSpace(dim), describe: { clusters: CLUSTERS, latentDim: LATENT } };
  const spec = loadSpectrum();
  const basis = rng(11);
  // The sampler takes its normal draws from a generator the caller swaps per point (store vs queries).
  let current: () => number = basis;
  const sampler = spectrumSampler(spec, dim, () => gauss(current));
  return {
    point(_topic, r) {
      current = r;
      return sampler.point();
    },
    describe: {
      fittedOn: spec.source,
      meanNormSq: spec.meanNormSq,
      effectiveDimension: +sampler.effectiveDimension.toFixed(1),
      headShare: +sampler.headShare.toFixed(3),
    },
  };
}
