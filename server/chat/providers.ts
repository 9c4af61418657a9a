/**
 * Chat providers (SPEC §8): the local llama.cpp chat server (supervised child process), any
 * OpenAI-compatible endpoint (the official `openai` client) and Anthropic's Messages API (the official
 * SDK), behind one small interface: stream(messages) yields text, complete(messages) returns it.
 *
 * Configuration comes from Settings (the `settings` table, key `chat.providers`) and the environment:
 * a value saved in Settings wins, the environment fills in the rest. API keys stay on the server:
 * providerStatus() says only whether a key is set.
 *
 * Errors are ProviderErrors with a kind (down, auth, timeout, bad model, ...) and a message for people.
 */
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { z } from "zod";
import { modelsDir } from "../core/config";
import { getDb } from "../db";
import { getLocalChatServer, LocalServerUnavailableError } from "./local-server";
import { detectedServer, type DetectedServer } from "./detect-local";
import { deleteSetting, readSetting, writeSetting } from "../core/settings-store";

// ---------------------------------------------------------------------------------------------------------
// Types

export const PROVIDER_IDS = ["llama", "openai", "anthropic"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  llama: "Local llama.cpp",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface GenerateOptions {
  /** Model to use instead of the provider's configured one. */
  model?: string;
  maxTokens?: number;
  temperature?: number;
  /** Cancels the request (the caller went away). */
  signal?: AbortSignal;
  /** Longest wait for the first token and between tokens (default: the configured timeout). */
  timeoutMs?: number;
}

export interface CompletionResult {
  text: string;
  model: string;
  finishReason: string | null;
  usage: { inputTokens: number; outputTokens: number } | null;
}

export interface ChatProvider {
  readonly id: ProviderId;
  /** For people: "OpenAI-compatible (http://localhost:11434/v1)". */
  readonly label: string;
  /** The configured model (null: the endpoint's first model is used). */
  readonly model: string | null;
  /** Stream the reply as text deltas; the generator's return value says how it ended. */
  stream(messages: ChatMessage[], opts?: GenerateOptions): AsyncGenerator<string, CompletionResult, undefined>;
  /** The whole reply at once (non-chat uses too, e.g. merging two memories). */
  complete(messages: ChatMessage[], opts?: GenerateOptions): Promise<CompletionResult>;
  /** Models the endpoint offers. */
  listModels(signal?: AbortSignal): Promise<string[]>;
}

export type ProviderErrorKind =
  | "not_configured"
  | "unreachable"
  | "auth"
  | "timeout"
  | "bad_model"
  | "bad_url"
  | "rate_limited"
  | "bad_request"
  | "unavailable"
  | "upstream"
  | "aborted";

const STATUS_BY_KIND: Record<ProviderErrorKind, number> = {
  not_configured: 503,
  unreachable: 502,
  auth: 502,
  timeout: 504,
  bad_model: 404,
  bad_url: 502,
  rate_limited: 429,
  bad_request: 400,
  unavailable: 503,
  upstream: 502,
  aborted: 499,
};

/** A provider failure with a message meant for people and the HTTP status our APIs answer with. */
export class ProviderError extends Error {
  readonly status: number;
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly provider: ProviderId | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
    this.status = STATUS_BY_KIND[kind];
  }
}

// ---------------------------------------------------------------------------------------------------------
// Configuration: Settings over environment

const SETTINGS_KEY = "chat.providers";
export const DEFAULT_TIMEOUT_SEC = 120;
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
export const DEFAULT_MAX_TOKENS = 2048;

