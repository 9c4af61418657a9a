import path from "node:path";
import { embedThreads } from "../models";
import type { EmbeddingEngine } from "./types";
import { describeBackend } from "./backend";

export interface NodeLlamaOptions {
  modelPath: string;
  /** Threads for evaluation; default: the machine's cores. */
  threads?: number;
  /** Context and batch size; must cover the longest input or the vector silently changes. */
  contextSize?: number;
  /** "auto" (default: CUDA/Vulkan/Metal when a prebuilt binary loads, else CPU), false for CPU only. */
  gpu?: "auto" | false | "cuda" | "vulkan" | "metal";
}

type GpuOption = NonNullable<NodeLlamaOptions["gpu"]>;

/** MEMO_LLAMA_GPU: off|cpu|false → CPU only; cuda|vulkan|metal → that backend (CPU if it fails); else auto. */
function gpuFromEnv(): GpuOption {
  const v = (process.env.MEMO_LLAMA_GPU ?? "").trim().toLowerCase();
  if (v === "off" || v === "cpu" || v === "false" || v === "0") return false;
  if (v === "cuda" || v === "vulkan" || v === "metal") return v;
  return "auto";
}

/** Scale to unit length, as llama-server does by default (--embd-normalize 2) so both engines agree. */
function l2normalize(v: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = norm > 0 ? v[i]! / norm : 0;
  return out;
}

/**
 * llama.cpp through node-llama-cpp's prebuilt binaries (CPU here; CUDA/Metal/Vulkan where present, falling
 * back to CPU when the GPU path fails). Never compiles or downloads anything (build: "never").
 *
 * batchSize is set equal to the context size so that every input fits in one batch: with a smaller batch
 * node-llama-cpp evaluates a long input in several batches and (mean pooling) returns a vector different
 * from llama-server's. Vectors are L2-normalised like llama-server's.
 */
export async function loadNodeLlama(opts: NodeLlamaOptions): Promise<EmbeddingEngine> {
  const { getLlama } = await import("node-llama-cpp");
  const threads = opts.threads ?? embedThreads();
  const wantGpu = opts.gpu ?? gpuFromEnv();

  const open = async (gpu: GpuOption) => {
    const llama = await getLlama({ build: "never", gpu, skipDownload: true, progressLogs: false });
    try {
      const model = await llama.loadModel({ modelPath: opts.modelPath });
      try {
        const train = model.trainContextSize || 2048;
        const contextSize = Math.max(8, Math.min(opts.contextSize ?? 2048, train));
        const ctx = await model.createEmbeddingContext({ contextSize, batchSize: contextSize, threads });
        return { llama, model, ctx, contextSize };
      } catch (e) {
        await model.dispose().catch(() => undefined);
        throw e;
      }
    } catch (e) {
      await llama.dispose().catch(() => undefined);
      throw e;
    }
  };

  let loaded: Awaited<ReturnType<typeof open>>;
  try {
    loaded = await open(wantGpu);
  } catch (e) {
    if (wantGpu === false) throw e;
    // A GPU binary that loads but cannot take the model (driver, memory): retry on the CPU.
    process.stderr.write(
      `[embedder] loading on GPU (${String(wantGpu)}) failed (${e instanceof Error ? e.message : String(e)}); retrying on CPU\n`,
    );
    loaded = await open(false);
  }
  const { llama, model, ctx, contextSize } = loaded;

  const dim = model.embeddingVectorSize;
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
    dim,
    cheapTokenize: true,
    description: `llama.cpp via node-llama-cpp (${describeBackend(llama.gpu)}, ${threads} threads, ctx ${contextSize}, batch ${contextSize}) on ${modelId}`,
    async embed(texts) {
      return serial(async () => {
        const out: number[][] = [];
        for (const t of texts) {
          let tokens = model.tokenize(t);
          if (tokens.length === 0) {
            // node-llama-cpp returns an empty vector for no tokens; llama-server embeds just [CLS] [SEP]
            const bos = model.tokens.bos;
            if (bos == null) throw new Error("cannot embed an empty input (0 tokens)");
            tokens = [bos];
          }
          // node-llama-cpp adds [CLS] … [SEP] and refuses inputs of contextSize tokens or more
          const n = ctx.calculateInputLength(tokens);
          if (n >= contextSize) {
            throw new Error(`input has ${n} tokens; the context holds ${contextSize - 1}`);
          }
          const e = await ctx.getEmbeddingFor(tokens);
          if (e.vector.length !== dim) {
            throw new Error(`llama.cpp returned a ${e.vector.length}-d vector; the model has ${dim} dimensions`);
          }
          out.push(l2normalize(e.vector));
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
