/**
 * Memo as an OpenAI-compatible endpoint (docs/architecture.md#apis-for-other-programs): POST /v1/chat/completions recalls memories for the last
 * user message into the system prompt, forwards the request to the configured provider, answers in
 * OpenAI's shapes (streaming or not) and persists the exchange, so any OpenAI client gains memory.
 * GET /v1/models lists what is configured.
 *
 * Space: the `x-memo-space` header, else the body field `memo_space`, else "personal".
 * Model: "memo" (the selected provider and its model), "<provider>:<model>" (e.g. "openai:gpt-4o-mini",
 * "llama:qwen2.5-1.5b", "anthropic:claude-sonnet-4-5"), or any other name, passed to the selected provider.
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { z } from "zod";
import { formatZod, MAX_JSON_BYTES, readCapped } from "./rest";
import { findNul, nulMessage } from "./guard";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { SPACE_RE } from "../core/space-name";
import type { RecalledMemory } from "../chat/conversations";
import { planFor, sentMemory, type SentMemory } from "../chat/memory-policy";
import { persistQueue, type PersistQueue } from "../chat/persist";
import { logPrompt } from "../chat/prompt-log";
import {
  createProvider,
  isConfigured,
  PROVIDER_IDS,
  ProviderError,
  resolveProviderConfig,
  type ChatMessage,
  type ChatProvider,
  type CompletionResult,
  type ProviderId,
} from "../chat/providers";
import { sseFrame } from "../chat/sse";
import { NO_RECALL, recallForPrompt } from "../chat/turn";

export const MEMO_MODEL = "memo";
export const MEMORY_PREAMBLE =
  "Memories recalled by Memo from earlier conversations with this user (dated; use them when they help):";

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
});

export const chatCompletionRequest = z.looseObject({
  model: z.string().trim().min(1, "model must not be empty").max(200),
  messages: z.array(messageSchema).min(1, "messages must not be empty").max(2000),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  n: z.number().int().min(1).max(1).nullable().optional(),
  tools: z.array(z.unknown()).nullable().optional(),
  functions: z.array(z.unknown()).nullable().optional(),
  memo_space: z.string().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

/** An error in OpenAI's JSON shape. */
export class OpenAIHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function openAIErrorResponse(e: unknown): Response {
  let err: OpenAIHttpError;
  if (e instanceof OpenAIHttpError) err = e;
  else if (e instanceof ProviderError) err = fromProviderError(e);
  else if (e instanceof ServiceError)
    err = new OpenAIHttpError(e.status, e.message, e.status >= 500 ? "server_error" : "invalid_request_error");
  else {
    console.error("[v1] unexpected error", e);
    err = new OpenAIHttpError(500, "internal error; see the Memo server log", "server_error");
  }
  return Response.json(
    { error: { message: err.message, type: err.type, param: err.param, code: err.code } },
    { status: err.status },
  );
}

function fromProviderError(e: ProviderError): OpenAIHttpError {
  const type =
    e.kind === "bad_model"
      ? "invalid_request_error"
      : e.kind === "rate_limited"
        ? "rate_limit_error"
        : e.kind === "bad_request"
          ? "invalid_request_error"
          : "server_error";
  const code =
    e.kind === "bad_model"
      ? "model_not_found"
      : e.kind === "not_configured"
        ? "provider_not_configured"
        : `provider_${e.kind}`;
  return new OpenAIHttpError(
    e.status === 499 ? 499 : e.status,
    e.message,
    type,
    code,
    e.kind === "bad_model" ? "model" : null,
  );
}

