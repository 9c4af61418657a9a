/**
 * The local chat server: a separate process on its own loopback port that serves a GGUF chat model through
 * llama.cpp (node-llama-cpp's prebuilt binaries) and speaks the slice of the OpenAI API that llama-server
 * speaks: GET /health, GET /v1/models, POST /v1/chat/completions (streaming as server-sent events, or
 * not). Spawned and supervised by server/chat/local-server.ts; a native llama-server can stand in for it.
 *
 *   node --import tsx server/chat/llama-chat-main.ts --model path/to/chat.gguf [--port 0] [--threads 1]
 *
 * It prints {"event":"listening",...} and {"event":"ready",...} lines on stdout, and exits when its stdin
 * closes (--watch-stdin), so it never outlives the app that started it.
 */
import type http from "node:http";
import os from "node:os";
import path from "node:path";
import type {
  ChatHistoryItem,
  Llama,
  LlamaChat as LlamaChatType,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
} from "node-llama-cpp";
import { describeBackend } from "../embedder/engines/backend";
import { childArgs, serveChild } from "../ops/child-main";
import { readJsonBody, sendError, sendJson } from "../ops/node-json";

const MAX_BODY = 8 * 1024 * 1024;

const values = childArgs({
  parallel: { type: "string", default: "1" },
  "max-tokens": { type: "string", default: "2048" },
});

if (!values.model) {
  process.stderr.write("--model <path to a chat GGUF> is required\n");
  process.exit(2);
}
const modelPath = path.resolve(values.model);
const modelId = path.basename(modelPath).replace(/\.gguf$/i, "");
const defaultMaxTokens = Math.max(1, Number(values["max-tokens"]) || 2048);

interface Slot {
  chat: LlamaChatType;
  busy: boolean;
}

let llamaRuntime: Llama | undefined;
let model: LlamaModel | undefined;
let context: LlamaContext | undefined;
let slots: Slot[] = [];
let description = "";
const waiting: ((s: Slot) => void)[] = [];

function acquire(): Promise<Slot> {
  const free = slots.find((s) => !s.busy);
  if (free) {
    free.busy = true;
    return Promise.resolve(free);
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function release(slot: Slot): void {
  const next = waiting.shift();
  if (next) next(slot);
  else slot.busy = false;
}

const send = sendJson;
const error = sendError;
const readJson = (req: http.IncomingMessage) => readJsonBody(req, MAX_BODY);

interface ChatRequest {
  messages: { role: string; content: unknown }[];
  stream?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  /** Structured output, as llama-server takes it: `{ type: "json_schema", json_schema: { name, schema } }` becomes a grammar. */
  response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
}

/** Message content as text: a string, or the text parts of an array of content parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === "object" && (p as { type?: unknown }).type === "text"
          ? String((p as { text?: unknown }).text ?? "")
          : "",
      )
      .join("");
  }
  return "";
}

/** OpenAI messages → node-llama-cpp chat history, ending with the model turn to generate. */
function toHistory(messages: ChatRequest["messages"]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  for (const m of messages) {
    const text = contentText(m.content);
    if (m.role === "system" || m.role === "developer") history.push({ type: "system", text });
    else if (m.role === "user") history.push({ type: "user", text });
    else if (m.role === "assistant") history.push({ type: "model", response: [text] });
    else throw new Error(`unsupported message role '${m.role}'`);
  }
  if (history.at(-1)?.type === "model") throw new Error("the last message must not be from the assistant");
  history.push({ type: "model", response: [] });
  return history;
}

function validate(body: unknown): ChatRequest {
  const b = body as Partial<ChatRequest> | null;
  if (!b || typeof b !== "object") throw new Error("body must be a JSON object");
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw new Error("'messages' must be a non-empty array");
  for (const m of b.messages) {
    if (!m || typeof m !== "object" || typeof m.role !== "string") throw new Error("each message needs a 'role'");
  }
  for (const k of ["max_tokens", "max_completion_tokens", "temperature", "top_p", "seed"] as const) {
    if (b[k] !== undefined && b[k] !== null && typeof b[k] !== "number") throw new Error(`'${k}' must be a number`);
  }
  const rf = b.response_format;
  if (rf !== undefined && rf !== null) {
    if (typeof rf !== "object" || (rf.type !== "json_schema" && rf.type !== "text"))
      throw new Error("'response_format.type' must be 'json_schema' or 'text'");
    if (rf.type === "json_schema" && (!rf.json_schema || typeof rf.json_schema.schema !== "object"))
      throw new Error("'response_format.json_schema.schema' must be a JSON schema object");
  }
  return b as ChatRequest;
}

/** The grammar a json_schema response format asks for (the answer can then only be JSON of that schema). */
async function grammarFor(body: ChatRequest): Promise<LlamaGrammar | undefined> {
  const rf = body.response_format;
  if (rf?.type !== "json_schema" || !rf.json_schema) return undefined;
  // The schema is the caller's (checked by node-llama-cpp as it builds the grammar); its static type is unknown here.
  const schema = rf.json_schema.schema as Parameters<Llama["createGrammarForJsonSchema"]>[0];
  return await llamaRuntime!.createGrammarForJsonSchema(schema);
}

async function chatCompletions(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  let body: ChatRequest;
  let history: ChatHistoryItem[];
  let grammar: LlamaGrammar | undefined;
  try {
    body = validate(await readJson(req));
    history = toHistory(body.messages);
    grammar = await grammarFor(body);
  } catch (e) {
    return error(res, 400, e instanceof Error ? e.message : String(e));
  }
  const id = `chatcmpl-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const created = Math.floor(Date.now() / 1000);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? defaultMaxTokens;
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort(new Error("client went away"));
  });
  const slot = await acquire();
  try {
    if (abort.signal.aborted) return;
    const promptTokens = slot.chat.model.tokenize(
      history.map((h) => ("text" in h ? h.text : (h.response as string[]).join(""))).join("\n"),
    ).length;
    const sampling = {
      maxTokens,
      temperature: body.temperature ?? 0.8,
      topP: body.top_p,
      seed: body.seed,
      grammar,
      signal: abort.signal,
      stopOnAbortSignal: true,
    };
    if (body.stream) {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: modelId, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }, null));
      let completionTokens = 0;
      const r = await slot.chat.generateResponse(history, {
        ...sampling,
        onResponseChunk: (c) => {
          if (c.type !== undefined) return; // thoughts and other segments are not part of the reply
          completionTokens += c.tokens.length;
          if (c.text) res.write(chunk({ content: c.text }, null));
        },
      });
      if (abort.signal.aborted) return;
      const finish = r.metadata.stopReason === "maxTokens" ? "length" : "stop";
      res.write(chunk({}, finish));
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: modelId, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`,
      );
      res.end("data: [DONE]\n\n");
    } else {
      const r = await slot.chat.generateResponse(history, sampling);
      if (abort.signal.aborted) return;
      const completionTokens = slot.chat.model.tokenize(r.response).length;
      send(res, 200, {
        id,
        object: "chat.completion",
        created,
        model: modelId,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: r.response },
            finish_reason: r.metadata.stopReason === "maxTokens" ? "length" : "stop",
          },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      });
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!res.headersSent) error(res, 500, message, "server_error");
    else res.end(`data: ${JSON.stringify({ error: { code: 500, message, type: "server_error" } })}\n\n`);
  } finally {
    release(slot);
  }
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: string): Promise<void> {
  if (req.method === "GET" && (url === "/v1/models" || url === "/models")) {
    return send(res, 200, {
      object: "list",
      data: [
        {
          id: modelId,
          object: "model",
          created: 0,
          owned_by: "memo",
          meta: { n_ctx: context?.contextSize, n_ctx_train: model?.trainContextSize, engine: description },
        },
      ],
    });
  }
  if (req.method === "POST" && (url === "/v1/chat/completions" || url === "/chat/completions"))
    return await chatCompletions(req, res);
  return error(res, 404, "File Not Found", "not_found_error");
}

