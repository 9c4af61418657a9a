/** Cosine of unit vectors (every stored and query vector is one): their dot product. */
export function unitCosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