/** Read and validate the body; OpenAIHttpError (400/413) otherwise. */
export async function readCompletionRequest(req: Request): Promise<ChatCompletionRequest> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_JSON_BYTES) throw new OpenAIHttpError(413, `request body is larger than ${MAX_JSON_BYTES} bytes`);
  const buf = await readCapped(
    req,
    MAX_JSON_BYTES,
    (n) => new OpenAIHttpError(413, `request body is larger than ${n} bytes`),
  );
  if (buf.byteLength === 0) throw new OpenAIHttpError(400, "request body is empty; send a JSON object");
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buf));
  } catch {
    throw new OpenAIHttpError(400, "request body is not valid UTF-8 JSON");
  }
  const parsed = chatCompletionRequest.safeParse(data);
  if (!parsed.success)
    throw new OpenAIHttpError(
      400,
      formatZod(parsed.error),
      "invalid_request_error",
      "invalid_request",
      String(parsed.error.issues[0]?.path[0] ?? "") || null,
    );
  const nul = findNul(parsed.data);
  if (nul)
    throw new OpenAIHttpError(
      400,
      nulMessage(nul),
      "invalid_request_error",
      "invalid_request",
      nul.length ? String(nul[0]) : null,
    );
  if (parsed.data.tools?.length || parsed.data.functions?.length) {
    throw new OpenAIHttpError(
      400,
      "tools and functions are not supported by Memo's endpoint",
      "invalid_request_error",
      "unsupported_parameter",
      "tools",
    );
  }
  return parsed.data;
}

function text(content: ChatCompletionRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (p.type === "text" || p.type === "input_text" ? (p.text ?? "") : "")).join("");
  return "";
}

/** The space of a request: header, then body field, then the default; 400 for an invalid name. */
export function requestSpace(req: Request, body: ChatCompletionRequest): string {
  const s = req.headers.get("x-memo-space") ?? body.memo_space ?? DEFAULT_SPACE;
  if (!SPACE_RE.test(s))
    throw new OpenAIHttpError(
      400,
      "the space (x-memo-space header or memo_space field) must be 1–64 letters, digits, '-' or '_'",
      "invalid_request_error",
      "invalid_space",
      "memo_space",
    );
  return s;
}

/** Which provider and model a model name selects. */
export function resolveModel(
  db: Database.Database,
  model: string,
): { provider: ChatProvider; model: string | undefined } {
  const cfg = resolveProviderConfig(db);
  const m = /^(llama|openai|anthropic):(.*)$/.exec(model);
  if (m) {
    const id = m[1] as ProviderId;
    if (!isConfigured(cfg, id).ok)
      throw new OpenAIHttpError(
        404,
        `provider '${id}' is not configured in Memo`,
        "invalid_request_error",
        "model_not_found",
        "model",
      );
    return { provider: createProvider(cfg, id), model: m[2] || undefined };
  }
  if (!cfg.active.value)
    throw new ProviderError(
      "not_configured",
      "Memo has no chat provider configured; set one in Settings → Providers or with MEMO_PROVIDER.",
    );
  const provider = createProvider(cfg, cfg.active.value);
  return { provider, model: model === MEMO_MODEL ? undefined : model };
}

/** GET /v1/models: "memo" and "<provider>:<model>" for each configured provider. */
export function listModels(db: Database.Database): {
  object: "list";
  data: { id: string; object: "model"; created: number; owned_by: string }[];
} {
  const cfg = resolveProviderConfig(db);
  const data: { id: string; object: "model"; created: number; owned_by: string }[] = [];
  if (cfg.active.value && isConfigured(cfg, cfg.active.value).ok)
    data.push({ id: MEMO_MODEL, object: "model", created: 0, owned_by: `memo (${cfg.active.value})` });
  for (const id of PROVIDER_IDS) {
    if (!isConfigured(cfg, id).ok) continue;
    const p = createProvider(cfg, id);
    if (p.model) data.push({ id: `${id}:${p.model}`, object: "model", created: 0, owned_by: id });
  }
  return { object: "list", data };
}

export interface PreparedCompletion {
  space: string;
  provider: ChatProvider;
  model: string | undefined;
  messages: ChatMessage[];
  lastUser: string;
  recalled: RecalledMemory[];
  recallError: string | null;
  /** What memory went to the provider (the exact text added to the system prompt, or none and why). */
  sent: SentMemory;
  maxTokens: number | undefined;
  temperature: number | undefined;
}