async function load(): Promise<Record<string, unknown>> {
  const { getLlama, LlamaChat } = await import("node-llama-cpp");
  const gpuEnv = (process.env.MEMO_LLAMA_GPU ?? "").trim().toLowerCase();
  const gpu = ["off", "cpu", "false", "0"].includes(gpuEnv)
    ? false
    : gpuEnv === "cuda" || gpuEnv === "vulkan" || gpuEnv === "metal"
      ? gpuEnv
      : "auto";
  let llama = await getLlama({ build: "never", gpu, skipDownload: true, progressLogs: false });
  try {
    model = await llama.loadModel({ modelPath });
  } catch (e) {
    if (gpu === false) throw e;
    process.stderr.write(
      `[chat-server] loading on ${llama.gpu || "cpu"} failed (${e instanceof Error ? e.message : String(e)}); retrying on CPU\n`,
    );
    llama = await getLlama({ build: "never", gpu: false, skipDownload: true, progressLogs: false });
    model = await llama.loadModel({ modelPath });
  }
  llamaRuntime = llama;
  // On a CPU, one thread fewer than the cores keeps the app responsive; tiny models want one.
  const threads = Number(values.threads) || Math.max(1, os.availableParallelism() - 1);
  const parallel = Math.max(1, Number(values.parallel) || 1);
  const contextSize = Math.min(Number(values["ctx-size"]) || 4096, model.trainContextSize || 4096) * parallel;
  context = await model.createContext({ contextSize, sequences: parallel, threads });
  slots = Array.from({ length: parallel }, () => ({
    chat: new LlamaChat({ contextSequence: context!.getSequence() }),
    busy: false,
  }));
  description = `llama.cpp via node-llama-cpp (${describeBackend(llama.gpu)}, ${threads} threads, ctx ${context.contextSize}, ${parallel} slot${parallel > 1 ? "s" : ""}, ${slots[0]!.chat.chatWrapper.wrapperName} template)`;
  return { model: modelId, engine: description };
}

serveChild({
  port: values.port,
  host: values.host,
  watchStdin: values["watch-stdin"],
  load,
  loadError: (e) => `failed to load chat model ${modelPath}: ${e instanceof Error ? e.message : String(e)}`,
  handle,
  close: async () => {
    await context?.dispose();
    await model?.dispose();
  },
});
