/**
 * Provider configuration: Settings (key `chat.providers`) over environment over defaults, and the status the
 * browser sees. Nothing here names a family: each family's saved section, its environment variables, its
 * fallbacks and its form come from its descriptor (families.ts), so a family registered later is saved,
 * resolved and shown like the built-in ones, and a section or field no family declares is refused.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { detectedServer, type DetectedServer } from "../detect-local";
import { loadSetting } from "../../core/settings-load";
import { deleteSetting, writeSetting } from "../../core/settings-store";
import { type ProviderFamily, type ProviderField, providerFamilies, providerFamily } from "./families";
import {
  type ProviderConfig,
  ProviderError,
  type ProviderId,
  type ProviderSection,
  type Source,
  type Sourced,
  sectionValue,
} from "./types";
import { hasKeyField, openSection, rebindKey, sealSection, usableKey, type StoredRemote } from "./stored-keys";

export { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from "./families";

// ---------------------------------------------------------------------------------------------------------
// Saved settings: the shared values, and one section per registered family under its id

const SETTINGS_KEY = "chat.providers";
export const DEFAULT_TIMEOUT_SEC = 120;

const trimmed = z.string().trim().max(2000);
const isFamilyId = (v: unknown): v is ProviderId => typeof v === "string" && providerFamilies().some((f) => f.id === v);
const familyId = z.custom<ProviderId>(isFamilyId, { message: "not a registered provider family" });

/** A family's saved section: the fields its descriptor declares, and (as stored) the origin its key may go to. */
function sectionSchema(f: ProviderFamily, stored: boolean) {
  const shape: Record<string, z.ZodType> = Object.fromEntries(f.settings.map((x) => [x.name, trimmed.optional()]));
  if (stored && hasKeyField(f.id)) shape.keyOrigin = z.string().max(2000).optional();
  return z.strictObject(shape).optional();
}

/** The shared values: `null` in a patch clears a saved one. */
const common = (clearable: boolean) => {
  const c = <T extends z.ZodType>(t: T) => (clearable ? t.nullable().optional() : t.optional());
  return {
    active: familyId.nullable().optional(),
    timeoutSec: c(z.number().int().min(1).max(3600)),
    maxTokens: c(z.number().int().min(1).max(200_000)),
    temperature: c(z.number().min(0).max(2)),
  };
};

/** The stored value's schema, with a section for each family registered now. */
function savedSchema() {
  return z.strictObject({
    ...common(false),
    ...Object.fromEntries(providerFamilies().map((f) => [f.id, sectionSchema(f, true)])),
  });
}

/** A family's saved section (keys opened), field → value. */
export type SavedSection = Record<string, string | undefined>;
export type SavedProviderSettings = {
  active?: ProviderId | null;
  timeoutSec?: number;
  maxTokens?: number;
  temperature?: number;
} & Record<string, unknown>;

const savedSection = (s: SavedProviderSettings, id: string) => s[id] as SavedSection | undefined;

/**
 * A change from the Settings page: "" clears a saved value (the environment applies again); undefined keeps
 * it; a family's section is under its id. The router's schema checks the shared values; saveProviderSettings
 * checks each section against the families registered when it runs (strictPatchSchema).
 */
export const providerSettingsPatchSchema = z.looseObject(common(true));
export type ProviderSettingsPatch = z.infer<typeof providerSettingsPatchSchema>;

function strictPatchSchema() {
  return z.strictObject({
    ...common(true),
    ...Object.fromEntries(providerFamilies().map((f) => [f.id, sectionSchema(f, false)])),
  });
}

