/**
 * What memory a chat turn may use and leave behind, decided in one place for every path that runs a
 * turn (the chat page's send, regenerate and edit; POST /api/chat; POST /v1/chat/completions).
 *
 * Sharing with the provider: a provider on this machine (loopback: `localhost`, 127.0.0.0/8, ::1)
 * always gets the recalled memories. A remote one (any other host, LAN addresses included) gets them
 * according to the owner's choice, saved per provider and host in Settings → Providers: "on", "off" or
 * "pinned" (pinned memories only). Until the owner chose, the chat page asks the first time a turn would
 * send memories; other clients get none.
 *
 * MEMO_TREAT_AS_REMOTE (TEST ONLY): comma-separated `host:port` endpoints that count as remote although
 * they are on loopback, so end-to-end tests can exercise the remote rules against a local test double.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { resolveProviderConfig, type ProviderConfig, type ProviderId, sectionValue } from "./providers";
import { familyPrefixed, providerFamily } from "./providers/families";
import { loadSetting } from "../core/settings-load";
import { writeSetting } from "../core/settings-store";
import { isMine, spaceRef } from "../core/acting";
import { spacePersonOf } from "../core/space-name";

export const SHARING_MODES = ["on", "off", "pinned"] as const;
export type SharingMode = (typeof SHARING_MODES)[number];
/** The effective sharing of a turn: a mode, or "ask" (remote and not decided yet). */
export type Sharing = SharingMode | "ask";

const SETTINGS_KEY = "privacy";

// ---------------------------------------------------------------------------------------------------------
// Loopback or remote

/**
 * Whether a URL host names this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or ::1 (also as an
 * IPv4-mapped ::ffff:127.x.y.z). The host is parsed the way a URL is (so "127.1", "0x7f.0.0.1" and
 * "[0:0:0:0:0:0:0:1]" are what fetch would connect to); anything else, LAN addresses included, is remote.
 */
export function isLoopbackHost(host: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(
      `http://${host.includes(":") && !host.startsWith("[") && host.split(":").length > 2 ? `[${host}]` : host}/`,
    ).hostname;
  } catch {
    return false;
  }
  hostname = hostname.toLowerCase().replace(/\.$/, "");
  if (hostname === "localhost") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  if (hostname === "[::1]") return true;
  // IPv4-mapped IPv6 of 127/8: the URL parser writes it as ::ffff:7fXX:XXXX.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/** The endpoints MEMO_TREAT_AS_REMOTE names (TEST ONLY), as URL hosts ("127.0.0.1:5417"). */
export function treatedAsRemote(env: string | undefined = process.env.MEMO_TREAT_AS_REMOTE): Set<string> {
  const out = new Set<string>();
  for (const part of (env ?? "").split(",")) {
    const p = part.trim();
    if (!p) continue;
    try {
      out.add(new URL(`http://${p}/`).host.toLowerCase());
    } catch {
      /* not a host: ignored */
    }
  }
  return out;
}

export interface ProviderEndpoint {
  provider: ProviderId;
  /** For people: "OpenAI-compatible". */
  label: string;
  /** Where prompts go: "api.openai.com", "192.168.1.20:11434"; the local server is "this machine". */
  host: string;
  /** Counts as this machine (loopback and not named by MEMO_TREAT_AS_REMOTE). */
  local: boolean;
  /** The key its sharing choice is saved under: "<provider>@<host>". */
  key: string;
}

/** Where a configured provider sends prompts, and whether that is this machine. */
export function providerEndpoint(cfg: ProviderConfig, id: ProviderId): ProviderEndpoint {
  // The family's descriptor (providers/families.ts): an unregistered id is an error, never another family's address.
  const family = providerFamily(id);
  const label = family.label;
  if (!family.remote) return { provider: id, label, host: "this machine", local: true, key: `${id}@local` };
  let host: string;
  try {
    const base = sectionValue(cfg, id, "baseUrl").value || null;
    const fallback = family.withoutBaseUrl === "default-address" ? family.defaultBaseUrl : null;
    host = base || fallback ? new URL((base || fallback)!).host.toLowerCase() : "(not set)";
  } catch {
    host = "(invalid URL)";
  }
  const local = isLoopbackHost(host) && !treatedAsRemote().has(host);
  return { provider: id, label, host, local, key: `${id}@${host}` };
}

