import os from "node:os";
import path from "node:path";
import type { EmbeddingEngine } from "./types";

export interface NodeLlamaOptions {
  modelPath: string;
  /** Threads for evaluation; default: the machine's cores. */
  threads?: number;
  /** Context and batch size; must cover the longest input or the vector silently changes. */
  contextSize?: number;
}

/**
 * llama.cpp through node-llama-cpp's prebuilt binaries (CPU here; CUDA/Metal/Vulkan where present).
 * batchSize is set equal to the context size so that every input fits in one batch: with a smaller batch
 * node-llama-cpp returns a vector different from llama-server's for inputs longer than the batch.
 */
export async function loadNodeLlama(opts: NodeLlamaOptions): Promise<EmbeddingEngine> {
  const { getLlama } = await import("node-llama-cpp");
  const llama = await getLlama({ build: "never", gpu: process.env.MEMO_LLAMA_GPU === "off" ? false : "auto" });
  const model = await llama.loadModel({ modelPath: opts.modelPath });
  const contextSize = Math.min(opts.contextSize ?? 2048, model.trainContextSize || 2048);
  const threads = opts.threads ?? Math.max(1, os.availableParallelism());
  const ctx = await model.createEmbeddingContext({ contextSize, batchSize: contextSize, threads });
  const modelId = path.basename(opts.modelPath).replace(/\.gguf$/i, "");
  let queue: Promise<unknown> = Promise.resolve();
  // One context evaluates one sequence at a time: serialise requests on it.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    modelId,
    dim: model.embeddingVectorSize,
    description: `llama.cpp via node-llama-cpp (${llama.gpu || "cpu"}, ${threads} threads, ctx ${contextSize}) on ${modelId}`,
    async embed(texts) {
      return serial(async () => {
        const out: number[][] = [];
        for (const t of texts) {
          const tokens = model.tokenize(t);
          if (tokens.length > contextSize) {
            throw new Error(`input has ${tokens.length} tokens; the context holds ${contextSize}`);
          }
          const e = await ctx.getEmbeddingFor(tokens);
          out.push([...e.vector]);
        }
        return out;
      });
    },
    async tokenize(text) {
      return model.tokenize(text).map(Number);
    },
    async close() {
      await ctx.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
