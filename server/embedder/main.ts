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
import http from "node:http";
import { parseArgs } from "node:util";
import type { EmbeddingEngine } from "./engines/types";
import { readJsonBody, sendError, sendJson } from "../http/node-json";

const MAX_BODY = 16 * 1024 * 1024;
const MAX_INPUTS = 2048;

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    model: { type: "string" },
    threads: { type: "string" },
    "ctx-size": { type: "string" },
    "watch-stdin": { type: "boolean", default: false },
  },
});

let engine: EmbeddingEngine | undefined;
let loadError: string | undefined;

const send = sendJson;
const error = sendError;
const readJson = (req: http.IncomingMessage) => readJsonBody(req, MAX_BODY);

const server = http.createServer(async (req, res) => {
  const url = req.url?.split("?")[0] ?? "/";
  try {
    if (req.method === "GET" && url === "/health") {
      if (engine) return send(res, 200, { status: "ok" });
      if (loadError) return error(res, 500, loadError, "server_error");
      return error(res, 503, "Loading model", "unavailable_error");
    }
    if (!engine) return error(res, 503, loadError ?? "Loading model", "unavailable_error");
    if (req.method === "GET" && (url === "/v1/models" || url === "/models")) {
      return send(res, 200, {
        object: "list",
        data: [{ id: engine.modelId, object: "model", owned_by: "memo", meta: { n_embd: engine.dim, engine: engine.description } }],
      });
    }
    if (req.method === "POST" && (url === "/v1/embeddings" || url === "/embeddings")) {
      const body = (await readJson(req)) as { input?: unknown };
      const input = typeof body?.input === "string" ? [body.input] : body?.input;
      if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === "string")) {
        return error(res, 400, "'input' must be a non-empty string or array of strings");
      }
      if (input.length > MAX_INPUTS) return error(res, 400, `at most ${MAX_INPUTS} inputs per request`);
      const vectors = await engine.embed(input as string[]);
      let tokens = 0;
      if (engine.cheapTokenize) for (const s of input as string[]) tokens += (await engine.tokenize(s)).length;
      return send(res, 200, {
        object: "list",
        model: engine.modelId,
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        // llama-server reports usage; an engine whose tokenizer is slow leaves it out rather than guess.
        ...(engine.cheapTokenize ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
      });
    }
    if (req.method === "POST" && url === "/tokenize") {
      const body = (await readJson(req)) as { content?: unknown };
      if (typeof body?.content !== "string") return error(res, 400, "'content' must be a string");
      return send(res, 200, { tokens: await engine.tokenize(body.content) });
    }
    return error(res, 404, "File Not Found", "not_found_error");
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const client = /JSON|too large|tokens/.test(message);
    return error(res, client ? 400 : 500, message, client ? "invalid_request_error" : "server_error");
  }
});

async function load(): Promise<void> {
  try {
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
    process.stdout.write(
      JSON.stringify({ event: "ready", model: engine.modelId, dim: engine.dim, engine: engine.description }) + "\n",
    );
  } catch (e) {
    loadError = `failed to load embedding model: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(loadError + "\n");
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 50);
  }
}

server.listen(Number(values.port), values.host, () => {
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : Number(values.port);
  process.stdout.write(JSON.stringify({ event: "listening", port, host: values.host }) + "\n");
  void load();
});

if (values["watch-stdin"]) {
  // The parent holds our stdin open; when it dies (even by SIGKILL) the pipe closes and we follow.
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
}
for (const sig of ["SIGTERM", "SIGINT"] as const) {
  process.on(sig, () => {
    server.close();
    void engine?.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  });
}
