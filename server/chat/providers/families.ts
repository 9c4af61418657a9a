/**
 * The provider-family registry (docs/architecture.md#provider-families): one descriptor per family of chat
 * provider (so far its id, label, whether it is remote, its environment variables and default address),
 * read by the places that must not guess — where a family's key comes from and may go
 * (stored-keys.ts) and where its prompts go (memory-policy.ts providerEndpoint). An id nobody registered
 * is an error there, never another family's key or address (before, any id but "openai" took Anthropic's
 * branch). A test registers a third family (server/test/provider-family-double.ts) to show it.
 */
import { PROVIDER_LABELS } from "./types";

export interface ProviderFamily {
  id: string;
  label: string;
  /** Prompts leave the machine unless its address is loopback (llama.cpp's child server never does). */
  remote: boolean;
  /** The environment variables of its API key and base URL (remote families). */
  env?: { apiKey: string; baseUrl: string };
  /** Where its key may go when no base URL is set (stored-keys.ts); null: nowhere until one is. */
  defaultBaseUrl: string | null;
  /**
   * Where prompts go when no base URL is configured (memory-policy.ts providerEndpoint): to the default
   * address, or nowhere (the OpenAI-compatible family: config.ts supplies api.openai.com only with a key).
   */
  withoutBaseUrl: "default-address" | "nowhere";
}

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

// Per module instance (Next bundles this module more than once; each registers the same built-ins).
const families = new Map<string, ProviderFamily>();

/** Add a family (the built-in three below; a test double in tests). Its id must be new. */
export function registerProviderFamily(f: ProviderFamily): void {
  if (families.has(f.id) && families.get(f.id) !== f)
    throw new Error(`provider family '${f.id}' is already registered`);
  families.set(f.id, f);
}

/** The descriptor of a family; an unregistered id is an error, not a fall-through to another family. */
export function providerFamily(id: string): ProviderFamily {
  const f = families.get(id);
  if (!f) throw new Error(`no provider family '${id}' (registered: ${[...families.keys()].join(", ")})`);
  return f;
}

export function providerFamilies(): ProviderFamily[] {
  return [...families.values()];
}

for (const f of [
  {
    id: "llama",
    label: PROVIDER_LABELS.llama,
    remote: false,
    defaultBaseUrl: null,
    withoutBaseUrl: "nowhere",
  },
  {
    id: "openai",
    label: PROVIDER_LABELS.openai,
    remote: true,
    env: { apiKey: "MEMO_OPENAI_API_KEY", baseUrl: "MEMO_OPENAI_BASE_URL" },
    // No key and no base URL: an OpenAI-compatible provider goes nowhere; with a key, to api.openai.com
    // (stored-keys.ts keyBaseUrl uses this default for where a key may go).
    defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
    withoutBaseUrl: "nowhere",
  },
  {
    id: "anthropic",
    label: PROVIDER_LABELS.anthropic,
    remote: true,
    env: { apiKey: "MEMO_ANTHROPIC_API_KEY", baseUrl: "MEMO_ANTHROPIC_BASE_URL" },
    defaultBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
    withoutBaseUrl: "default-address",
  },
] as const satisfies ProviderFamily[])
  registerProviderFamily(f);
