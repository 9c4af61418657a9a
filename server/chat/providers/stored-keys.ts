/**
 * Where a provider's API key may go, and how a saved key is kept.
 *
 * A key is only ever sent to the origin (scheme, host and port) it was entered for: a saved key is bound to
 * the origin of the base URL in force when it was saved (`keyOrigin`), an environment key to the
 * environment's base URL, or the provider's default host when none is set. Changing the base URL to
 * another origin drops the saved key (unless a new key comes with it), and the environment key is not
 * sent there either. Saved keys are sealed with the data folder's key file (server/core/secret-box.ts).
 */
import { isSealed, open, seal } from "../../core/secret-box";
import { DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_OPENAI_BASE_URL, providerFamily } from "./families";

export { DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_OPENAI_BASE_URL };

/** A family's id: a built-in one, or one registered later (families.ts). */
type FamilyId = string;

/** A family's environment variable of a field, read from the registry's descriptor (none: undefined). */
function envOf(id: FamilyId, which: "apiKey" | "baseUrl", env: NodeJS.ProcessEnv): string | undefined {
  const name = providerFamily(id).settings.find((f) => f.name === which)?.env;
  return (name ? env[name]?.trim() : undefined) || undefined;
}

/** Whether a family keeps an API key (its `apiKey` field): only such sections are sealed and bound to an origin. */
export function hasKeyField(id: FamilyId): boolean {
  return providerFamily(id).settings.some((f) => f.name === "apiKey");
}

/** "https://api.openai.com" for any URL on that origin; null for no URL or one that does not parse. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}

const envBaseUrl = (id: FamilyId, env: NodeJS.ProcessEnv) => envOf(id, "baseUrl", env);
const envKey = (id: FamilyId, env: NodeJS.ProcessEnv) => envOf(id, "apiKey", env);
const defaultBaseUrl = (id: FamilyId) => providerFamily(id).defaultBaseUrl ?? undefined;

/** The only origin the environment's key may be sent to. */
export function envKeyOrigin(id: FamilyId, env: NodeJS.ProcessEnv = process.env): string | null {
  return originOf(envBaseUrl(id, env) ?? defaultBaseUrl(id));
}

/**
 * The base URL a provider's key would be sent to, given the saved base URL: saved, else environment, else
 * the provider's default host. (For the OpenAI-compatible provider with no key the resolved base URL may
 * be none at all; then no key is sent anywhere, so the default stands in.)
 */
export function keyBaseUrl(id: FamilyId, savedBaseUrl: string | undefined, env: NodeJS.ProcessEnv = process.env) {
  return savedBaseUrl || envBaseUrl(id, env) || defaultBaseUrl(id);
}

/** A saved remote section as stored: the key sealed, and the origin it may go to. */
export interface StoredRemote {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  keyOrigin?: string;
}

/** The key that may be used for a request to `baseUrl`: the saved one if bound to its origin, else the environment's if bound to it. */
export function usableKey(
  id: FamilyId,
  saved: StoredRemote | undefined,
  baseUrl: string | null,
  env: NodeJS.ProcessEnv = process.env,
): { value: string; source: "settings" | "env" } | null {
  const origin = originOf(baseUrl);
  if (!origin) return null;
  if (saved?.apiKey && saved.keyOrigin === origin) return { value: saved.apiKey, source: "settings" };
  const fromEnv = envKey(id, env);
  if (fromEnv && envKeyOrigin(id, env) === origin) return { value: fromEnv, source: "env" };
  return null;
}

/** The environment's key, whatever its origin (only to decide the OpenAI-compatible default base URL). */
export function hasEnvKey(id: FamilyId, env: NodeJS.ProcessEnv = process.env): boolean {
  return envKey(id, env) !== undefined;
}

/**
 * After a change to a saved section: a key given in the change is bound to the base URL now in force; a
 * kept key whose base URL moved to another origin is dropped.
 */
export function rebindKey(
  id: FamilyId,
  next: StoredRemote | undefined,
  keyGiven: boolean,
  env: NodeJS.ProcessEnv = process.env,
): StoredRemote | undefined {
  if (!next?.apiKey) {
    if (next) delete next.keyOrigin;
    return next;
  }
  const origin = originOf(keyBaseUrl(id, next.baseUrl, env));
  if (keyGiven) return { ...next, keyOrigin: origin ?? undefined };
  if (next.keyOrigin === origin) return next;
  const { apiKey: _dropped, keyOrigin: _o, ...rest } = next;
  return rest;
}

const context = (id: FamilyId) => `chat.providers.${id}.apiKey`;

/** For storing: the key sealed. */
export function sealSection(id: FamilyId, s: StoredRemote | undefined): StoredRemote | undefined {
  if (!s?.apiKey || isSealed(s.apiKey)) return s;
  return { ...s, apiKey: seal(s.apiKey, context(id)) };
}

/**
 * As read from the store: the key opened. A key stored in plain text (before keys were sealed) comes back
 * with `migrate` set, bound to the origin it would have gone to then. A key that cannot be opened (another
 * key file) is dropped with a warning: it must be entered again.
 */
export function openSection(
  id: FamilyId,
  s: StoredRemote | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { section: StoredRemote | undefined; migrate: boolean } {
  if (!s?.apiKey) return { section: s, migrate: false };
  if (!isSealed(s.apiKey)) {
    const keyOrigin = s.keyOrigin ?? originOf(keyBaseUrl(id, s.baseUrl, env)) ?? undefined;
    return { section: { ...s, keyOrigin }, migrate: true };
  }
  const plain = open(s.apiKey, context(id));
  if (plain !== null) return { section: { ...s, apiKey: plain }, migrate: false };
  warnUnreadable(id);
  const { apiKey: _unreadable, keyOrigin: _o, ...rest } = s;
  return { section: rest, migrate: false };
}

const warned = new Set<FamilyId>();
function warnUnreadable(id: FamilyId): void {
  if (warned.has(id)) return;
  warned.add(id);
  console.warn(
    `[chat] the saved ${id} API key cannot be decrypted with this data folder's secret.key (restored without it?); enter the key again in Settings → Providers`,
  );
}