/** The saved settings with their keys opened; a key still stored in plain text is sealed in place. */
export function loadSavedProviderSettings(db: Database.Database): SavedProviderSettings {
  // Each section and field that still parses is kept: a section of a family no longer registered (renamed),
  // or a field its family no longer declares, is set aside with its sealed key, never dropped (settings-load.ts).
  const s = loadSetting(db, SETTINGS_KEY, savedSchema(), {}) as SavedProviderSettings;
  let migrate = false;
  for (const f of providerFamilies()) {
    if (!hasKeyField(f.id)) continue;
    const opened = openSection(f.id, savedSection(s, f.id));
    s[f.id] = opened.section;
    migrate ||= opened.migrate;
  }
  if (migrate) writeSaved(db, s);
  return s;
}

function writeSaved(db: Database.Database, s: SavedProviderSettings): void {
  const sealed: SavedProviderSettings = { ...s };
  for (const f of providerFamilies())
    if (hasKeyField(f.id)) sealed[f.id] = sealSection(f.id, savedSection(s, f.id) as StoredRemote | undefined);
  writeSetting(db, SETTINGS_KEY, sealed);
}

/** Seal any provider key still stored in plain text (at start; reads do it too). */
export function sealStoredProviderKeys(db: Database.Database): void {
  loadSavedProviderSettings(db);
}