/**
 * A provider endpoint's key as a person sends it ("<family>@<host>", as providerEndpoint makes it): the family
 * is one registered now (read from the registry when checked, so a family added later is accepted) and, for
 * `remote`, one whose prompts may leave the machine (only those have a sharing choice).
 */
export function endpointKeyInput(which: "remote" | "any") {
  const what = which === "remote" ? "a remote provider" : "a configured provider";
  return z
    .string()
    .trim()
    .min(3)
    .max(300)
    .refine(
      (key) => {
        const m = familyPrefixed(key, "@");
        return m !== undefined && /^\S+$/.test(m.rest) && (which === "any" || m.family.remote);
      },
      { message: `key must be <provider>@<host> of ${what}` },
    );
}

// ---------------------------------------------------------------------------------------------------------
// Saved choices

export const privacySettingsSchema = z.strictObject({
  /** Per "<provider>@<host>": what a remote provider may receive. */
  sharing: z.record(z.string().min(1).max(300), z.enum(SHARING_MODES)).default({}),
  /** Whether a temporary chat recalls memories (it never stores any). */
  temporaryReadsMemory: z.boolean().default(true),
});
export type PrivacySettings = z.infer<typeof privacySettingsSchema>;

/** The acting person's choices, or `personId`'s (a shared space's person, whose choices follow its memories). */
export function loadPrivacySettings(db: Database.Database, personId?: string): PrivacySettings {
  // Every choice that still parses is kept; one that does not is asked again (and set aside: settings-load.ts).
  return loadSetting(db, SETTINGS_KEY, privacySettingsSchema, privacySettingsSchema.parse({}), personId);
}

function updatePrivacySettings(db: Database.Database, f: (s: PrivacySettings) => void): PrivacySettings {
  return db.transaction(() => {
    const s = loadPrivacySettings(db);
    f(s);
    const clean = privacySettingsSchema.parse(s);
    writeSetting(db, SETTINGS_KEY, clean);
    return clean;
  })();
}

/** Save (or, with null, forget: ask again) the sharing choice for one provider endpoint. */
export function setSharing(db: Database.Database, key: string, mode: SharingMode | null): PrivacySettings {
  return updatePrivacySettings(db, (s) => {
    if (mode === null) delete s.sharing[key];
    else s.sharing[key] = mode;
  });
}

export function setTemporaryReadsMemory(db: Database.Database, read: boolean): PrivacySettings {
  return updatePrivacySettings(db, (s) => void (s.temporaryReadsMemory = read));
}

/** What a provider endpoint may receive: always "on" on this machine; the saved choice or "ask" otherwise. */
export function sharingFor(settings: PrivacySettings, endpoint: ProviderEndpoint): Sharing {
  if (endpoint.local) return "on";
  return settings.sharing[endpoint.key] ?? "ask";
}

// ---------------------------------------------------------------------------------------------------------
// The decision for one turn

export interface ConversationMemory {
  recall: boolean;
  store: boolean;
  temporary: boolean;
}

export interface TurnMemoryPlan {
  /** Search memory for this turn at all. */
  recall: boolean;
  /** Which recalled memories may go into the prompt. */
  only: "all" | "pinned";
  /** Count the recall (retrieval_count, importance; a temporary chat writes nothing, not even this). */
  promote: boolean;
  /** Persist the exchange as memory (and allow /remember). */
  store: boolean;
  sharing: Sharing;
  /** Why memory was not (all) sent, for the reply's memory line; null when nothing was held back. */
  reason: string | null;
  endpoint: ProviderEndpoint;
}

/**
 * The one decision every turn path calls: what to recall, what may leave the machine, what to store.
 * `canAsk`: the caller can put the sharing question to the owner (the chat page); other callers treat an
 * undecided remote provider as "off".
 */
