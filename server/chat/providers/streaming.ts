/** What both API clients share: request building and stream parsing (pure; unit-tested), error mapping, deadlines. */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { LocalServerUnavailableError } from "../local-server";
import {
  type ChatMessage,
  type JsonSchemaFormat,
  ProviderError,
  type ProviderErrorKind,
  type ProviderId,
} from "./types";

// ---------------------------------------------------------------------------------------------------------
// Request building and stream parsing (pure; unit-tested)

type OpenAIChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type AnthropicEvent = Anthropic.Messages.RawMessageStreamEvent;

interface RequestOptions {
  model: string;
  maxTokens?: number | null;
  temperature?: number | null;
  stream: boolean;
  jsonSchema?: JsonSchemaFormat;
}

export function toOpenAIRequest(
  messages: ChatMessage[],
  opts: RequestOptions,
): OpenAI.Chat.Completions.ChatCompletionCreateParams {
  const body: OpenAI.Chat.Completions.ChatCompletionCreateParams = {
    model: opts.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    stream: opts.stream,
  };
  if (opts.maxTokens != null) body.max_tokens = opts.maxTokens;
  if (opts.temperature != null) body.temperature = opts.temperature;
  if (opts.jsonSchema) body.response_format = { type: "json_schema", json_schema: opts.jsonSchema };
  return body;
}

/** The text a streamed chat-completion chunk adds (reasoning fields and tool calls are not reply text). */
export function openAIChunkText(chunk: OpenAIChunk): string {
  const c = chunk.choices?.[0]?.delta?.content;
  return typeof c === "string" ? c : "";
}

export function openAIChunkFinish(chunk: OpenAIChunk): string | null {
  return chunk.choices?.[0]?.finish_reason ?? null;
}

/**
 * Anthropic's Messages API takes the system prompt apart, wants the conversation to start with a user
 * turn and (for a reply) to end with one; consecutive turns of one role are merged.
 */
export function toAnthropicRequest(
  messages: ChatMessage[],
  opts: RequestOptions,
): Anthropic.Messages.MessageCreateParams {
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content.trim())
    .filter(Boolean)
    .join("\n\n");
  const turns: { role: "user" | "assistant"; content: string }[] = [];
  for (const m of messages) {
    if (m.role === "system" || !m.content.trim()) continue;
    const last = turns.at(-1);
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else turns.push({ role: m.role, content: m.content });
  }
  while (turns.length && turns[0]!.role !== "user") turns.shift();
  if (!turns.length) throw new ProviderError("bad_request", "there is no user message to answer", "anthropic");
  const body: Anthropic.Messages.MessageCreateParams = {
    model: opts.model,
    max_tokens: opts.maxTokens ?? 4096,
    messages: turns,
    stream: opts.stream,
  };
  if (system) body.system = system;
  if (opts.jsonSchema) {
    // Anthropic's structured output: one tool it must call, whose input is the answer (anthropicToolAnswer).
    body.tools = [
      {
        name: opts.jsonSchema.name,
        description: "Record the answer, in exactly this schema.",
        input_schema: opts.jsonSchema.schema as Anthropic.Messages.Tool.InputSchema,
      },
    ];
    body.tool_choice = { type: "tool", name: opts.jsonSchema.name };
  }
  // No temperature: this API version's models choose their own sampling (the SDK has no such field).
  return body;
}

/** A structured answer from Anthropic: the input of the tool named by the schema, as JSON text ("" when absent). */
export function anthropicToolAnswer(content: Anthropic.Messages.ContentBlock[], name: string): string {
  const call = content.find((b) => b.type === "tool_use" && b.name === name);
  return call && call.type === "tool_use" ? JSON.stringify(call.input) : "";
}

/** The text an Anthropic stream event adds (text deltas only; thinking and tool input are not reply text). */
export function anthropicEventText(ev: AnthropicEvent): string {
  return ev.type === "content_block_delta" && ev.delta.type === "text_delta" ? ev.delta.text : "";
}

