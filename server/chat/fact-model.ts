/**
 * Which model learns facts from an exchange, and whether one may (issue 42 item 2, docs/facts.md):
 *
 *   1. the local chat model (a GGUF served by Memo's own llama.cpp server) when there is one and learning
 *      is on for it;
 *   2. else the provider the conversation used (it has already seen the exchange) — or, for memory with no
 *      conversation (documents, imports, the back-fill), the selected provider;
 *   3. and only where learning is on for that provider AND the person's memory sharing lets memory go to it
 *      ("on": an extraction sends the exchange with the person's known facts; "pinned only" does not cover
 *      them, "off" and "ask" allow nothing).
 *
 * Learning is each person's own setting per provider endpoint (Settings → Learning facts, key
 * "<provider>@<host>" as memory sharing keys them): on by default for the local model and any endpoint on this
 * machine, off by default for a remote one (each exchange then costs one extra call there). Every decision is
 * made for the people whose memory a job carries (issue 48): the person whose space it is and anyone who
 * wrote its memories there — never the owner's choices standing in for a member's, nor the other way round.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { loadSetting } from "../core/settings-load";
import { writeSetting } from "../core/settings-store";
import { OWNER_ID, spacePersonOf } from "../core/space-name";
import { LEARNING_SETTING, learningDefault } from "./learning-fields";
import { loadPrivacySettings, providerEndpoint, sharingFor, type ProviderEndpoint } from "./memory-policy";
import {
  type ChatProvider,
  createProvider,
  isConfigured,
  type ProviderConfig,
  type ProviderId,
  providerFamilies,
  resolveProviderConfig,
} from "./providers";

const SETTINGS_KEY = LEARNING_SETTING.key;
const FIELD = LEARNING_SETTING.field;

/** Its schema, from its declaration (learning-fields.ts). */
export const learningSettingsSchema = z.strictObject({
  /** Per "<provider>@<host>": learning on or off (absent: the declared default by where the endpoint is). */
  [FIELD.name]: z.record(z.string().min(1).max(FIELD.keyMaxLength), z.boolean()).default({}),
});
export type LearningSettings = z.infer<typeof learningSettingsSchema>;

/** The acting person's learning choices, or `personId`'s (a job's person: server/chat/fact-learner.ts). */
export function loadLearningSettings(db: Database.Database, personId?: string): LearningSettings {
  return loadSetting(db, SETTINGS_KEY, learningSettingsSchema, learningSettingsSchema.parse({}), personId);
}

/** Turn learning on or off for one provider endpoint, for the acting person (null: back to its default). */
export function setLearning(db: Database.Database, key: string, on: boolean | null): LearningSettings {
  return db.transaction(() => {
    const s = loadLearningSettings(db);
    if (on === null) delete s.providers[key];
    else s.providers[key] = on;
    writeSetting(db, SETTINGS_KEY, learningSettingsSchema.parse(s));
    return s;
  })();
}

/** Whether learning is on for an endpoint: the saved choice, else on for this machine and off for remote. */
export function learningOn(settings: LearningSettings, endpoint: ProviderEndpoint): boolean {
  return settings.providers[endpoint.key] ?? learningDefault(endpoint.local);
}

export type FactModelChoice =
  | { ok: true; provider: ChatProvider; endpoint: ProviderEndpoint }
  | { ok: false; reason: string; endpoint: ProviderEndpoint | null };

const who = (e: ProviderEndpoint) => `${e.label} (${e.host})`;

/**
 * Why an endpoint may not learn for these people, or null when every one of them allows it: `people` are the
 * person ids whose memory the call would carry (undefined: the acting person, as Settings shows it).
 */
function refusal(db: Database.Database, e: ProviderEndpoint, people?: readonly string[]): string | null {
  for (const [i, person] of (people ?? [undefined]).entries()) {
    // The first is the person whose memory it is (the job's reader); another is someone who wrote into it.
    const whose = i === 0 ? "" : " (another person's choice: who wrote here, or started this)";
    if (!learningOn(loadLearningSettings(db, person), e))
      return `learning facts is off for ${who(e)}${whose} (Settings → Learning facts)`;
    const sharing = sharingFor(loadPrivacySettings(db, person), e);
    if (sharing !== "on") {
      const how = sharing === "ask" ? "not allowed yet" : sharing === "pinned" ? "pinned memories only" : "off";
      return `memory sharing with ${who(e)} is ${how}${whose} (Settings → Providers), and learning sends it the exchange with known facts`;
    }
  }
  return null;
}

