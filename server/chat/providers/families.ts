/**
 * The provider-family registry (docs/architecture.md#provider-families): one descriptor per family of chat
 * provider carrying everything a family differs in — its id and label, whether it is remote, its environment
 * variables and default address (where its key may go: stored-keys.ts; where its prompts go: memory-policy.ts
 * providerEndpoint), when it has what it needs, the client it builds (which streams, completes and answers
 * structured output for fact learning in its own API: openai.ts, anthropic.ts), its health check, how fact
 * learning treats it, and the fields of its Settings form. The call sites (createProvider, providerStatus,
 * providerHealth, chooseFactModel and the fact learner, Settings → Providers) read the descriptor instead of
 * switching on the id, so a new family is one entry here (plus its id in PROVIDER_IDS, which the API's
 * schemas accept; families.test.ts checks the two agree). An id nobody registered is an error, never another
 * family's key or address. Tests register families of their own (server/test/provider-family-double.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { modelsDir } from "../../core/config";
import { ggufFileProblem } from "../gguf-file";
import { getLocalChatServer } from "../local-server";
import { AnthropicProvider } from "./anthropic";
import { OpenAICompatibleProvider } from "./openai";
import {
  type ChatProvider,
  PROVIDER_LABELS,
  type ProviderConfig,
  type ProviderSection,
  type Sourced,
  sectionValue,
} from "./types";

/** One field of a family's Settings form: a key of its saved section (and of its resolved config section). */
export interface ProviderField {
  name: string;
  label: string;
  /** "secret": write-only, the form only learns whether one is set. */
  kind: "text" | "secret";
  /** The input's element id (stable: the e2e page objects and labels use it). */
  inputId: string;
  placeholder?: string;
}

/**
 * One value of a family's saved section (Settings → Providers, key `chat.providers`, under the family's id)
 * and of its resolved configuration: Settings over its environment variable over its fallback. By
 * convention a remote family's address is its `baseUrl` field and its key its `apiKey` field (sealed when
 * saved, sent only to the origin it was entered for: stored-keys.ts).
 */
export interface ProviderSetting {
  name: string;
  /** Its environment variable, if it has one. */
  env?: string;
  /** The value when neither Settings nor the environment give one (may read the fields resolved before it). */
  fallback?: (ctx: FallbackContext) => string | undefined;
}

export interface FallbackContext {
  /** The family's saved section (keys opened). */
  saved: Record<string, string | undefined> | undefined;
  /** The family's own environment variable of a field. */
  envValue(name: string): string | undefined;
  /** The fields resolved so far (declaration order; the key comes last). */
  resolved: ProviderSection;
}

export interface ProviderFamily {
  id: string;
  label: string;
  /** Prompts leave the machine unless its address is loopback (llama.cpp's child server never does). */
  remote: boolean;
  /** Its saved section's fields, their environment variables and fallbacks (see ProviderSetting). */
  settings: ProviderSetting[];
  /** A local OpenAI-compatible server found on loopback (detect-local.ts) serves it when it has no address. */
  servesDetected?: boolean;
  /** Where its key may go when no base URL is set (stored-keys.ts); null: nowhere until one is. */
  defaultBaseUrl: string | null;
  /**
   * Where prompts go when no base URL is configured (memory-policy.ts providerEndpoint): to the default
   * address, or nowhere (the OpenAI-compatible family: config.ts supplies api.openai.com only with a key).
   */
  withoutBaseUrl: "default-address" | "nowhere";
  /** Whether it has what it needs, and if not, what is missing (for people). */
  configured(cfg: ProviderConfig): { ok: boolean; missing: string | null };
  /** Set up on purpose (Settings or environment), not by a default: such a family is chosen first when none is. */
  explicitlySet(cfg: ProviderConfig): boolean;
  /** The model the status shows (a local family's is its file's name). */
  model(cfg: ProviderConfig): Sourced<string | null>;
  /** Its client, configured (call only when `configured` is ok): streaming and structured output are its API's. */
  create(cfg: ProviderConfig, common: ClientCommon): ChatProvider;
  /** Does it answer right now? Cheap, no tokens spent (the chat page's provider chip: provider-health.ts). */
  healthCheck(provider: ChatProvider, signal: AbortSignal): Promise<void>;
  learning: {
    /** Fact learning tries it before the conversation's own provider (the local model costs nothing). */
    preferred: boolean;
    /** It serves one request at a time: a learning call gives way when a reply begins (fact-learner.ts). */
    oneSlot: boolean;
  };
  /** Whether the chat page's picker may choose among the models its endpoint lists. */
  modelChoice: boolean;
  /** Its part of Settings → Providers. `localServer`: the supervised local server's state is shown in it. */
  form: { title: string; help?: string; fields: ProviderField[]; localServer?: boolean };
}

