/**
 * The chat page's provider chip: is the selected provider configured, and does it answer right now?
 * "Configured" alone said "ready" while the endpoint was down; this runs the family's health check (the
 * built-in ones ask for the model list: cheap, no tokens spent) with a short deadline, and remembers the answer briefly so that every open
 * page polling the status does not become a request to the provider.
 */
import type Database from "better-sqlite3";
import {
  createProvider,
  ProviderError,
  type ProviderId,
  providerFamily,
  providerStatus,
  resolveProviderConfig,
} from "./providers";

export type ProviderState = "ready" | "unreachable" | "not_configured";

export interface ProviderHealth {
  state: ProviderState;
  provider: ProviderId | null;
  label: string | null;
  /** Why it is not ready, in plain words (null when ready). */
  detail: string | null;
  checkedAt: string;
}

const PROBE_MS = 4000;
const CACHE_MS = 5000;
const g = globalThis as unknown as {
  __memoProviderHealth?: { key: string; at: number; value: Promise<ProviderHealth> };
};

export async function providerHealth(db: Database.Database, opts: { fresh?: boolean } = {}): Promise<ProviderHealth> {
  const s = providerStatus(db);
  const active = s.providers.find((p) => p.id === s.active);
  const now = () => new Date().toISOString();
  if (!s.ready || !active)
    return {
      state: "not_configured",
      provider: s.active,
      label: active?.label ?? null,
      detail: s.problem,
      checkedAt: now(),
    };
  // A settings change (other provider, URL, model) must not be answered from the cache.
  const key = JSON.stringify([active.id, active.baseUrl, active.model, active.apiKeySet, active.modelPath ?? null]);
  const hit = g.__memoProviderHealth;
  if (!opts.fresh && hit && hit.key === key && Date.now() - hit.at < CACHE_MS) return hit.value;
  const value = (async (): Promise<ProviderHealth> => {
    try {
      const provider = createProvider(resolveProviderConfig(db), active.id);
      // Its family's own check (families.ts): the built-in ones ask for the model list.
      await providerFamily(active.id).healthCheck(provider, AbortSignal.timeout(PROBE_MS));
      return { state: "ready", provider: active.id, label: active.label, detail: null, checkedAt: now() };
    } catch (e) {
      const detail = e instanceof ProviderError || e instanceof Error ? e.message : String(e);
      return { state: "unreachable", provider: active.id, label: active.label, detail, checkedAt: now() };
    }
  })();
  g.__memoProviderHealth = { key, at: Date.now(), value };
  return value;
}
