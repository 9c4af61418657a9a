/** Provider configuration: Settings (key `chat.providers`) over environment over defaults, and the status the browser sees. */
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { z } from "zod";
import { modelsDir } from "../../core/config";
import { detectedServer, type DetectedServer } from "../detect-local";
import { deleteSetting, readSetting, writeSetting } from "../../core/settings-store";
import {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
  type ProviderField,
  providerFamilies,
  providerFamily,
} from "./families";
import { PROVIDER_IDS, type ProviderConfig, ProviderError, type ProviderId, type Source, type Sourced } from "./types";
import {
  hasEnvKey,
  openSection,
  REMOTE_IDS,
  rebindKey,
  sealSection,
  usableKey,
  type StoredRemote,
} from "./stored-keys";

// ---------------------------------------------------------------------------------------------------------
// Configuration: Settings over environment

const SETTINGS_KEY = "chat.providers";
export const DEFAULT_TIMEOUT_SEC = 120;
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

const trimmed = z.string().trim().max(2000);
/** A remote provider's saved settings (OpenAI-compatible or Anthropic), and the local one's. */
const remoteSettings = z
  .strictObject({ baseUrl: trimmed.optional(), apiKey: trimmed.optional(), model: trimmed.optional() })
  .optional();
/** As stored: with the origin the saved key may be sent to (server/chat/providers/stored-keys.ts). */
const storedRemoteSettings = z
  .strictObject({
    baseUrl: trimmed.optional(),
    apiKey: trimmed.optional(),
    model: trimmed.optional(),
    keyOrigin: z.string().max(2000).optional(),
  })
  .optional();