/** What every client gets from the shared settings. */
export interface ClientCommon {
  timeoutMs: number;
  maxTokens: number | null;
  temperature: number | null;
}

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The local model's reply cap when none is set (a CPU is slow to finish a long one). */
export const DEFAULT_MAX_TOKENS = 2048;

/** Ollama and LM Studio are often given without /v1: an endpoint URL with no path gets /v1. */
export function normalizeOpenAIBaseUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/v1";
  return u.toString().replace(/\/+$/, "");
}

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

/**
 * The registered family a name starts with, before `sep` (`<family>:<model>` on `/v1`, `<family>@<host>` for
 * the sharing and learning keys), and the rest; undefined when no registered family's id is its prefix. Read
 * from the registry when called, so a family registered later is recognised (never a hand-written list).
 */
export function familyPrefixed(name: string, sep: ":" | "@"): { family: ProviderFamily; rest: string } | undefined {
  const at = name.indexOf(sep);
  if (at <= 0) return undefined;
  const family = families.get(name.slice(0, at));
  return family ? { family, rest: name.slice(at + 1) } : undefined;
}

const listModels = async (p: ChatProvider, signal: AbortSignal) => void (await p.listModels(signal));
const isSet = (s: Sourced<unknown>) => s.source === "settings" || s.source === "env";
const MODEL_FIELD = { name: "model", label: "Model", kind: "text" } as const;
const KEY_FIELD = { name: "apiKey", label: "API key", kind: "secret" } as const;
const modelName = (modelPath: string) => path.basename(modelPath).replace(/\.gguf$/i, "");
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/** A chat GGUF in data/models/chat/ (the first by name), when no path is configured. */
function discoveredChatModel(): string | undefined {
  const dir = path.join(modelsDir(), "chat");
  if (!fs.existsSync(dir)) return undefined;
  const f = fs
    .readdirSync(dir)
    .filter((n) => n.toLowerCase().endsWith(".gguf"))
    .sort()[0];
  return f ? path.join(dir, f) : undefined;
}

