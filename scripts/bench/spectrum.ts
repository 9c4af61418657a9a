/**
 * Vectors whose spectrum follows real text embeddings, for `npm run bench`.
 *
 * `fitSpectrum` takes real embeddings (USE-lite vectors of the text the repo generates, see
 * scripts/fit-spectrum.ts) and keeps what the geometry of a nearest-neighbour search depends on: the
 * mean vector's length (embeddings are anisotropic: they share a direction) and the eigenvalues of the
 * covariance (how variance spreads over directions, i.e. the data's effective dimension). Cosine
 * similarity and the HNSW search are invariant under rotation, so the eigenvectors themselves are not
 * kept: `spectrumSampler` draws Gaussian vectors with that mean length and exactly that spectrum (the
 * fitted model's 512 directions placed in a random subspace of the target dimension, the rest empty)
 * in a random orthonormal basis. Unlike the clustered set these have no cluster structure to lean on,
 * which is what makes them harder for an HNSW graph.
 */

export interface Spectrum {
  source: string;
  /** Dimension of the fitted embeddings and the number of vectors fitted. */
  dim: number;
  n: number;
  /** |mean|² of the (unit) embeddings. */
  meanNormSq: number;
  /** Covariance eigenvalues, largest first (sum + meanNormSq ≈ 1 for unit vectors). */
  eigenvalues: number[];
}

/** Eigenvalues of a symmetric matrix (row-major n×n, overwritten) by cyclic Jacobi rotations. */
export function symmetricEigenvalues(a: Float64Array, n: number, sweeps = 30): number[] {
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
    }
  }
  return Array.from({ length: n }, (_, i) => a[i * n + i]!).sort((x, y) => y - x);
}

/** Fit the mean length and covariance spectrum of a set of unit vectors. */
export function fitSpectrum(vectors: Float32Array[], source: string): Spectrum {
  const n = vectors.length;
  const dim = vectors[0]!.length;
  const mean = new Float64Array(dim);
  for (const v of vectors) for (let i = 0; i < dim; i++) mean[i]! += v[i]! / n;
  const cov = new Float64Array(dim * dim);
  const c = new Float64Array(dim);
  for (const v of vectors) {
    for (let i = 0; i < dim; i++) c[i] = v[i]! - mean[i]!;
    for (let i = 0; i < dim; i++) {
      const ci = c[i]!;
      const row = i * dim;
      for (let j = i; j < dim; j++) cov[row + j]! += ci * c[j]!;
    }
  }
  for (let i = 0; i < dim; i++) {
    for (let j = i; j < dim; j++) {
      cov[i * dim + j]! /= n - 1;
      cov[j * dim + i] = cov[i * dim + j]!;
    }
  }
  const eigenvalues = symmetricEigenvalues(cov, dim).map((x) => Math.max(0, x));
  let meanNormSq = 0;
  for (const x of mean) meanNormSq += x * x;
  return { source, dim, n, meanNormSq, eigenvalues };
}

/** Effective dimension (participation ratio (Σλ)²/Σλ²) of a spectrum. */
export function effectiveDimension(eigenvalues: number[]): number {
  const s = eigenvalues.reduce((a, b) => a + b, 0);
  const s2 = eigenvalues.reduce((a, b) => a + b * b, 0);
  return (s * s) / s2;
}

/**
 * A sampler of unit vectors in `dim` dimensions with the spectrum's mean length and eigenvalues. The top `rank` directions get their own random orthonormal axes; the remaining variance,
 * spread thinly over the rest, is drawn as isotropic noise (rotation-invariant, so it needs no basis),
 * which keeps sampling at O(dim × rank) per vector. `gauss` is the caller's seeded normal generator.
 */
export function spectrumSampler(spec: Spectrum, dim: number, gauss: () => number, rank = 128) {
  const lambda = Float64Array.from({ length: dim }, (_, j) => spec.eigenvalues[j] ?? 0);
  const r = Math.min(rank, dim);
  // Random orthonormal axes (Gram–Schmidt on Gaussian vectors): r for the spectrum's head, one for the mean.
  const axes: Float64Array[] = [];
  while (axes.length < r + 1) {
    const v = Float64Array.from({ length: dim }, () => gauss());
    for (const a of axes) {
      let d = 0;
      for (let i = 0; i < dim; i++) d += v[i]! * a[i]!;
      for (let i = 0; i < dim; i++) v[i]! -= d * a[i]!;
    }
    let nn = 0;
    for (const x of v) nn += x * x;
    nn = Math.sqrt(nn);
    for (let i = 0; i < dim; i++) v[i]! /= nn;
    axes.push(v);
  }
  const meanAxis = axes.pop()!;
  const meanLen = Math.sqrt(spec.meanNormSq);
  const sd = Array.from({ length: r }, (_, j) => Math.sqrt(lambda[j]!));
  let tail = 0;
  for (let j = r; j < dim; j++) tail += lambda[j]!;
  const tailSd = Math.sqrt(tail / dim);
  const flat = new Float32Array(r * dim);
  axes.forEach((a, j) => flat.set(a, j * dim));
  const headShare = sd.reduce((s, x) => s + x * x, 0) / (lambda.reduce((a, b) => a + b, 0) || 1);
  return {
    /** Share of the variance carried by the explicit head directions. */
    headShare,
    effectiveDimension: effectiveDimension(Array.from(lambda)),
    point(): Float32Array {
      const v = new Float32Array(dim);
      for (let i = 0; i < dim; i++) v[i] = meanLen * meanAxis[i]! + tailSd * gauss();
      for (let j = 0; j < r; j++) {
        const z = sd[j]! * gauss();
        const off = j * dim;
        for (let i = 0; i < dim; i++) v[i]! += z * flat[off + i]!;
      }
      let nn = 0;
      for (const x of v) nn += x * x;
      nn = Math.sqrt(nn) || 1;
      for (let i = 0; i < dim; i++) v[i]! /= nn;
      return v;
    },
  };
}
