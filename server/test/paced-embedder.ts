/**
 * TEST DOUBLE: an Embedder that waits `msPerCall` before each call of another (the test-dim hashing one), so
 * that a big import takes a while in a test the way it does on the real model — which the import runner's
 * fairness and cancel tests need to observe one job while another runs.
 */
import type { Embedder } from "../core/context";

export class PacedEmbedder implements Embedder {
  calls = 0;
  constructor(
    private readonly inner: Embedder,
    public msPerCall: number,
  ) {}
  info() {
    return this.inner.info();
  }
  private async pace(): Promise<void> {
    this.calls++;
    await new Promise((r) => setTimeout(r, this.msPerCall));
  }
  async embedQueries(texts: string[]): Promise<Float32Array[]> {
    await this.pace();
    return this.inner.embedQueries(texts);
  }
  tokenize(text: string): Promise<number[]> {
    return this.inner.tokenize(text);
  }
  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    await this.pace();
    return this.inner.embedDocuments(texts);
  }
}