export function planTurnMemory(
  conv: ConversationMemory,
  endpoint: ProviderEndpoint,
  settings: PrivacySettings,
  canAsk: boolean,
): TurnMemoryPlan {
  const sharing = sharingFor(settings, endpoint);
  const who = `${endpoint.label} (${endpoint.host})`;
  const base = { promote: !conv.temporary, store: conv.store && !conv.temporary, sharing, endpoint };
  if (!conv.recall) {
    return {
      ...base,
      recall: false,
      only: "all",
      reason: conv.temporary ? "temporary chat: memory is not read" : "recall is off for this conversation",
    };
  }
  if (sharing === "off" || (sharing === "ask" && !canAsk)) {
    return {
      ...base,
      recall: false,
      only: "all",
      reason: `memory not shared with ${who}${sharing === "ask" ? " (not allowed yet: choose in Settings → Providers)" : ""}`,
    };
  }
  if (sharing === "pinned")
    return { ...base, recall: true, only: "pinned", reason: `only pinned memories are shared with ${who}` };
  return { ...base, recall: true, only: "all", reason: null };
}

/**
 * The plan for a turn with a configured provider (its endpoint and the saved choices); `cfg`: the provider
 * configuration the turn already resolved (default: resolved here).
 */
export function planFor(
  db: Database.Database,
  conv: ConversationMemory,
  provider: ProviderId,
  canAsk: boolean,
  cfg: ProviderConfig = resolveProviderConfig(db),
): TurnMemoryPlan {
  return planTurnMemory(conv, providerEndpoint(cfg, provider), loadPrivacySettings(db), canAsk);
}

/** A space shared with the turn's person that its recall also reads, and which of its memories may be sent. */
export interface AddedSpace {
  space: string;
  only: "all" | "pinned";
}

/**
 * The owner's choices follow their memories (issue 43): a space shared with the turn's person is read for a
 * prompt to this endpoint only as far as both allow — the stricter of the turn's plan (its person's choice)
 * and the space's own person's choice for the same provider and host. The owner cannot be asked in someone
 * else's turn, so a remote provider they never decided on gets none of their memories; a provider on this
 * machine gets them, as it does everyone's. Returns the spaces to read and, when any was held back (wholly or
 * to its pinned memories), why, for the reply's memory line.
 */
export function planAddedSpaces(
  db: Database.Database,
  plan: TurnMemoryPlan,
  spaces: string[],
): { added: AddedSpace[]; reason: string | null } {
  const added: AddedSpace[] = [];
  const held: string[] = [];
  const who = `${plan.endpoint.label} (${plan.endpoint.host})`;
  for (const space of spaces) {
    const owners: Sharing = isMine(space)
      ? "on"
      : sharingFor(loadPrivacySettings(db, spacePersonOf(space)), plan.endpoint);
    if (owners === "off" || owners === "ask") {
      held.push(`memories of ${spaceRef(space)} are not shared with ${who} (its owner's choice)`);
      continue;
    }
    const only = owners === "pinned" || plan.only === "pinned" ? "pinned" : "all";
    if (owners === "pinned" && plan.only !== "pinned")
      held.push(`only pinned memories of ${spaceRef(space)} are shared with ${who} (its owner's choice)`);
    added.push({ space, only });
  }
  return { added, reason: held.length ? held.join("; ") : null };
}

/** What left the machine with one reply's prompt: stored with the reply and shown under it. */
export interface SentMemory {
  /** "OpenAI-compatible (api.openai.com)". */
  provider: string;
  host: string;
  local: boolean;
  sharing: Sharing;
  /** The exact memory text added to the prompt ("" when none). */
  block: string;
  ids: string[];
  /**
   * The facts the block states ("[What I know]": the facts leg's, the memories', the profile's), by id: what
   * the reply was given beside its memories (its provenance, docs/retrieval.md#provenance). Absent on
   * replies stored before it was kept.
   */
  facts?: string[];
  reason: string | null;
  /** Whether the exchange may become memory (start-up recovery skips the ones that may not). */
  stored: boolean;
  /** Set when nothing reached the provider (never asked, or no connection): why; the block stayed here. */
  notSent?: string;
}

export function sentMemory(plan: TurnMemoryPlan, block: string, ids: string[], facts: string[] = []): SentMemory {
  return {
    provider: `${plan.endpoint.label} (${plan.endpoint.host})`,
    host: plan.endpoint.host,
    local: plan.endpoint.local,
    sharing: plan.sharing,
    block,
    ids,
    facts,
    reason: plan.reason,
    stored: plan.store,
  };
}
