/** The chat provider interface, its messages and results, and ProviderError. */

// ---------------------------------------------------------------------------------------------------------
// Types

export const PROVIDER_IDS = ["llama", "openai", "anthropic"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  llama: "Local llama.cpp",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

/** Where a configured value came from; "detected": a local OpenAI-compatible server found on loopback. */
export type Source = "settings" | "env" | "default" | "detected" | null;

export interface Sourced<T> {
  value: T;
  source: Source;
}

/** A family's resolved values, by the names its descriptor declares (families.ts `settings`). */
export type ProviderSection = Record<string, Sourced<string | null>>;

/** The effective configuration (config.ts resolveProviderConfig): Settings over environment over defaults. */
export interface ProviderConfig {
  active: Sourced<ProviderId | null>;
  /** Each registered family's section, by family id. */
  sections: Record<string, ProviderSection>;
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
}

/** One value of a family's section; a family or field with none reads as not set. */
export function sectionValue(cfg: ProviderConfig, id: string, name: string): Sourced<string | null> {
  return cfg.sections[id]?.[name] ?? { value: null, source: null };
}

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
  /**
   * Structured output: the answer must be JSON of this schema. OpenAI-compatible endpoints get it as
   * `response_format: { type: "json_schema", json_schema }` (the local chat server turns it into a grammar);
   * Anthropic as the input schema of a tool it must call, whose input is the answer.
   */
  jsonSchema?: JsonSchemaFormat;
}

/** The `json_schema` object of an OpenAI `response_format`. */
export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
  strict?: boolean;
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