/** Turn the request into provider messages with the memory block in the system prompt. */
export async function prepareCompletion(
  memo: MemoContext,
  req: Request,
  body: ChatCompletionRequest,
): Promise<PreparedCompletion> {
  const space = requestSpace(req, body);
  const { provider, model } = resolveModel(memo.db, body.model);
  const msgs = body.messages
    .filter((m) => m.role !== "tool" && m.role !== "function")
    .map((m) => ({ role: m.role === "developer" ? "system" : m.role, content: text(m.content) }) as ChatMessage);
  const userTexts = msgs.filter((m) => m.role === "user").map((m) => m.content);
  const lastUser = userTexts.at(-1);
  if (!lastUser?.trim())
    throw new OpenAIHttpError(
      400,
      "messages must contain a user message with text",
      "invalid_request_error",
      "invalid_request",
      "messages",
    );
  // The chat turn's sharing rules (server/chat/memory-policy.ts); no one here can be asked, so an undecided remote provider gets none.
  const plan = planFor(memo.db, { recall: true, store: true, temporary: false }, provider.id, false);
  const recall = plan.recall
    ? await recallForPrompt(
        memo,
        { space, query: lastUser, context: userTexts.slice(0, -1).slice(-3) },
        { only: plan.only },
      )
    : NO_RECALL;
  const messages = [...msgs];
  let memory = "";
  if (recall.block) {
    memory = `${MEMORY_PREAMBLE}\n\n${recall.block}`;
    const sys = messages.findIndex((m) => m.role === "system");
    if (sys >= 0) messages[sys] = { role: "system", content: `${messages[sys]!.content}\n\n${memory}` };
    else messages.unshift({ role: "system", content: memory });
  }
  return {
    space,
    provider,
    model,
    messages,
    lastUser,
    recalled: recall.memories,
    recallError: recall.error,
    sent: sentMemory(
      plan,
      memory,
      recall.memories.map((m) => m.id),
    ),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
  };
}

/**
 * Persist the exchange through the pending_exchanges outbox (recoverable after a crash); a reply cut short
 * is persisted with what was sent, without a note (the client saw the cut itself).
 */
function persistAfter(queue: PersistQueue, p: PreparedCompletion, reply: string, at: string): void {
  if (!reply.trim()) return;
  void queue.enqueueApiExchange({
    space: p.space,
    user: p.lastUser,
    assistant: reply,
    timestamp: at,
    source: "OpenAI-compatible API",
  });
}

const memoInfo = (p: PreparedCompletion) => ({
  space: p.space,
  recall_error: p.recallError,
  memory: { provider: p.sent.provider, shared: p.sent.sharing, reason: p.sent.reason, block: p.sent.block },
  recalled: p.recalled.map((m) => ({
    id: m.id,
    content: m.content,
    timestamp: m.timestamp,
    match_type: m.matchType,
    importance: m.importance,
    scores: m.scores,
  })),
});

