/**
 * An in-process Embedder over the real bundled model (Universal Sentence Encoder lite, 512-d), so service
 * and retrieval tests run the genuine embedding path without the HTTP embedding server. Vectors are
 * validated and scaled to unit length by the same toUnitVector the HTTP client uses. USE takes no prefixes.
 */
import { loadUseLite } from "../embedder/engines/use-lite";
import type { EmbeddingEngine } from "../embedder/engines/types";
import { toUnitVector } from "../embedder/client";
import type { Embedder } from "../core/context";

export class InProcessEmbedder implements Embedder {
  /** Every text embedded, in order (tests use it to see that nothing was embedded, or what was). */
  readonly calls: { kind: "query" | "document"; texts: string[] }[] = [];

  constructor(readonly engine: EmbeddingEngine) {}

  async info(): Promise<{ model: string; dim: number }> {
    return { model: this.engine.modelId, dim: this.engine.dim };
  }

  private async embed(texts: string[]): Promise<Float32Array[]> {
    const raw = await this.engine.embed(texts);
    return raw.map((v) => toUnitVector(v, this.engine.dim));
  }

  async embedQueries(texts: string[]): Promise<Float32Array[]> {
    this.calls.push({ kind: "query", texts: [...texts] });
    return this.embed(texts);
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    this.calls.push({ kind: "document", texts: [...texts] });
    return this.embed(texts);
  }

  async tokenize(text: string): Promise<number[]> {
    return this.engine.tokenize(text);
  }
}

let shared: Promise<EmbeddingEngine> | undefined;

/** The USE-lite engine, loaded once per test process (≈100 ms) and shared by every embedder. */
export function sharedUseLite(): Promise<EmbeddingEngine> {
  shared ??= loadUseLite();
  return shared;
}

/** A fresh InProcessEmbedder (own call log) over the shared USE-lite engine. */
export async function inProcessEmbedder(): Promise<InProcessEmbedder> {
  return new InProcessEmbedder(await sharedUseLite());
}
