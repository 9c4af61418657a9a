/**
 * Chat providers: the local llama.cpp chat server (supervised child process), any
 * OpenAI-compatible endpoint (the official `openai` client) and Anthropic's Messages API (the official
 * SDK), behind one small interface: stream(messages) yields text, complete(messages) returns it.
 *
 * Configuration comes from Settings (the `settings` table, key `chat.providers`) and the environment:
 * a value saved in Settings wins, the environment fills in the rest. API keys stay on the server:
 * providerStatus() says only whether a key is set.
 *
 * Errors are ProviderErrors with a kind (down, auth, timeout, bad model, ...) and a message for people.
 *
 * This index is the one entry point: types.ts (the interface and ProviderError), config.ts (Settings over
 * environment, status), streaming.ts (request building, stream parsing, error mapping, deadlines shared by
 * both clients), openai.ts and anthropic.ts (one file per API), families.ts (the provider-family registry:
 * one descriptor per family, which builds its client and says everything else a family differs in).
 */
import type Database from "better-sqlite3";
import { getDb } from "../../db";
import { HOW_TO_CONFIGURE, isConfigured, providerStatus, resolveProviderConfig } from "./config";
import { providerFamily } from "./families";
import {
  type ChatMessage,
  type ChatProvider,
  type GenerateOptions,
  type ProviderConfig,
  ProviderError,
  type ProviderId,
} from "./types";

/** Build a provider from the configuration; a ProviderError says what is missing. */
export function createProvider(cfg: ProviderConfig, id: ProviderId): ChatProvider {
  const conf = isConfigured(cfg, id);
  if (!conf.ok)
    throw new ProviderError(
      "not_configured",
      `${providerFamily(id).label} needs ${conf.missing}. ${HOW_TO_CONFIGURE}`,
      id,
    );
  const common = { timeoutMs: cfg.timeoutMs, maxTokens: cfg.maxTokens, temperature: cfg.temperature };
  // The family builds its own client (families.ts): how it streams and answers structured output is its API's.
  return providerFamily(id).create(cfg, common);
}

/** The selected provider (or `id`), ready to use; a ProviderError (not_configured) says how to set one up. */
export function getProvider(db: Database.Database, id?: ProviderId | null): ChatProvider {
  return providerFrom(resolveProviderConfig(db), id);
}

/** `id` (default: the selected one) from a configuration already resolved (a turn resolves it once). */
export function providerFrom(cfg: ProviderConfig, id?: ProviderId | null): ChatProvider {
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

export * from "./types";
export * from "./config";
export * from "./streaming";
export * from "./openai";
export * from "./anthropic";
export {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_MAX_TOKENS,
  DEFAULT_OPENAI_BASE_URL,
  familyPrefixed,
  normalizeOpenAIBaseUrl,
  providerFamilies,
  providerFamily,
  registerProviderFamily,
  type ClientCommon,
  type ProviderFamily,
  type ProviderField,
} from "./families";