const llamaSettings = z.strictObject({ modelPath: trimmed.optional() }).optional();
export const savedProviderSettingsSchema = z.strictObject({
  active: z.enum(PROVIDER_IDS).nullable().optional(),
  openai: storedRemoteSettings,
  anthropic: storedRemoteSettings,
  llama: llamaSettings,
  timeoutSec: z.number().int().min(1).max(3600).optional(),
  maxTokens: z.number().int().min(1).max(200_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type SavedProviderSettings = z.infer<typeof savedProviderSettingsSchema>;

/** A change from the Settings page: "" clears a saved value (the environment applies again); undefined keeps it. */
export const providerSettingsPatchSchema = z.strictObject({
  active: z.enum(PROVIDER_IDS).nullable().optional(),
  openai: remoteSettings,
  anthropic: remoteSettings,
  llama: llamaSettings,
  timeoutSec: z.number().int().min(1).max(3600).nullable().optional(),
  maxTokens: z.number().int().min(1).max(200_000).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
});
export type ProviderSettingsPatch = z.infer<typeof providerSettingsPatchSchema>;

/** The saved settings with their keys opened; a key still stored in plain text is sealed in place. */
export function loadSavedProviderSettings(db: Database.Database): SavedProviderSettings {
  const saved = readSetting(db, SETTINGS_KEY);
  if (saved === undefined) return {};
  const parsed = savedProviderSettingsSchema.safeParse(saved);
  if (!parsed.success) return {};
  const s = parsed.data;
  let migrate = false;
  for (const id of REMOTE_IDS) {
    const opened = openSection(id, s[id]);
    s[id] = opened.section;
    migrate ||= opened.migrate;
  }
  if (migrate) writeSaved(db, s);
  return s;
}

function writeSaved(db: Database.Database, s: SavedProviderSettings): void {
  writeSetting(db, SETTINGS_KEY, {
    ...s,
    openai: sealSection("openai", s.openai),
    anthropic: sealSection("anthropic", s.anthropic),
  });
}

/** Seal any provider key still stored in plain text (at start; reads do it too). */
export function sealStoredProviderKeys(db: Database.Database): void {
  loadSavedProviderSettings(db);
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
      // A key goes only to the origin it was entered for: a new base URL drops a key not given with it.
      const bound = providerFamily(section).remote
        ? (rebindKey(section, target as StoredRemote, Boolean(patchSection.apiKey)) ?? {})
        : target;
      (next as Record<string, unknown>)[section] = Object.keys(bound).length ? bound : undefined;
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
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new ProviderError("bad_request", `${what} must start with http:// or https://`);
}

function pick<T>(saved: T | undefined, env: T | undefined, fallback?: T): Sourced<T | null> {
  if (saved !== undefined && saved !== "") return { value: saved, source: "settings" };
  if (env !== undefined && env !== "") return { value: env, source: "env" };
  if (fallback !== undefined) return { value: fallback, source: "default" };
  return { value: null, source: null };
}

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

function envProvider(): ProviderId | undefined {
  const v = process.env.MEMO_PROVIDER?.trim().toLowerCase();
  if (!v) return undefined;
  const ids = providerFamilies().map((f) => f.id);
  if (ids.includes(v)) return v as ProviderId;
  console.warn(`[chat] MEMO_PROVIDER='${process.env.MEMO_PROVIDER}' is not one of ${ids.join(", ")}; ignored`);
  return undefined;
}

/** The effective configuration: Settings over environment over defaults. */
export function resolveProviderConfig(db: Database.Database): ProviderConfig {
  const s = loadSavedProviderSettings(db);
  const env = process.env;
  const openaiBase = pick(
    s.openai?.baseUrl,
    env.MEMO_OPENAI_BASE_URL,
    s.openai?.apiKey || hasEnvKey("openai") ? DEFAULT_OPENAI_BASE_URL : undefined,
  );
  const anthropicBase = pick(s.anthropic?.baseUrl, env.MEMO_ANTHROPIC_BASE_URL);
  // Each key only for the origin it was entered for (stored-keys.ts).
  const keyFor = (id: "openai" | "anthropic", base: string | null): Sourced<string | null> =>
    usableKey(id, s[id], base) ?? { value: null, source: null };
  const cfg: ProviderConfig = {
    active: { value: null, source: null },
    openai: {
      baseUrl: openaiBase,
      apiKey: keyFor("openai", openaiBase.value),
      model: pick(
        s.openai?.model,
        env.MEMO_OPENAI_MODEL,
        openaiBase.value === DEFAULT_OPENAI_BASE_URL ? DEFAULT_OPENAI_MODEL : undefined,
      ),
    },
    anthropic: {
      baseUrl: anthropicBase,
      apiKey: keyFor("anthropic", anthropicBase.value ?? DEFAULT_ANTHROPIC_BASE_URL),
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
      const ids = providerFamilies().map((f) => f.id as ProviderId);
      const first =
        ids.find((id) => isConfigured(cfg, id).ok && providerFamily(id).explicitlySet(cfg)) ??
        ids.find((id) => isConfigured(cfg, id).ok);
      cfg.active = { value: first ?? null, source: first ? "default" : null };
      if (!first) useDetected(cfg, detectedServer(db));
    }
  }
  // OpenAI-compatible picked (e.g. a model chosen in the chat page's picker) but given no endpoint of its
  // own: the detected local server still serves it.
  if (cfg.active.value === "openai" && !cfg.openai.baseUrl.value) useDetected(cfg, detectedServer(db), false);
  return cfg;
}

/** No provider configured: chat through the detected local server (with its first listed model unless one was picked). */
function useDetected(cfg: ProviderConfig, d: DetectedServer | null, activate = true): void {
  if (!d) return;
  cfg.openai.baseUrl = { value: d.baseUrl, source: "detected" };
  if (!cfg.openai.model.value) cfg.openai.model = { value: d.model, source: "detected" };
  if (activate) cfg.active = { value: "openai", source: "detected" };
}

/** Whether a provider has what it needs, and if not, what is missing (for people): its family says. */
export function isConfigured(cfg: ProviderConfig, id: ProviderId): { ok: boolean; missing: string | null } {
  return providerFamily(id).configured(cfg);
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
    /** The chat page's picker may choose among the models its endpoint lists. */
    modelChoice: boolean;
    /** Its part of Settings → Providers, from its family's descriptor (families.ts), with each field's value. */
    form: { title: string; help: string | null; localServer: boolean; fields: ProviderFieldStatus[] };
  }[];
}

/** A form field with what is in force for it (a secret's value is never sent: only whether one is set). */
export interface ProviderFieldStatus extends ProviderField {
  value: string | null;
  set: boolean;
  source: Source;
}

/** A value of a family's resolved section (families without one of their own have none). */
function sectionValue(cfg: ProviderConfig, id: string, name: string): Sourced<string | null> {
  const section = (cfg as unknown as Record<string, Record<string, Sourced<string | null>> | undefined>)[id];
  return section?.[name] ?? { value: null, source: null };
}

/** A family's row of the status, everything read from its descriptor. */
function familyStatus(cfg: ProviderConfig, id: ProviderId): ProviderStatus["providers"][number] {
  const family = providerFamily(id);
  const { ok, missing } = family.configured(cfg);
  const model = family.model(cfg);
  const baseUrl = sectionValue(cfg, id, "baseUrl");
  const apiKey = sectionValue(cfg, id, "apiKey");
  const fields = family.form.fields.map((f): ProviderFieldStatus => {
    const v = sectionValue(cfg, id, f.name);
    return { ...f, value: f.kind === "secret" ? null : v.value, set: Boolean(v.value), source: v.source };
  });
  const modelPath = fields.find((f) => f.name === "modelPath");
  return {
    id,
    label: family.label,
    configured: ok,
    missing,
    model: model.value,
    modelSource: model.source,
    baseUrl: baseUrl.value,
    baseUrlSource: baseUrl.source,
    apiKeySet: Boolean(apiKey.value),
    apiKeySource: apiKey.source,
    ...(modelPath ? { modelPath: modelPath.value, modelPathSource: modelPath.source } : {}),
    modelChoice: family.modelChoice,
    form: {
      title: family.form.title,
      help: family.form.help ?? null,
      localServer: Boolean(family.form.localServer),
      fields,
    },
  };
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
    problem: !active
      ? HOW_TO_CONFIGURE
      : activeOk!.ok
        ? null
        : `${providerFamily(active).label} is selected but needs ${activeOk!.missing}. ${HOW_TO_CONFIGURE}`,
    timeoutSec: Math.round(cfg.timeoutMs / 1000),
    maxTokens: cfg.maxTokens,
    temperature: cfg.temperature,
    providers: providerFamilies().map((f) => familyStatus(cfg, f.id as ProviderId)),
  };
}