/**
 * The endpoints that may learn from an exchange, in the order they are tried: each configured family that
 * learning prefers (families.ts: the local model, which costs nothing), then `conversationProvider` (null: the
 * selected one) when it is configured. Plain data: no client is built; whose choices allow which is asked apart
 * (firstAllowed), so the write that queues a job reads only settings (learning-decision.ts).
 */
export function factModelCandidates(
  cfg: ProviderConfig,
  conversationProvider: ProviderId | null,
): FactModelCandidate[] {
  const out: FactModelCandidate[] = providerFamilies()
    .filter((f) => f.learning.preferred)
    .map((f) => f.id as ProviderId)
    .filter((id) => isConfigured(cfg, id).ok)
    .map((id) => ({ id, endpoint: providerEndpoint(cfg, id), preferred: true }));
  const id = conversationProvider ?? cfg.active.value;
  if (id && isConfigured(cfg, id).ok) out.push({ id, endpoint: providerEndpoint(cfg, id), preferred: false });
  return out;
}

/** An endpoint that may learn: a preferred family's, or the conversation's provider (the last, not preferred). */
export interface FactModelCandidate {
  id: ProviderId;
  endpoint: ProviderEndpoint;
  preferred: boolean;
}

/**
 * The first of the candidates every one of `people` lets learn, or why none may: the conversation's provider's
 * refusal, or that it is not configured (a preferred family's refusal is not the reason: it was only a first try).
 */
export function firstAllowed(
  db: Database.Database,
  candidates: readonly FactModelCandidate[],
  people: readonly string[],
): { ok: true; candidate: FactModelCandidate } | { ok: false; reason: string; endpoint: ProviderEndpoint | null } {
  let why: string | null = null;
  for (const c of candidates) {
    why = refusal(db, c.endpoint, people);
    if (!why) return { ok: true, candidate: c };
  }
  const own = candidates.find((c) => !c.preferred);
  return own
    ? { ok: false, reason: why!, endpoint: own.endpoint }
    : { ok: false, reason: "no chat provider is configured to learn facts with", endpoint: null };
}

/**
 * The model to learn from an exchange with: the local chat model when there is one and it may, else
 * `conversationProvider` (null: the selected one) when it may. `people`: whose choices decide — the person
 * whose space the exchange is in and anyone else who wrote it (learnersOf); each must allow the endpoint.
 * Nothing is created for a refusal. `cfg`: a provider configuration already resolved (default: resolved here).
 */
export function chooseFactModel(
  db: Database.Database,
  conversationProvider: ProviderId | null,
  people: readonly string[],
  cfg: ProviderConfig = resolveProviderConfig(db),
): FactModelChoice {
  const allowed = firstAllowed(db, factModelCandidates(cfg, conversationProvider), people);
  if (!allowed.ok) return allowed;
  const { id, endpoint } = allowed.candidate;
  return { ok: true, provider: createProvider(cfg, id), endpoint };
}

export interface LearningProviderStatus extends ProviderEndpoint {
  /** Learning on for it now (saved, or the default). */
  on: boolean;
  /** Whether that is the default (nothing saved). */
  isDefault: boolean;
  /** Why it would not learn although on (memory sharing), or null. */
  blocked: string | null;
  active: boolean;
}

/**
 * The people whose choices decide learning from memories of `spaceId`: its person, and whoever else wrote
 * the given memories there (a read-write sharee; a removed writer has no choices left and is not asked).
 */
export function learnersOf(db: Database.Database, spaceId: string, memoryIds: readonly string[] = []): string[] {
  const people = new Set([spacePersonOf(spaceId)]);
  const writer = db.prepare(
    `SELECT m.written_by AS w FROM memories m
      WHERE m.id = ? AND (m.written_by = ? OR m.written_by IN (SELECT id FROM people))`,
  );
  for (const id of memoryIds) {
    const w = (writer.get(id, OWNER_ID) as { w: string } | undefined)?.w;
    if (w) people.add(w);
  }
  return [...people];
}

/** Each configured provider endpoint with the acting person's learning switch (what Settings shows). */
export function learningStatus(db: Database.Database): LearningProviderStatus[] {
  const cfg = resolveProviderConfig(db);
  const s = loadLearningSettings(db);
  const ids = providerFamilies().map((f) => f.id as ProviderId);
  return ids
    .filter((id) => isConfigured(cfg, id).ok)
    .map((id) => {
      const e = providerEndpoint(cfg, id);
      const on = learningOn(s, e);
      const why = refusal(db, e);
      return {
        ...e,
        on,
        isDefault: s.providers[e.key] === undefined,
        blocked: on ? why : null,
        active: cfg.active.value === id,
      };
    });
}
