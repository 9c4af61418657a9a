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

/**
 * A fresh InProcessEmbedder (own call log) over the shared USE-lite engine; with `remember`, over the engine
 * with its answers remembered per request (rememberedEngine), for tests that embed the same texts again and
 * again and measure what is recalled, never how long embedding takes.
 */
export async function inProcessEmbedder(opts: { remember?: boolean } = {}): Promise<InProcessEmbedder> {
  const engine = await sharedUseLite();
  return new InProcessEmbedder(opts.remember ? rememberedEngine(engine) : engine);
}

const remembered = new WeakMap<EmbeddingEngine, EmbeddingEngine>();

/**
 * The engine with its answers kept per request (the texts, in order), one memory per engine in the process:
 * a request seen before gets the vectors the engine gave it then, as copies. USE-lite gives the same request
 * the same vectors bit for bit (a text's vector moves in the last bits with the other texts of its batch, so
 * the key is the whole request, never a single text). The live loop embeds each message twice (the turn's
 * recall query, the learner's look-up for what the person said), asks each question twice, and its two runs
 * in a file say the same things: 44 % of its requests were seen before.
 */
export function rememberedEngine(engine: EmbeddingEngine): EmbeddingEngine {
  const known = remembered.get(engine);
  if (known) return known;
  const answers = new Map<string, Promise<number[][]>>();
  const wrapped: EmbeddingEngine = {
    ...engine,
    embed(texts) {
      const key = JSON.stringify(texts);
      let answer = answers.get(key);
      if (!answer) {
        answer = engine.embed(texts);
        answers.set(key, answer);
        answer.catch(() => answers.delete(key)); // a failure is not remembered
      }
      return answer.then((vs) => vs.map((v) => [...v]));
    },
  };
  remembered.set(engine, wrapped);
  return wrapped;
}