const trimmed = z.string().trim().max(2000);
export const savedProviderSettingsSchema = z.strictObject({
  active: z.enum(PROVIDER_IDS).nullable().optional(),
  openai: z.strictObject({ baseUrl: trimmed.optional(), apiKey: trimmed.optional(), model: trimmed.optional() }).optional(),
  anthropic: z.strictObject({ baseUrl: trimmed.optional(), apiKey: trimmed.optional(), model: trimmed.optional() }).optional(),
  llama: z.strictObject({ modelPath: trimmed.optional() }).optional(),
  timeoutSec: z.number().int().min(1).max(3600).optional(),
  maxTokens: z.number().int().min(1).max(200_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type SavedProviderSettings = z.infer<typeof savedProviderSettingsSchema>;

/** A change from the Settings page: "" clears a saved value (the environment applies again); undefined keeps it. */
export const providerSettingsPatchSchema = z.strictObject({
  active: z.enum(PROVIDER_IDS).nullable().optional(),
  openai: z.strictObject({ baseUrl: trimmed.optional(), apiKey: trimmed.optional(), model: trimmed.optional() }).optional(),
  anthropic: z.strictObject({ baseUrl: trimmed.optional(), apiKey: trimmed.optional(), model: trimmed.optional() }).optional(),
  llama: z.strictObject({ modelPath: trimmed.optional() }).optional(),
  timeoutSec: z.number().int().min(1).max(3600).nullable().optional(),
  maxTokens: z.number().int().min(1).max(200_000).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
});
export type ProviderSettingsPatch = z.infer<typeof providerSettingsPatchSchema>;

export function loadSavedProviderSettings(db: Database.Database): SavedProviderSettings {
  const saved = readSetting(db, SETTINGS_KEY);
  if (saved === undefined) return {};
  const parsed = savedProviderSettingsSchema.safeParse(saved);
  return parsed.success ? parsed.data : {};
}

function writeSaved(db: Database.Database, s: SavedProviderSettings): void {
  writeSetting(db, SETTINGS_KEY, s);
}

/** Apply a patch to the saved settings (one statement, so one transaction). */
export function saveProviderSettings(db: Database.Database, patch: ProviderSettingsPatch): SavedProviderSettings {
  const p = providerSettingsPatchSchema.parse(patch);
  if (p.openai?.baseUrl) checkBaseUrl(p.openai.baseUrl, "OpenAI-compatible base URL");
  if (p.anthropic?.baseUrl) checkBaseUrl(p.anthropic.baseUrl, "Anthropic base URL");
  const tx = db.transaction(() => {
    const cur = loadSavedProviderSettings(db);
    const next: SavedProviderSettings = structuredClone(cur);
    if (p.active !== undefined) next.active = p.active;
    for (const section of ["openai", "anthropic", "llama"] as const) {
      const patchSection = p[section] as Record<string, string | undefined> | undefined;
      if (!patchSection) continue;
      const target = { ...((next[section] as Record<string, string | undefined> | undefined) ?? {}) };
      for (const [k, v] of Object.entries(patchSection)) {
        if (v === undefined) continue;
        if (v === "") delete target[k];
        else target[k] = v;
      }
      (next as Record<string, unknown>)[section] = Object.keys(target).length ? target : undefined;
    }
    for (const k of ["timeoutSec", "maxTokens", "temperature"] as const) {
      if (p[k] === null) delete next[k];
      else if (p[k] !== undefined) next[k] = p[k] as number;
    }
    const clean = savedProviderSettingsSchema.parse(JSON.parse(JSON.stringify(next)));
    writeSaved(db, clean);
    return clean;
  });
  return tx();
}

/** Forget everything saved: the environment alone decides again. */
export function resetProviderSettings(db: Database.Database): void {
  deleteSetting(db, SETTINGS_KEY);
}

function checkBaseUrl(url: string, what: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ProviderError("bad_request", `${what} '${url}' is not a URL (example: http://localhost:11434/v1)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new ProviderError("bad_request", `${what} must start with http:// or https://`);
}

/** Ollama and LM Studio are often given without /v1: an endpoint URL with no path gets /v1. */
export function normalizeOpenAIBaseUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/v1";
  return u.toString().replace(/\/+$/, "");
}

/** "detected": a local OpenAI-compatible server found on loopback (server/chat/detect-local.ts). */
export type Source = "settings" | "env" | "default" | "detected" | null;

interface Sourced<T> {
  value: T;
  source: Source;
}

function pick<T>(saved: T | undefined, env: T | undefined, fallback?: T): Sourced<T | null> {
  if (saved !== undefined && saved !== "") return { value: saved, source: "settings" };
  if (env !== undefined && env !== "") return { value: env, source: "env" };
  if (fallback !== undefined) return { value: fallback, source: "default" };
  return { value: null, source: null };
}

export interface ProviderConfig {
  active: Sourced<ProviderId | null>;
  openai: { baseUrl: Sourced<string | null>; apiKey: Sourced<string | null>; model: Sourced<string | null> };
  anthropic: { baseUrl: Sourced<string | null>; apiKey: Sourced<string | null>; model: Sourced<string | null> };
  llama: { modelPath: Sourced<string | null> };
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
}

/** A chat GGUF in data/models/chat/ (the first by name), when no path is configured. */
function discoveredChatModel(): string | undefined {
  const dir = path.join(modelsDir(), "chat");
  if (!fs.existsSync(dir)) return undefined;
  const f = fs.readdirSync(dir).filter((n) => n.toLowerCase().endsWith(".gguf")).sort()[0];
  return f ? path.join(dir, f) : undefined;
}

function envProvider(): ProviderId | undefined {
  const v = process.env.MEMO_PROVIDER?.trim().toLowerCase();
  if (!v) return undefined;
  if ((PROVIDER_IDS as readonly string[]).includes(v)) return v as ProviderId;
  console.warn(`[chat] MEMO_PROVIDER='${process.env.MEMO_PROVIDER}' is not one of ${PROVIDER_IDS.join(", ")}; ignored`);
  return undefined;
}

/** The effective configuration: Settings over environment over defaults. */
export function resolveProviderConfig(db: Database.Database): ProviderConfig {
  const s = loadSavedProviderSettings(db);
  const env = process.env;
  const openaiKey = pick(s.openai?.apiKey, env.MEMO_OPENAI_API_KEY);
  const openaiBase = pick(s.openai?.baseUrl, env.MEMO_OPENAI_BASE_URL, openaiKey.value ? DEFAULT_OPENAI_BASE_URL : undefined);
  const cfg: ProviderConfig = {
    active: { value: null, source: null },
    openai: {
      baseUrl: openaiBase,
      apiKey: openaiKey,
      model: pick(s.openai?.model, env.MEMO_OPENAI_MODEL, openaiBase.value === DEFAULT_OPENAI_BASE_URL ? DEFAULT_OPENAI_MODEL : undefined),
    },
    anthropic: {
      baseUrl: pick(s.anthropic?.baseUrl, env.MEMO_ANTHROPIC_BASE_URL),
      apiKey: pick(s.anthropic?.apiKey, env.MEMO_ANTHROPIC_API_KEY),
      model: pick(s.anthropic?.model, env.MEMO_ANTHROPIC_MODEL, DEFAULT_ANTHROPIC_MODEL),
    },
    llama: { modelPath: pick(s.llama?.modelPath, env.MEMO_CHAT_MODEL, discoveredChatModel()) },
    timeoutMs: (s.timeoutSec ?? (Number(env.MEMO_PROVIDER_TIMEOUT_SEC) || DEFAULT_TIMEOUT_SEC)) * 1000,
    maxTokens: s.maxTokens ?? null,
    temperature: s.temperature ?? null,
  };
  if (s.active !== undefined) cfg.active = { value: s.active, source: "settings" };
  else {
    const e = envProvider();
    if (e) cfg.active = { value: e, source: "env" };
    else {
      // Nothing chosen: the first provider set up in Settings or the environment, else one found on disk
      // (a chat GGUF in data/models/chat/), else a local server found on loopback.
      const first = PROVIDER_IDS.find((id) => isConfigured(cfg, id).ok && explicitlySet(cfg, id)) ?? PROVIDER_IDS.find((id) => isConfigured(cfg, id).ok);
      cfg.active = { value: first ?? null, source: first ? "default" : null };
      if (!first) useDetected(cfg, detectedServer(db));
    }
  }
  // OpenAI-compatible picked (e.g. a model chosen in the chat page's picker) but given no endpoint of its
  // own: the detected local server still serves it.
  if (cfg.active.value === "openai" && !cfg.openai.baseUrl.value) useDetected(cfg, detectedServer(db), false);
  return cfg;
}

function explicitlySet(cfg: ProviderConfig, id: ProviderId): boolean {
  const src = id === "llama" ? cfg.llama.modelPath.source : id === "openai" ? cfg.openai.baseUrl.source : cfg.anthropic.apiKey.source;
  return src === "settings" || src === "env" || (id === "openai" && cfg.openai.apiKey.source !== null);
}

/** No provider configured: chat through the detected local server (with its first listed model unless one was picked). */
function useDetected(cfg: ProviderConfig, d: DetectedServer | null, activate = true): void {
  if (!d) return;
  cfg.openai.baseUrl = { value: d.baseUrl, source: "detected" };
  if (!cfg.openai.model.value) cfg.openai.model = { value: d.model, source: "detected" };
  if (activate) cfg.active = { value: "openai", source: "detected" };
}

/** Whether a provider has what it needs, and if not, what is missing (for people). */
export function isConfigured(cfg: ProviderConfig, id: ProviderId): { ok: boolean; missing: string | null } {
  switch (id) {
    case "llama": {
      const p = cfg.llama.modelPath.value;
      if (!p) return { ok: false, missing: "a chat model GGUF (MEMO_CHAT_MODEL, Settings, or a .gguf in data/models/chat/)" };
      if (!fs.existsSync(p)) return { ok: false, missing: `the chat model file ${p} (it does not exist)` };
      return { ok: true, missing: null };
    }
    case "openai":
      return cfg.openai.baseUrl.value ? { ok: true, missing: null } : { ok: false, missing: "a base URL (MEMO_OPENAI_BASE_URL) or an API key (MEMO_OPENAI_API_KEY)" };
    case "anthropic":
      return cfg.anthropic.apiKey.value ? { ok: true, missing: null } : { ok: false, missing: "an API key (MEMO_ANTHROPIC_API_KEY)" };
  }
}

export const HOW_TO_CONFIGURE =
  "No chat provider is configured. Open Settings → Providers and set one up (a local GGUF chat model, any " +
  "OpenAI-compatible endpoint such as Ollama, LM Studio, llama-server, vLLM or OpenAI, or Anthropic), or start " +
  "Memo with environment variables, e.g. MEMO_PROVIDER=openai MEMO_OPENAI_BASE_URL=http://localhost:11434/v1 " +
  "MEMO_OPENAI_MODEL=llama3.2, or MEMO_PROVIDER=llama MEMO_CHAT_MODEL=/path/to/model.gguf. " +
  "/remember and /forget work without a provider.";

/** What the browser may see: no keys, only whether each is set and where each value comes from. */
export interface ProviderStatus {
  active: ProviderId | null;
  activeSource: Source;
  ready: boolean;
  /** Why chat cannot work yet, and how to fix it (null when ready). */
  problem: string | null;
  timeoutSec: number;
  maxTokens: number | null;
  temperature: number | null;
  providers: {
    id: ProviderId;
    label: string;
    configured: boolean;
    missing: string | null;
    model: string | null;
    modelSource: Source;
    baseUrl: string | null;
    baseUrlSource: Source;
    apiKeySet: boolean;
    apiKeySource: Source;
    modelPath?: string | null;
    modelPathSource?: Source;
  }[];
}

export function providerStatus(db: Database.Database): ProviderStatus {
  const cfg = resolveProviderConfig(db);
  const c = (id: ProviderId) => isConfigured(cfg, id);
  const active = cfg.active.value;
  const activeOk = active ? c(active) : null;
  return {
    active,
    activeSource: cfg.active.source,
    ready: Boolean(activeOk?.ok),
    problem: !active ? HOW_TO_CONFIGURE : activeOk!.ok ? null : `${PROVIDER_LABELS[active]} is selected but needs ${activeOk!.missing}. ${HOW_TO_CONFIGURE}`,
    timeoutSec: Math.round(cfg.timeoutMs / 1000),
    maxTokens: cfg.maxTokens,
    temperature: cfg.temperature,
    providers: [
      {
        id: "llama",
        label: PROVIDER_LABELS.llama,
        configured: c("llama").ok,
        missing: c("llama").missing,
        model: cfg.llama.modelPath.value ? path.basename(cfg.llama.modelPath.value).replace(/\.gguf$/i, "") : null,
        modelSource: cfg.llama.modelPath.source,
        baseUrl: null,
        baseUrlSource: null,
        apiKeySet: false,
        apiKeySource: null,
        modelPath: cfg.llama.modelPath.value,
        modelPathSource: cfg.llama.modelPath.source,
      },
      {
        id: "openai",
        label: PROVIDER_LABELS.openai,
        configured: c("openai").ok,
        missing: c("openai").missing,
        model: cfg.openai.model.value,
        modelSource: cfg.openai.model.source,
        baseUrl: cfg.openai.baseUrl.value,
        baseUrlSource: cfg.openai.baseUrl.source,
        apiKeySet: Boolean(cfg.openai.apiKey.value),
        apiKeySource: cfg.openai.apiKey.source,
      },
      {
        id: "anthropic",
        label: PROVIDER_LABELS.anthropic,
        configured: c("anthropic").ok,
        missing: c("anthropic").missing,
        model: cfg.anthropic.model.value,
        modelSource: cfg.anthropic.model.source,
        baseUrl: cfg.anthropic.baseUrl.value,
        baseUrlSource: cfg.anthropic.baseUrl.source,
        apiKeySet: Boolean(cfg.anthropic.apiKey.value),
        apiKeySource: cfg.anthropic.apiKey.source,
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------
// Request building and stream parsing (pure; unit-tested)

type OpenAIChunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type AnthropicEvent = Anthropic.Messages.RawMessageStreamEvent;

export function toOpenAIRequest(
  messages: ChatMessage[],
  opts: { model: string; maxTokens?: number | null; temperature?: number | null; stream: boolean },
): OpenAI.Chat.Completions.ChatCompletionCreateParams {
  const body: OpenAI.Chat.Completions.ChatCompletionCreateParams = {
    model: opts.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    stream: opts.stream,
  };
  if (opts.maxTokens != null) body.max_tokens = opts.maxTokens;
  if (opts.temperature != null) body.temperature = opts.temperature;
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
  opts: { model: string; maxTokens?: number | null; temperature?: number | null; stream: boolean },
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
  // No temperature: this API version's models choose their own sampling (the SDK has no such field).
  return body;
}

/** The text an Anthropic stream event adds (text deltas only; thinking and tool input are not reply text). */
export function anthropicEventText(ev: AnthropicEvent): string {
  return ev.type === "content_block_delta" && ev.delta.type === "text_delta" ? ev.delta.text : "";
}

/** An `error` event inside an Anthropic stream (overloaded and the like), as a ProviderError. */
export function anthropicEventError(ev: unknown): ProviderError | null {
  const e = ev as { type?: string; error?: { type?: string; message?: string } };
  if (e?.type !== "error") return null;
  const kind: ProviderErrorKind = e.error?.type === "overloaded_error" || e.error?.type === "rate_limit_error" ? "rate_limited" : "upstream";
  return new ProviderError(kind, `Anthropic reported an error mid-reply: ${e.error?.message ?? e.error?.type ?? "unknown"}`, "anthropic");
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

function upstreamMessage(e: unknown): string {
  const err = (e as { error?: unknown }).error as { message?: string; error?: { message?: string } } | undefined;
  const m = err?.message ?? err?.error?.message ?? (e instanceof Error ? e.message : String(e));
  return String(m).replace(/\s+/g, " ").slice(0, 300);
}

/**
 * Translate an SDK or network error into a ProviderError with a readable message. The provider's API key
 * (`ctx.secret`) never appears in it, even when an upstream or proxy echoes it back in its error: these
 * messages are logged and shown on the page.
 */
export function toProviderError(e: unknown, ctx: { provider: ProviderId; label: string; where: string; model: string | null; secret?: string | null }): ProviderError {
  const pe = describeProviderError(e, ctx);
  const secret = ctx.secret;
  if (!secret || secret.length < 6 || !pe.message.includes(secret)) return pe;
  return new ProviderError(pe.kind, pe.message.split(secret).join("[redacted]"), pe.provider);
}

function describeProviderError(e: unknown, ctx: { provider: ProviderId; label: string; where: string; model: string | null }): ProviderError {
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
    return new ProviderError("rate_limited", `${ctx.label} is overloaded right now (${upstreamMessage(e)}). Try again shortly.`, ctx.provider);
  }
  if (connection || (typeof status !== "number" && causeCode(e))) {
    const code = causeCode(e);
    const why =
      code === "ECONNREFUSED" ? "connection refused — is it running?" : code === "ENOTFOUND" ? "host not found" : code ?? innermostMessage(e);
    return new ProviderError("unreachable", `Cannot reach ${ctx.label} at ${ctx.where}: ${why}`, ctx.provider);
  }
  if (typeof status === "number") {
    const msg = upstreamMessage(e);
    if (status === 401 || status === 403) {
      return new ProviderError("auth", `${ctx.label} rejected the API key (HTTP ${status}: ${msg}). Check the key in Settings → Providers.`, ctx.provider);
    }
    if (status === 404) {
      if (/model/i.test(msg)) {
        return new ProviderError("bad_model", `${ctx.label} has no model '${ctx.model ?? "?"}' (${msg}). Pick another model in Settings → Providers.`, ctx.provider);
      }
      return new ProviderError("bad_url", `${ctx.label} answered 404 Not Found at ${ctx.where}: check the base URL (it usually ends in /v1).`, ctx.provider);
    }
    if (status === 429) return new ProviderError("rate_limited", `${ctx.label} is rate-limiting requests (HTTP 429: ${msg}). Try again shortly.`, ctx.provider);
    if (status === 408 || status === 504) return new ProviderError("timeout", `${ctx.label} timed out (HTTP ${status}).`, ctx.provider);
    if (status === 400 || status === 422) {
      if (/model/i.test(msg) && /(not|unknown|invalid|exist|found)/i.test(msg)) {
        return new ProviderError("bad_model", `${ctx.label} does not accept the model '${ctx.model ?? "?"}' (${msg}).`, ctx.provider);
      }
      return new ProviderError("bad_request", `${ctx.label} refused the request (HTTP ${status}: ${msg}).`, ctx.provider);
    }
    if (status === 503) return new ProviderError("unavailable", `${ctx.label} is unavailable (HTTP 503: ${msg}).`, ctx.provider);
    return new ProviderError("upstream", `${ctx.label} failed (HTTP ${status}: ${msg}).`, ctx.provider);
  }
  // undici reports a connection dropped mid-body as a bare TypeError "terminated".
  if (/^terminated$/i.test(innermostMessage(e)) || /^terminated$/i.test((e as Error)?.message ?? "")) {
    return new ProviderError("upstream", `${ctx.label} closed the connection before the reply finished (${ctx.where}).`, ctx.provider);
  }
  return new ProviderError("upstream", `${ctx.label} failed: ${upstreamMessage(e)}`, ctx.provider);
}

// ---------------------------------------------------------------------------------------------------------
// Deadlines: a wait for the first token and between tokens

/**
 * An AbortSignal that fires when the caller's signal does, or when `ms` pass without touch(); `timedOut`
 * says which. Callers touch() on every chunk, so a long reply that keeps streaming never times out.
 */
class Deadline {
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

// ---------------------------------------------------------------------------------------------------------
// Providers

interface OpenAICompatibleOptions {
  id: ProviderId;
  label: string;
  /** Resolved before each request (the local server's URL is known once it is healthy). */
  baseUrl: (signal?: AbortSignal) => Promise<string>;
  apiKey: string | null;
  model: string | null;
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
  onTransportError?: () => void;
}

/** Any endpoint speaking the OpenAI chat-completions API, through the official `openai` client. */
export class OpenAICompatibleProvider implements ChatProvider {
  readonly id: ProviderId;
  readonly label: string;
  readonly model: string | null;
  private resolvedModel: string | null = null;
  private lastBase = "";

  constructor(private readonly o: OpenAICompatibleOptions) {
    this.id = o.id;
    this.label = o.label;
    this.model = o.model;
  }

  private async client(signal?: AbortSignal): Promise<OpenAI> {
    const baseURL = await this.o.baseUrl(signal);
    this.lastBase = baseURL;
    // maxRetries 0: a provider that is down should say so now, not after a minute of retries.
    return new OpenAI({ baseURL, apiKey: this.o.apiKey || "not-needed", maxRetries: 0, timeout: this.o.timeoutMs, dangerouslyAllowBrowser: false });
  }

  private ctx(model: string | null) {
    return { provider: this.id, label: this.label, where: this.lastBase || "(not started)", model, secret: this.o.apiKey };
  }

  /** The model to ask for: the option, the configured one, or the endpoint's first. */
  private async modelFor(opts: GenerateOptions, signal?: AbortSignal): Promise<string> {
    const m = opts.model || this.o.model || this.resolvedModel;
    if (m) return m;
    const models = await this.listModels(signal);
    if (!models[0]) throw new ProviderError("bad_model", `${this.label} lists no models; set one in Settings → Providers.`, this.id);
    this.resolvedModel = models[0];
    return models[0];
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const deadline = new Deadline(Math.min(this.o.timeoutMs, 15_000), signal);
    try {
      const client = await this.client(deadline.signal);
      const out: string[] = [];
      for await (const m of client.models.list({ signal: deadline.signal })) out.push(m.id);
      return out;
    } catch (e) {
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} did not list its models within ${Math.round(Math.min(this.o.timeoutMs, 15_000) / 1000)} s.`, this.id);
      throw this.fail(e, null);
    } finally {
      deadline.done();
    }
  }

  private fail(e: unknown, model: string | null): ProviderError {
    const pe = toProviderError(e, this.ctx(model));
    if (pe.kind === "unreachable") this.o.onTransportError?.();
    return pe;
  }

  async *stream(messages: ChatMessage[], opts: GenerateOptions = {}): AsyncGenerator<string, CompletionResult, undefined> {
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs;
    const deadline = new Deadline(timeoutMs, opts.signal);
    let model: string | null = null;
    try {
      model = await this.modelFor(opts, deadline.signal);
      const client = await this.client(deadline.signal);
      const body = toOpenAIRequest(messages, {
        model,
        maxTokens: opts.maxTokens ?? this.o.maxTokens,
        temperature: opts.temperature ?? this.o.temperature,
        stream: true,
      }) as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
      const stream = await client.chat.completions.create(body, { signal: deadline.signal, timeout: timeoutMs });
      let text = "";
      let finish: string | null = null;
      let usage: CompletionResult["usage"] = null;
      let answeredModel = model;
      for await (const chunk of stream) {
        deadline.touch();
        const err = (chunk as unknown as { error?: { message?: string } }).error;
        if (err) throw new ProviderError("upstream", `${this.label} reported an error mid-reply: ${err.message ?? "unknown"}`, this.id);
        if (chunk.model) answeredModel = chunk.model;
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        finish = openAIChunkFinish(chunk) ?? finish;
        const t = openAIChunkText(chunk);
        if (t) {
          text += t;
          yield t;
        }
      }
      // The SDK ends an aborted stream quietly: say why it stopped.
      if (deadline.signal.aborted) throw deadline.signal.reason ?? new Error("aborted");
      return { text, model: answeredModel, finishReason: finish, usage };
    } catch (e) {
      if (e instanceof LocalServerUnavailableError) throw this.fail(e, model);
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} sent nothing for ${Math.round(timeoutMs / 1000)} s (at ${this.lastBase || "?"}); giving up.`, this.id);
      // Cancelled by the caller (client gone, shutdown): whatever reason the signal carries, say "aborted".
      if (deadline.signal.aborted) throw new ProviderError("aborted", "The request was cancelled.", this.id);
      throw this.fail(e, model);
    } finally {
      deadline.done();
    }
  }

  async complete(messages: ChatMessage[], opts: GenerateOptions = {}): Promise<CompletionResult> {
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs;
    const deadline = new Deadline(timeoutMs, opts.signal);
    let model: string | null = null;
    try {
      model = await this.modelFor(opts, deadline.signal);
      const client = await this.client(deadline.signal);
      const body = toOpenAIRequest(messages, {
        model,
        maxTokens: opts.maxTokens ?? this.o.maxTokens,
        temperature: opts.temperature ?? this.o.temperature,
        stream: false,
      }) as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
      const r = await client.chat.completions.create(body, { signal: deadline.signal, timeout: timeoutMs });
      const choice = r.choices?.[0];
      return {
        text: typeof choice?.message?.content === "string" ? choice.message.content : "",
        model: r.model || model,
        finishReason: choice?.finish_reason ?? null,
        usage: r.usage ? { inputTokens: r.usage.prompt_tokens, outputTokens: r.usage.completion_tokens } : null,
      };
    } catch (e) {
      if (e instanceof LocalServerUnavailableError) throw this.fail(e, model);
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} did not answer within ${Math.round(timeoutMs / 1000)} s (at ${this.lastBase || "?"}).`, this.id);
      // Cancelled by the caller (client gone, shutdown): whatever reason the signal carries, say "aborted".
      if (deadline.signal.aborted) throw new ProviderError("aborted", "The request was cancelled.", this.id);
      throw this.fail(e, model);
    } finally {
      deadline.done();
    }
  }
}

interface AnthropicOptions {
  apiKey: string;
  model: string;
  baseUrl: string | null;
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
}

/** Anthropic's Messages API through the official SDK. */
export class AnthropicProvider implements ChatProvider {
  readonly id = "anthropic" as const;
  readonly label = PROVIDER_LABELS.anthropic;
  readonly model: string;
  private readonly client: Anthropic;

  constructor(private readonly o: AnthropicOptions) {
    this.model = o.model;
    this.client = new Anthropic({ apiKey: o.apiKey, baseURL: o.baseUrl ?? undefined, maxRetries: 0, timeout: o.timeoutMs });
  }

  private ctx(model: string | null) {
    return { provider: this.id, label: this.label, where: this.o.baseUrl ?? "api.anthropic.com", model, secret: this.o.apiKey };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const deadline = new Deadline(Math.min(this.o.timeoutMs, 15_000), signal);
    try {
      const out: string[] = [];
      for await (const m of this.client.models.list({ limit: 100 }, { signal: deadline.signal })) out.push(m.id);
      return out;
    } catch (e) {
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} did not list its models in time.`, this.id);
      throw toProviderError(e, this.ctx(null));
    } finally {
      deadline.done();
    }
  }

  async *stream(messages: ChatMessage[], opts: GenerateOptions = {}): AsyncGenerator<string, CompletionResult, undefined> {
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs;
    const deadline = new Deadline(timeoutMs, opts.signal);
    const model = opts.model || this.o.model;
    try {
      const body = toAnthropicRequest(messages, {
        model,
        maxTokens: opts.maxTokens ?? this.o.maxTokens,
        temperature: opts.temperature ?? this.o.temperature,
        stream: true,
      }) as Anthropic.Messages.MessageCreateParamsStreaming;
      const stream = await this.client.messages.create(body, { signal: deadline.signal, timeout: timeoutMs });
      let text = "";
      let finish: string | null = null;
      let answeredModel = model;
      let inputTokens = 0;
      let outputTokens = 0;
      for await (const ev of stream) {
        deadline.touch();
        const err = anthropicEventError(ev);
        if (err) throw err;
        if (ev.type === "message_start") {
          answeredModel = ev.message.model || model;
          inputTokens = ev.message.usage?.input_tokens ?? 0;
        } else if (ev.type === "message_delta") {
          finish = ev.delta.stop_reason ?? finish;
          outputTokens = ev.usage?.output_tokens ?? outputTokens;
        }
        const t = anthropicEventText(ev);
        if (t) {
          text += t;
          yield t;
        }
      }
      if (deadline.signal.aborted) throw deadline.signal.reason ?? new Error("aborted");
      return { text, model: answeredModel, finishReason: finish, usage: { inputTokens, outputTokens } };
    } catch (e) {
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} sent nothing for ${Math.round(timeoutMs / 1000)} s; giving up.`, this.id);
      // Cancelled by the caller (client gone, shutdown): whatever reason the signal carries, say "aborted".
      if (deadline.signal.aborted) throw new ProviderError("aborted", "The request was cancelled.", this.id);
      throw toProviderError(e, this.ctx(model));
    } finally {
      deadline.done();
    }
  }

  async complete(messages: ChatMessage[], opts: GenerateOptions = {}): Promise<CompletionResult> {
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs;
    const deadline = new Deadline(timeoutMs, opts.signal);
    const model = opts.model || this.o.model;
    try {
      const body = toAnthropicRequest(messages, {
        model,
        maxTokens: opts.maxTokens ?? this.o.maxTokens,
        temperature: opts.temperature ?? this.o.temperature,
        stream: false,
      }) as Anthropic.Messages.MessageCreateParamsNonStreaming;
      const r = await this.client.messages.create(body, { signal: deadline.signal, timeout: timeoutMs });
      const text = r.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      return { text, model: r.model || model, finishReason: r.stop_reason ?? null, usage: { inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens } };
    } catch (e) {
      if (deadline.timedOut) throw new ProviderError("timeout", `${this.label} did not answer within ${Math.round(timeoutMs / 1000)} s.`, this.id);
      // Cancelled by the caller (client gone, shutdown): whatever reason the signal carries, say "aborted".
      if (deadline.signal.aborted) throw new ProviderError("aborted", "The request was cancelled.", this.id);
      throw toProviderError(e, this.ctx(model));
    } finally {
      deadline.done();
    }
  }
}

/** Build a provider from the configuration; a ProviderError says what is missing. */
export function createProvider(cfg: ProviderConfig, id: ProviderId): ChatProvider {
  const conf = isConfigured(cfg, id);
  if (!conf.ok) throw new ProviderError("not_configured", `${PROVIDER_LABELS[id]} needs ${conf.missing}. ${HOW_TO_CONFIGURE}`, id);
  const common = { timeoutMs: cfg.timeoutMs, maxTokens: cfg.maxTokens, temperature: cfg.temperature };
  switch (id) {
    case "llama": {
      const modelPath = cfg.llama.modelPath.value!;
      const modelName = path.basename(modelPath).replace(/\.gguf$/i, "");
      const label = `${PROVIDER_LABELS.llama} (${modelName})`;
      return new OpenAICompatibleProvider({
        id,
        label,
        baseUrl: async (signal) => `${await getLocalChatServer(modelPath).ensureHealthy(cfg.timeoutMs, signal)}/v1`,
        apiKey: null,
        model: modelName,
        // The local server is slow to start a long prompt on a CPU; the default local max is its own.
        ...common,
        maxTokens: cfg.maxTokens ?? DEFAULT_MAX_TOKENS,
        onTransportError: () => getLocalChatServer(modelPath).reportFailure(),
      });
    }
    case "openai": {
      const base = normalizeOpenAIBaseUrl(cfg.openai.baseUrl.value!);
      return new OpenAICompatibleProvider({
        id,
        label: PROVIDER_LABELS.openai,
        baseUrl: async () => base,
        apiKey: cfg.openai.apiKey.value,
        model: cfg.openai.model.value,
        ...common,
      });
    }
    case "anthropic":
      return new AnthropicProvider({
        apiKey: cfg.anthropic.apiKey.value!,
        model: cfg.anthropic.model.value!,
        baseUrl: cfg.anthropic.baseUrl.value,
        ...common,
      });
  }
}

/** The selected provider (or `id`), ready to use; a ProviderError (not_configured) says how to set one up. */
export function getProvider(db: Database.Database, id?: ProviderId | null): ChatProvider {
  const cfg = resolveProviderConfig(db);
  const chosen = id ?? cfg.active.value;
  if (!chosen) throw new ProviderError("not_configured", HOW_TO_CONFIGURE);
  return createProvider(cfg, chosen);
}

/** Whether chat can be attempted at all (something is selected and has what it needs). */
export function hasProvider(db: Database.Database): boolean {
  return providerStatus(db).ready;
}

/**
 * A one-shot completion with the selected provider, for work that is not a chat turn (the consolidation
 * job merges two memories with it). Throws ProviderError (kind "not_configured" when there is none).
 */
export async function complete(
  messages: ChatMessage[],
  opts: GenerateOptions & { db?: Database.Database; provider?: ProviderId } = {},
): Promise<string> {
  const { db = getDb().sqlite, provider, ...rest } = opts;
  return (await getProvider(db, provider).complete(messages, rest)).text;
}