const BUILT_IN: ProviderFamily[] = [
  {
    id: "llama",
    label: PROVIDER_LABELS.llama,
    remote: false,
    settings: [{ name: "modelPath", env: "MEMO_CHAT_MODEL", fallback: discoveredChatModel }],
    defaultBaseUrl: null,
    withoutBaseUrl: "nowhere",
    configured(cfg) {
      const p = sectionValue(cfg, "llama", "modelPath").value;
      if (!p)
        return { ok: false, missing: "a chat model GGUF (MEMO_CHAT_MODEL, Settings, or a .gguf in data/models/chat/)" };
      // A GGUF file, checked by its signature only: nothing of another file's contents is ever shown.
      const problem = ggufFileProblem(p);
      return problem ? { ok: false, missing: problem } : { ok: true, missing: null };
    },
    explicitlySet: (cfg) => isSet(sectionValue(cfg, "llama", "modelPath")),
    model: (cfg) => {
      const p = sectionValue(cfg, "llama", "modelPath");
      return { value: p.value ? modelName(p.value) : null, source: p.source };
    },
    create(cfg, common) {
      const modelPath = sectionValue(cfg, "llama", "modelPath").value!;
      const model = modelName(modelPath);
      return new OpenAICompatibleProvider({
        id: "llama",
        label: `${PROVIDER_LABELS.llama} (${model})`,
        baseUrl: async (signal) => `${await getLocalChatServer(modelPath).ensureHealthy(common.timeoutMs, signal)}/v1`,
        apiKey: null,
        model,
        // The local server is slow to start a long prompt on a CPU; the default local max is its own.
        ...common,
        maxTokens: common.maxTokens ?? DEFAULT_MAX_TOKENS,
        onTransportError: () => getLocalChatServer(modelPath).reportFailure(),
      });
    },
    healthCheck: listModels,
    learning: { preferred: true, oneSlot: true },
    modelChoice: false,
    form: {
      title: "Local llama.cpp",
      help:
        "A GGUF chat model on this machine, served by a supervised llama.cpp process on its own port (a native " +
        "llama-server when MEMO_LLAMA_SERVER points at one).",
      fields: [
        {
          name: "modelPath",
          label: "GGUF file",
          kind: "text",
          inputId: "llama-path",
          placeholder: "/path/to/model.gguf",
        },
      ],
      localServer: true,
    },
  },
  {
    id: "openai",
    label: PROVIDER_LABELS.openai,
    remote: true,
    settings: [
      // No base URL: api.openai.com when a key is given (saved or in the environment), else none.
      {
        name: "baseUrl",
        env: "MEMO_OPENAI_BASE_URL",
        fallback: ({ saved, envValue }) => (saved?.apiKey || envValue("apiKey") ? DEFAULT_OPENAI_BASE_URL : undefined),
      },
      {
        name: "model",
        env: "MEMO_OPENAI_MODEL",
        fallback: ({ resolved }) =>
          resolved.baseUrl?.value === DEFAULT_OPENAI_BASE_URL ? DEFAULT_OPENAI_MODEL : undefined,
      },
      { name: "apiKey", env: "MEMO_OPENAI_API_KEY" },
    ],
    servesDetected: true,
    // No key and no base URL: an OpenAI-compatible provider goes nowhere; with a key, to api.openai.com
    // (stored-keys.ts keyBaseUrl uses this default for where a key may go).
    defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
    withoutBaseUrl: "nowhere",
    configured: (cfg) =>
      sectionValue(cfg, "openai", "baseUrl").value
        ? { ok: true, missing: null }
        : { ok: false, missing: "a base URL (MEMO_OPENAI_BASE_URL) or an API key (MEMO_OPENAI_API_KEY)" },
    // A key alone counts: it brings api.openai.com with it.
    explicitlySet: (cfg) =>
      isSet(sectionValue(cfg, "openai", "baseUrl")) || sectionValue(cfg, "openai", "apiKey").source !== null,
    model: (cfg) => sectionValue(cfg, "openai", "model"),
    create(cfg, common) {
      const base = normalizeOpenAIBaseUrl(sectionValue(cfg, "openai", "baseUrl").value!);
      return new OpenAICompatibleProvider({
        id: "openai",
        label: PROVIDER_LABELS.openai,
        baseUrl: async () => base,
        apiKey: sectionValue(cfg, "openai", "apiKey").value,
        model: sectionValue(cfg, "openai", "model").value,
        ...common,
      });
    },
    healthCheck: listModels,
    learning: { preferred: false, oneSlot: false },
    modelChoice: true,
    form: {
      title: "OpenAI-compatible endpoint",
      help:
        "Ollama (http://localhost:11434/v1), LM Studio (http://localhost:1234/v1), llama-server, vLLM, OpenAI " +
        "(https://api.openai.com/v1).",
      fields: [
        {
          name: "baseUrl",
          label: "Base URL",
          kind: "text",
          inputId: "openai-base",
          placeholder: "http://localhost:11434/v1",
        },
        { ...MODEL_FIELD, inputId: "openai-model", placeholder: "(the endpoint's first model)" },
        { ...KEY_FIELD, inputId: "openai-key" },
      ],
    },
  },
  {
    id: "anthropic",
    label: PROVIDER_LABELS.anthropic,
    remote: true,
    settings: [
      { name: "baseUrl", env: "MEMO_ANTHROPIC_BASE_URL" },
      { name: "model", env: "MEMO_ANTHROPIC_MODEL", fallback: () => DEFAULT_ANTHROPIC_MODEL },
      { name: "apiKey", env: "MEMO_ANTHROPIC_API_KEY" },
    ],
    defaultBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
    withoutBaseUrl: "default-address",
    configured: (cfg) =>
      sectionValue(cfg, "anthropic", "apiKey").value
        ? { ok: true, missing: null }
        : { ok: false, missing: "an API key (MEMO_ANTHROPIC_API_KEY)" },
    explicitlySet: (cfg) => isSet(sectionValue(cfg, "anthropic", "apiKey")),
    model: (cfg) => sectionValue(cfg, "anthropic", "model"),
    create: (cfg, common) =>
      new AnthropicProvider({
        apiKey: sectionValue(cfg, "anthropic", "apiKey").value!,
        model: sectionValue(cfg, "anthropic", "model").value!,
        baseUrl: sectionValue(cfg, "anthropic", "baseUrl").value,
        ...common,
      }),
    healthCheck: listModels,
    learning: { preferred: false, oneSlot: false },
    modelChoice: true,
    form: {
      title: "Anthropic",
      fields: [
        { ...KEY_FIELD, inputId: "anthropic-key" },
        { ...MODEL_FIELD, inputId: "anthropic-model" },
      ],
    },
  },
];
for (const f of BUILT_IN) registerProviderFamily(f);
