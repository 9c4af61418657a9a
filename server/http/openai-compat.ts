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
import type { MemoContext } from "../core/context";
import type { RecalledMemory } from "../chat/conversations";
import { decideLearning, type LearningDecision } from "../chat/learning-decision";
import { planFor, sentMemory, type SentMemory } from "../chat/memory-policy";
import { persistQueue, type PersistQueue } from "../chat/exchange-queue";
import { logPrompt } from "../chat/prompt-log";
import { ProviderError, type ChatMessage, type ChatProvider, type CompletionResult } from "../chat/providers";
import { sseFrame } from "../chat/sse";
import { NO_RECALL, provenanceOf, recallForPrompt } from "../chat/turn-recall";
import type { Provenance } from "../memory/store/provenance";

import {
  MEMO_MODEL,
  MEMORY_PREAMBLE,
  messageText,
  OpenAIHttpError,
  requestSpace,
  resolveModel,
  type ChatCompletionRequest,
} from "./openai-compat-request";

export {
  chatCompletionRequest,
  listModels,
  MEMO_MODEL,
  MEMORY_PREAMBLE,
  OpenAIHttpError,
  openAIErrorResponse,
  readCompletionRequest,
  requestSpace,
  resolveModel,
  type ChatCompletionRequest,
} from "./openai-compat-request";

export interface PreparedCompletion {
  space: string;
  provider: ChatProvider;
  model: string | undefined;
  messages: ChatMessage[];
  lastUser: string;
  recalled: RecalledMemory[];
  /** What the reply is given (recorded with the exchange: docs/retrieval.md#provenance). */
  provenance: Provenance;
  recallError: string | null;
  /** What memory went to the provider (the exact text added to the system prompt, or none and why). */
  sent: SentMemory;
  maxTokens: number | undefined;
  temperature: number | undefined;
  /** Whether and where the exchange is learnt from, decided with the request's one provider configuration. */
  learn: LearningDecision;
}

/** Turn the request into provider messages with the memory block in the system prompt. */
export async function prepareCompletion(
  memo: MemoContext,
  req: Request,
  body: ChatCompletionRequest,
): Promise<PreparedCompletion> {
  const space = requestSpace(req, body);
  const { provider, model, cfg } = resolveModel(memo.db, body.model);
  const msgs = body.messages
    .filter((m) => m.role !== "tool" && m.role !== "function")
    .map((m) => ({ role: m.role === "developer" ? "system" : m.role, content: messageText(m.content) }) as ChatMessage);
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
  const plan = planFor(memo.db, { recall: true, store: true, temporary: false }, provider.id, false, cfg);
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
    provenance: provenanceOf(recall),
    recallError: recall.error,
    sent: sentMemory(
      plan,
      memory,
      recall.memories.map((m) => m.id),
      memory ? recall.facts.map((f) => f.id) : [],
    ),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    learn: decideLearning(cfg, { provider: provider.id, model: model ?? null }),
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
    learn: p.learn,
    recalled: p.provenance,
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

/** The provider options of a prepared completion (the same for a streamed and a whole reply). */
const generateOptions = (p: PreparedCompletion, signal: AbortSignal) => ({
  model: p.model,
  maxTokens: p.maxTokens,
  temperature: p.temperature,
  signal,
});

/** A completion starts: the prompt is logged (when prompt logging is on); returns the exchange's timestamp. */
function startCompletion(p: PreparedCompletion, where: string): string {
  const at = new Date().toISOString();
  logPrompt(where, p.sent.provider, p.messages);
  return at;
}

/** Non-streaming: one chat.completion object. */
export async function completeNonStreaming(
  _memo: MemoContext,
  p: PreparedCompletion,
  signal: AbortSignal,
  queue = persistQueue(),
): Promise<Response> {
  const at = startCompletion(p, "/v1/chat/completions");
  const r: CompletionResult = await p.provider.complete(p.messages, generateOptions(p, signal));
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
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const at = startCompletion(p, "/v1/chat/completions (stream)");
  const gen = p.provider.stream(p.messages, generateOptions(p, abort.signal));
  const first = await gen.next(); // throws ProviderError → an HTTP error response
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const modelName = p.model ?? p.provider.model ?? MEMO_MODEL;
  const encoder = new TextEncoder();
  // One chat.completion.chunk event: a delta (chunk) or, at the end, the usage.
  const frame = (rest: Record<string, unknown>) =>
    encoder.encode(sseFrame({ id, object: "chat.completion.chunk", created, model: modelName, ...rest }));
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    frame({ choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
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
            frame({
              choices: [],
              usage: {
                prompt_tokens: u.inputTokens,
                completion_tokens: u.outputTokens,
                total_tokens: u.inputTokens + u.outputTokens,
              },
            }),
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