/** Apply a patch to the saved settings (one statement, so one transaction). */
export function saveProviderSettings(db: Database.Database, patch: ProviderSettingsPatch): SavedProviderSettings {
  const parsed = strictPatchSchema().safeParse(patch);
  if (!parsed.success)
    throw new ProviderError("bad_request", `Provider settings: ${z.prettifyError(parsed.error).replace(/\n/g, " ")}`);
  const p = parsed.data as SavedProviderSettings;
  const families = providerFamilies().filter((f) => p[f.id] !== undefined);
  for (const f of families) {
    const base = savedSection(p, f.id)?.baseUrl;
    if (base) checkBaseUrl(base, `${f.label} base URL`);
  }
  const tx = db.transaction(() => {
    const cur = loadSavedProviderSettings(db);
    const next: SavedProviderSettings = structuredClone(cur);
    if (p.active !== undefined) next.active = p.active;
    for (const f of families) {
      const patchSection = savedSection(p, f.id)!;
      const target: SavedSection = { ...(savedSection(next, f.id) ?? {}) };
      for (const [k, v] of Object.entries(patchSection)) {
        if (v === undefined) continue;
        if (v === "") delete target[k];
        else target[k] = v;
      }
      // A key goes only to the origin it was entered for: a new base URL drops a key not given with it.
      const bound = hasKeyField(f.id)
        ? (rebindKey(f.id, target as StoredRemote, Boolean(patchSection.apiKey)) ?? {})
        : target;
      next[f.id] = Object.keys(bound).length ? bound : undefined;
    }
    for (const k of ["timeoutSec", "maxTokens", "temperature"] as const) {
      if (p[k] === null) delete next[k];
      else if (p[k] !== undefined) next[k] = p[k] as number;
    }
    const clean = savedSchema().parse(JSON.parse(JSON.stringify(next))) as SavedProviderSettings;
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

// ---------------------------------------------------------------------------------------------------------
// Resolution: Settings over environment over each family's fallbacks

function pick<T>(saved: T | undefined, env: T | undefined, fallback?: T): Sourced<T | null> {
  if (saved !== undefined && saved !== "") return { value: saved, source: "settings" };
  if (env !== undefined && env !== "") return { value: env, source: "env" };
  if (fallback !== undefined) return { value: fallback, source: "default" };
  return { value: null, source: null };
}

/**
 * A family's section from its declaration: each field from Settings, else its own environment variable,
 * else its fallback; its key last, and only the key bound to the address in force (its base URL, else its
 * default address when prompts go there without one: stored-keys.ts usableKey).
 */
export function resolveSection(f: ProviderFamily, saved: SavedSection | undefined, env = process.env): ProviderSection {
  const envValue = (name: string) => {
    const v = f.settings.find((x) => x.name === name)?.env;
    return (v ? env[v]?.trim() : undefined) || undefined;
  };
  const resolved: ProviderSection = {};
  for (const field of f.settings) {
    if (field.name === "apiKey") continue;
    resolved[field.name] = pick(
      saved?.[field.name],
      envValue(field.name),
      field.fallback?.({ saved, envValue, resolved }),
    );
  }
  if (hasKeyField(f.id)) {
    const address =
      resolved.baseUrl?.value ?? (f.withoutBaseUrl === "default-address" ? f.defaultBaseUrl : null) ?? null;
    resolved.apiKey = usableKey(f.id, saved as StoredRemote | undefined, address, env) ?? { value: null, source: null };
  }
  return resolved;
}

function envProvider(): ProviderId | undefined {
  const v = process.env.MEMO_PROVIDER?.trim().toLowerCase();
  if (!v) return undefined;
  if (isFamilyId(v)) return v;
  const ids = providerFamilies().map((f) => f.id);
  console.warn(`[chat] MEMO_PROVIDER='${process.env.MEMO_PROVIDER}' is not one of ${ids.join(", ")}; ignored`);
  return undefined;
}

let resolutions = 0;

/**
 * How many times this process resolved the configuration (tests and the bench count a turn's: a turn resolves
 * it once and hands it on, server/chat/turn.ts).
 */
export function providerResolutions(): number {
  return resolutions;
}

/** The effective configuration: Settings over environment over defaults. */
export function resolveProviderConfig(db: Database.Database): ProviderConfig {
  resolutions++;
  const s = loadSavedProviderSettings(db);
  const env = process.env;
  const cfg: ProviderConfig = {
    active: { value: null, source: null },
    sections: Object.fromEntries(providerFamilies().map((f) => [f.id, resolveSection(f, savedSection(s, f.id), env)])),
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
  // A family the detected server serves, picked (e.g. a model chosen in the chat page's picker) but given no
  // endpoint of its own: the detected local server still serves it.
  const active = cfg.active.value;
  if (active && providerFamily(active).servesDetected && !sectionValue(cfg, active, "baseUrl").value)
    useDetected(cfg, detectedServer(db), false);
  return cfg;
}

/** No provider configured: chat through the detected local server (with its first listed model unless one was picked). */
function useDetected(cfg: ProviderConfig, d: DetectedServer | null, activate = true): void {
  const f = providerFamilies().find((x) => x.servesDetected);
  if (!d || !f) return;
  const section = (cfg.sections[f.id] ??= {});
  section.baseUrl = { value: d.baseUrl, source: "detected" };
  if (!section.model?.value) section.model = { value: d.model, source: "detected" };
  if (activate) cfg.active = { value: f.id as ProviderId, source: "detected" };
}

/** Whether a provider has what it needs, and if not, what is missing (for people): its family says. */
export function isConfigured(cfg: ProviderConfig, id: ProviderId): { ok: boolean; missing: string | null } {
  return providerFamily(id).configured(cfg);
}

const NOT_CONFIGURED = "No chat provider is configured.";
export const HOW_TO_CONFIGURE =
  `${NOT_CONFIGURED} Open Settings → Providers and set one up (a local GGUF chat model, any ` +
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
  /**
   * Why chat cannot work yet, without how to fix it (null when ready): for pages that say the how in their
   * own place (Settings → Providers is the form itself; the chat page links to it).
   */
  unready: string | null;
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
  const unready = !active
    ? NOT_CONFIGURED
    : activeOk!.ok
      ? null
      : `${providerFamily(active).label} is selected but needs ${activeOk!.missing}.`;
  return {
    active,
    activeSource: cfg.active.source,
    ready: Boolean(activeOk?.ok),
    problem: !active ? HOW_TO_CONFIGURE : unready && `${unready} ${HOW_TO_CONFIGURE}`,
    unready,
    timeoutSec: Math.round(cfg.timeoutMs / 1000),
    maxTokens: cfg.maxTokens,
    temperature: cfg.temperature,
    providers: providerFamilies().map((f) => familyStatus(cfg, f.id as ProviderId)),
  };
}