/** An `error` event inside an Anthropic stream (overloaded and the like), as a ProviderError. */
export function anthropicEventError(ev: unknown): ProviderError | null {
  const e = ev as { type?: string; error?: { type?: string; message?: string } };
  if (e?.type !== "error") return null;
  const kind: ProviderErrorKind =
    e.error?.type === "overloaded_error" || e.error?.type === "rate_limit_error" ? "rate_limited" : "upstream";
  return new ProviderError(
    kind,
    `Anthropic reported an error mid-reply: ${e.error?.message ?? e.error?.type ?? "unknown"}`,
    "anthropic",
  );
}

// ---------------------------------------------------------------------------------------------------------
// Error mapping

function causeCode(e: unknown): string | null {
  let c: unknown = e;
  for (let i = 0; i < 5 && c; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return null;
}

/** The message of the deepest cause (fetch's "fetch failed" hides the reason, e.g. "bad port"). */
function innermostMessage(e: unknown): string {
  let c: unknown = e;
  let msg = e instanceof Error ? e.message : String(e);
  for (let i = 0; i < 5 && c; i++) {
    if (c instanceof Error && c.message) msg = c.message;
    c = (c as { cause?: unknown }).cause;
  }
  return msg;
}

/**
 * The provider's own error message, from its JSON error shape (`{"error":{"message":…}}`), short; never the
 * raw body nor a JSON body without one (issue 58: a base URL pointed at another service must not show its
 * answer on the page — the SDKs put a non-JSON body, or the whole JSON, in their error's message).
 */
function upstreamMessage(e: unknown): string {
  const err = (e as { error?: unknown }).error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const m = typeof err?.message === "string" ? err.message : err?.error?.message;
  if (typeof m !== "string" || !m.trim()) return "no error message in a provider's format";
  return m.replace(/\s+/g, " ").trim().slice(0, 200);
}

/**
 * Translate an SDK or network error into a ProviderError with a readable message. The provider's API key
 * (`ctx.secret`) never appears in it, even when an upstream or proxy echoes it back in its error: these
 * messages are logged and shown on the page.
 */
export function toProviderError(
  e: unknown,
  ctx: { provider: ProviderId; label: string; where: string; model: string | null; secret?: string | null },
): ProviderError {
  const pe = describeProviderError(e, ctx);
  const secret = ctx.secret;
  if (!secret || secret.length < 6 || !pe.message.includes(secret)) return pe;
  return new ProviderError(pe.kind, pe.message.split(secret).join("[redacted]"), pe.provider);
}

function describeProviderError(
  e: unknown,
  ctx: { provider: ProviderId; label: string; where: string; model: string | null },
): ProviderError {
  if (e instanceof ProviderError) return e;
  if (e instanceof LocalServerUnavailableError) return new ProviderError("unavailable", e.message, ctx.provider);
  const name = (e as { name?: string })?.name ?? "";
  const status = (e as { status?: unknown })?.status;
  const is = (cls: { name: string }, ...classes: (abstract new (...args: never[]) => unknown)[]) =>
    classes.some((c) => e instanceof c) || (e as object)?.constructor?.name === cls.name;
  if (is(OpenAI.APIUserAbortError, OpenAI.APIUserAbortError, Anthropic.APIUserAbortError) || name === "AbortError") {
    return new ProviderError("aborted", "The request was cancelled.", ctx.provider);
  }
  if (is(OpenAI.APIConnectionTimeoutError, OpenAI.APIConnectionTimeoutError, Anthropic.APIConnectionTimeoutError)) {
    return new ProviderError("timeout", `${ctx.label} did not answer in time (${ctx.where}).`, ctx.provider);
  }
  const connection = is(OpenAI.APIConnectionError, OpenAI.APIConnectionError, Anthropic.APIConnectionError);
  const errBody = (e as { error?: { type?: string; error?: { type?: string } } })?.error;
  const errType = errBody?.error?.type ?? errBody?.type;
  if (typeof status !== "number" && (errType === "overloaded_error" || errType === "rate_limit_error")) {
    return new ProviderError(
      "rate_limited",
      `${ctx.label} is overloaded right now (${upstreamMessage(e)}). Try again shortly.`,
      ctx.provider,
    );
  }
  if (connection || (typeof status !== "number" && causeCode(e))) {
    const code = causeCode(e);
    const why =
      code === "ECONNREFUSED"
        ? "connection refused — is it running?"
        : code === "ENOTFOUND"
          ? "host not found"
          : (code ?? innermostMessage(e));
    return new ProviderError("unreachable", `Cannot reach ${ctx.label} at ${ctx.where}: ${why}`, ctx.provider);
  }
  if (typeof status === "number") {
    const msg = upstreamMessage(e);
    if (status === 401 || status === 403) {
      return new ProviderError(
        "auth",
        `${ctx.label} rejected the API key (HTTP ${status}: ${msg}). Check the key in Settings → Providers.`,
        ctx.provider,
      );
    }
    if (status === 404) {
      if (/model/i.test(msg)) {
        return new ProviderError(
          "bad_model",
          `${ctx.label} has no model '${ctx.model ?? "?"}' (${msg}). Pick another model in Settings → Providers.`,
          ctx.provider,
        );
      }
      return new ProviderError(
        "bad_url",
        `${ctx.label} answered 404 Not Found at ${ctx.where}: check the base URL (it usually ends in /v1).`,
        ctx.provider,
      );
    }
    if (status === 429)
      return new ProviderError(
        "rate_limited",
        `${ctx.label} is rate-limiting requests (HTTP 429: ${msg}). Try again shortly.`,
        ctx.provider,
      );
    if (status === 408 || status === 504)
      return new ProviderError("timeout", `${ctx.label} timed out (HTTP ${status}).`, ctx.provider);
    if (status === 400 || status === 422) {
      if (/model/i.test(msg) && /(not|unknown|invalid|exist|found)/i.test(msg)) {
        return new ProviderError(
          "bad_model",
          `${ctx.label} does not accept the model '${ctx.model ?? "?"}' (${msg}).`,
          ctx.provider,
        );
      }
      return new ProviderError(
        "bad_request",
        `${ctx.label} refused the request (HTTP ${status}: ${msg}).`,
        ctx.provider,
      );
    }
    if (status === 503)
      return new ProviderError("unavailable", `${ctx.label} is unavailable (HTTP 503: ${msg}).`, ctx.provider);
    return new ProviderError("upstream", `${ctx.label} failed (HTTP ${status}: ${msg}).`, ctx.provider);
  }
  // undici reports a connection dropped mid-body as a bare TypeError "terminated".
  if (/^terminated$/i.test(innermostMessage(e)) || /^terminated$/i.test((e as Error)?.message ?? "")) {
    return new ProviderError(
      "upstream",
      `${ctx.label} closed the connection before the reply finished (${ctx.where}).`,
      ctx.provider,
    );
  }
  return new ProviderError("upstream", `${ctx.label} failed: ${upstreamMessage(e)}`, ctx.provider);
}

// ---------------------------------------------------------------------------------------------------------
// Deadlines: a wait for the first token and between tokens

/**
 * An AbortSignal that fires when the caller's signal does, or when `ms` pass without touch(); `timedOut`
 * says which. Callers touch() on every chunk, so a long reply that keeps streaming never times out.
 */
export class Deadline {
  /** The deadline of one generation: the caller's timeout (else the provider's) and the caller's signal. */
  static of(
    opts: { timeoutMs?: number; signal?: AbortSignal },
    defaultMs: number,
  ): { timeoutMs: number; deadline: Deadline } {
    const timeoutMs = opts.timeoutMs ?? defaultMs;
    return { timeoutMs, deadline: new Deadline(timeoutMs, opts.signal) };
  }

  /** The error of a request this deadline ended (it ran out, or the caller cancelled it), else null. */
  stopped(timedOut: string, provider: ProviderId): ProviderError | null {
    if (this.timedOut) return new ProviderError("timeout", timedOut, provider);
    // Cancelled by the caller (client gone, shutdown): whatever reason the signal carries, say "aborted".
    if (this.signal.aborted) return new ProviderError("aborted", "The request was cancelled.", provider);
    return null;
  }

  readonly controller = new AbortController();
  timedOut = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly onAbort = () => this.controller.abort((this.outer as AbortSignal).reason);

  constructor(
    private readonly ms: number,
    private readonly outer?: AbortSignal,
  ) {
    if (outer?.aborted) this.controller.abort(outer.reason);
    outer?.addEventListener("abort", this.onAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error("timeout"));
    }, this.ms);
    this.timer.unref?.();
  }

  done(): void {
    if (this.timer) clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onAbort);
  }
}
