/**
 * The embedding server: a separate process on its own loopback port, speaking llama-server's HTTP API
 * (/health, /v1/embeddings, /v1/models, /tokenize). Spawned and supervised by server/embedder/supervisor.ts.
 *
 *   node --import tsx server/embedder/main.ts --port 0 [--model path/to/model.gguf]
 *
 * With --model it serves a GGUF through llama.cpp (node-llama-cpp); without, the bundled Universal
 * Sentence Encoder lite. It prints one JSON line {"event":"listening",...} when ready, and exits when its
 * stdin closes, so it never outlives the app that started it.
 */
import type http from "node:http";
import { childArgs, serveChild } from "../ops/child-main";
import { readJsonBody, sendError, sendJson } from "../ops/node-json";
import type { EmbeddingEngine } from "./engines/types";

const MAX_BODY = 16 * 1024 * 1024;
const MAX_INPUTS = 2048;

const values = childArgs({});

let engine: EmbeddingEngine | undefined;

const send = sendJson;
const error = sendError;
const readJson = (req: http.IncomingMessage) => readJsonBody(req, MAX_BODY);

async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: string): Promise<void> {
  const e = engine!;
  try {
    if (req.method === "GET" && (url === "/v1/models" || url === "/models")) {
      return send(res, 200, {
        object: "list",
        data: [{ id: e.modelId, object: "model", owned_by: "memo", meta: { n_embd: e.dim, engine: e.description } }],
      });
    }
    if (req.method === "POST" && (url === "/v1/embeddings" || url === "/embeddings")) {
      const body = (await readJson(req)) as { input?: unknown };
      const input = typeof body?.input === "string" ? [body.input] : body?.input;
      if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === "string")) {
        return error(res, 400, "'input' must be a non-empty string or array of strings");
      }
      if (input.length > MAX_INPUTS) return error(res, 400, `at most ${MAX_INPUTS} inputs per request`);
      const vectors = await e.embed(input as string[]);
      let tokens = 0;
      if (e.cheapTokenize) for (const s of input as string[]) tokens += (await e.tokenize(s)).length;
      return send(res, 200, {
        object: "list",
        model: e.modelId,
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        // llama-server reports usage; an engine whose tokenizer is slow leaves it out rather than guess.
        ...(e.cheapTokenize ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
      });
    }
    if (req.method === "POST" && url === "/tokenize") {
      const body = (await readJson(req)) as { content?: unknown };
      if (typeof body?.content !== "string") return error(res, 400, "'content' must be a string");
      return send(res, 200, { tokens: await e.tokenize(body.content) });
    }
    return error(res, 404, "File Not Found", "not_found_error");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const client = /JSON|too large|tokens/.test(message);
    return error(res, client ? 400 : 500, message, client ? "invalid_request_error" : "server_error");
  }
}

async function load(): Promise<Record<string, unknown>> {
  if (values.model) {
    const { loadNodeLlama } = await import("./engines/node-llama");
    engine = await loadNodeLlama({
      modelPath: values.model,
      threads: values.threads ? Number(values.threads) : undefined,
      contextSize: values["ctx-size"] ? Number(values["ctx-size"]) : undefined,
    });
  } else {
    const { loadUseLite } = await import("./engines/use-lite");
    engine = await loadUseLite();
  }
  return { model: engine.modelId, dim: engine.dim, engine: engine.description };
}

serveChild({
  port: values.port,
  host: values.host,
  watchStdin: values["watch-stdin"],
  load,
  loadError: (e) => `failed to load embedding model: ${e instanceof Error ? e.message : String(e)}`,
  handle,
  close: async () => engine?.close(),
});