/** Non-streaming: one chat.completion object. */
export async function completeNonStreaming(
  _memo: MemoContext,
  p: PreparedCompletion,
  signal: AbortSignal,
  queue = persistQueue(),
): Promise<Response> {
  const at = new Date().toISOString();
  logPrompt("/v1/chat/completions", p.sent.provider, p.messages);
  const r: CompletionResult = await p.provider.complete(p.messages, {
    model: p.model,
    maxTokens: p.maxTokens,
    temperature: p.temperature,
    signal,
  });
  persistAfter(queue, p, r.text, at);
  return Response.json(
    {
      id: `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: r.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: r.text },
          finish_reason: mapFinish(r.finishReason),
          logprobs: null,
        },
      ],
      usage: r.usage
        ? {
            prompt_tokens: r.usage.inputTokens,
            completion_tokens: r.usage.outputTokens,
            total_tokens: r.usage.inputTokens + r.usage.outputTokens,
          }
        : undefined,
      memo: memoInfo(p),
    },
    { headers: memoHeaders(p) },
  );
}

/**
 * For clients that care what left the machine: the ids of the memories sent with the prompt
 * (comma-separated, empty when none) and the sharing that applied (on, pinned, off, ask).
 */
function memoHeaders(p: PreparedCompletion): Record<string, string> {
  return { "x-memo-space": p.space, "x-memo-recalled": p.sent.ids.join(","), "x-memo-memory-shared": p.sent.sharing };
}

/** Anthropic's stop reasons in OpenAI's words. */
function mapFinish(f: string | null): string {
  if (f === "end_turn" || f === "stop_sequence" || f === "stop" || f === null) return "stop";
  if (f === "max_tokens" || f === "length") return "length";
  return f;
}

/**
 * Streaming: the first token is awaited before the response starts, so a provider that is down, refuses
 * the key or lacks the model answers with a proper HTTP error; later failures end the stream with an
 * error event.
 */
export async function completeStreaming(
  _memo: MemoContext,
  p: PreparedCompletion,
  body: ChatCompletionRequest,
  signal: AbortSignal,
  queue = persistQueue(),
): Promise<Response> {
  const at = new Date().toISOString();
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  logPrompt("/v1/chat/completions (stream)", p.sent.provider, p.messages);
  const gen = p.provider.stream(p.messages, {
    model: p.model,
    maxTokens: p.maxTokens,
    temperature: p.temperature,
    signal: abort.signal,
  });
  const first = await gen.next(); // throws ProviderError → an HTTP error response
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const modelName = p.model ?? p.provider.model ?? MEMO_MODEL;
  const encoder = new TextEncoder();
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    encoder.encode(
      sseFrame({
        id,
        object: "chat.completion.chunk",
        created,
        model: modelName,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      }),
    );
  let reply = "";
  let started = false;
  let persisted = false;
  const persistOnce = () => {
    if (persisted) return;
    persisted = true;
    persistAfter(queue, p, reply, at);
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          controller.enqueue(chunk({ role: "assistant", content: "" }, null));
          if (first.done) {
            controller.enqueue(chunk({}, mapFinish(first.value.finishReason)));
            controller.enqueue(encoder.encode("data: [DONE]\n\n"));
            controller.close();
            return;
          }
          reply += first.value;
          controller.enqueue(chunk({ content: first.value }, null));
          return;
        }
        const next = await gen.next();
        if (!next.done) {
          reply += next.value;
          controller.enqueue(chunk({ content: next.value }, null));
          return;
        }
        controller.enqueue(chunk({}, mapFinish(next.value.finishReason)));
        const u = next.value.usage;
        if (body.stream_options?.include_usage && u) {
          controller.enqueue(
            encoder.encode(
              sseFrame({
                id,
                object: "chat.completion.chunk",
                created,
                model: modelName,
                choices: [],
                usage: {
                  prompt_tokens: u.inputTokens,
                  completion_tokens: u.outputTokens,
                  total_tokens: u.inputTokens + u.outputTokens,
                },
              }),
            ),
          );
        }
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
        signal.removeEventListener("abort", onAbort);
        persistOnce();
      } catch (e) {
        const pe =
          e instanceof ProviderError ? e : new ProviderError("upstream", e instanceof Error ? e.message : String(e));
        signal.removeEventListener("abort", onAbort);
        persistOnce(); // what was generated and sent is part of the exchange
        controller.enqueue(
          encoder.encode(
            sseFrame({
              error: { message: pe.message, type: "server_error", param: null, code: `provider_${pe.kind}` },
            }),
          ),
        );
        controller.close();
      }
    },
    cancel() {
      // The client went away: stop the provider request now (no generation runs on for nobody).
      signal.removeEventListener("abort", onAbort);
      abort.abort(new Error("client disconnected"));
      void gen.return(undefined as never).catch(() => undefined);
      persistOnce(); // cut short by the client: what it received
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...memoHeaders(p),
    },
  });
}
