/**
 * TEST DOUBLE: a tiny in-process Embedder whose model can be switched, for re-index tests. Model
 * "test-4d-a" gives 4-dimensional vectors, "test-4d-b" 6-dimensional ones (any "…-<n>d-…" name gives n).
 * The vectors are hashed bags of words (deterministic, never zero, unit length), not a model: texts with
 * the same words get the same vector. Embedding can be held (hold()/release()) so a test can act while a
 * re-index is half-way.
 */
import { toUnitVector } from "../embedder/client";
import type { Embedder } from "../core/context";

export const TEST_MODEL_A = "test-4d-a";
export const TEST_MODEL_B = "test-4d-b";

export function testModelDim(model: string): number {
  if (model === TEST_MODEL_B) return 6;
  const m = model.match(/-(\d+)d-/);
  return m ? Number(m[1]) : 4;
}

export function hashedVector(text: string, dim: number): Float32Array {
  const v = new Array<number>(dim).fill(0);
  v[0] = 0.25;
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
    v[h % dim]! += 1;
  }
  return toUnitVector(v, dim);
}

export class TestDimEmbedder implements Embedder {
  /** Texts embedded as documents, per call. */
  readonly documentCalls: string[][] = [];
  private gate: { promise: Promise<void>; open: () => void; applies: (texts: string[]) => boolean } | null = null;
  /** Calls waiting at the gate. */
  waiting = 0;

  constructor(public model: string = TEST_MODEL_A) {}

  get dim(): number {
    return testModelDim(this.model);
  }

  async info(): Promise<{ model: string; dim: number }> {
    return { model: this.model, dim: this.dim };
  }

  /** Make embedDocuments wait until release() — only the calls `applies` picks (default: all). */
  hold(applies: (texts: string[]) => boolean = () => true): void {
    if (this.gate) return;
    let open!: () => void;
    const promise = new Promise<void>((r) => (open = r));
    this.gate = { promise, open, applies };
  }

  release(): void {
    this.gate?.open();
    this.gate = null;
  }

  async embedQueries(texts: string[]): Promise<Float32Array[]> {
    const dim = this.dim;
    return texts.map((t) => hashedVector(t, dim));
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const dim = this.dim;
    this.documentCalls.push([...texts]);
    while (this.gate?.applies(texts)) {
      this.waiting++;
      await this.gate.promise;
      this.waiting--;
    }
    return texts.map((t) => hashedVector(t, dim));
  }

  async tokenize(text: string): Promise<number[]> {
    return (text.match(/\S+/g) ?? []).map((_, i) => i);
  }
}
