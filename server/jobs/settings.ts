/**
 * Settings of the background jobs (docs/storage.md#what-each-job-may-change), stored as JSON in the `settings` table under `jobs`.
 * Defaults: decay daily at 03:00 (server local time), consolidation right after it; a memory decays after
 * 14 days without retrieval, is soft-deleted after 7 days at importance 0, and soft-deleted rows are
 * purged after 30 days; consolidation merges pairs with cosine ≥ 0.92 (a per-embedding-model setting)
 * among the 200 most recent live memories of each space. The decay days and which kinds decay are each
 * person's own (loadPersonLifetime); the schedule and consolidation are the household's.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { actingPersonId } from "../core/acting";
import { readSetting, type SettingScope, writeSetting } from "../core/settings-store";
import type { DecayRules } from "../memory/lifecycle/decay";
import { OWNER_ID } from "../core/space-name";
import { type DayField, dayField } from "./lifetime-fields";
import { AFTER_DECAY, jobField } from "./schedule-fields";

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a time of day as HH:MM (24-hour)");

export const DEFAULT_CONSOLIDATION_THRESHOLD = jobField("consolidate", "thresholds").default;
const THRESHOLD = jobField("consolidate", "thresholds");
const threshold = z.number().min(THRESHOLD.min).max(THRESHOLD.max);
const MAX_PER_SPACE = jobField("consolidate", "maxPerSpace");

/** A decay-days field's number, its range from its declaration (lifetime-fields.ts). */
const days = (key: DayField["key"]) => z.number().int().min(dayField(key).min).max(dayField(key).max);

/** Per kind: "decay" (loses importance when idle, soft-deleted at 0, purged later) or "keep" (never decays). */
export const lifetimePolicy = z.enum(["decay", "keep"]);
/** The kinds whose lifetime is a setting; `document` chunks always live exactly as long as their document. */
export const LIFETIME_KINDS = ["chat", "consolidated", "remember", "import"] as const;
export type LifetimeKind = (typeof LIFETIME_KINDS)[number];
const lifetimeSchema = z.strictObject({
  chat: lifetimePolicy,
  consolidated: lifetimePolicy,
  remember: lifetimePolicy,
  import: lifetimePolicy,
});

export const jobSettingsSchema = z.strictObject({
  decay: z.strictObject({
    enabled: z.boolean(),
    /** Daily, at this local time. */
    time: hhmm,
    /** A memory not retrieved for this many days loses 1 importance per daily run. */
    idleDays: days("idleDays"),
    /** A memory at importance 0 for this many days is soft-deleted. */
    zeroDays: days("zeroDays"),
    /** Soft-deleted memories are purged from every table after this many days. */
    retentionDays: days("retentionDays"),
  }),
  consolidate: z.strictObject({
    enabled: z.boolean(),
    /** "after-decay": right after each scheduled decay run; else its own daily time. */
    time: z.union([z.literal(AFTER_DECAY), hhmm]),
    /** Cosine similarity at or above which two memories are merged, per embedding model. */
    thresholds: z.record(z.string().min(1).max(200), threshold),
    /** Memories compared per space (the most recent live ones). */
    maxPerSpace: z.number().int().min(MAX_PER_SPACE.min).max(MAX_PER_SPACE.max),
  }),
  /** What decays, by kind (docs/storage.md "What Memo keeps, and for how long"). */
  lifetime: lifetimeSchema,
});

export type JobSettings = z.infer<typeof jobSettingsSchema>;

export const DEFAULT_JOB_SETTINGS: JobSettings = {
  decay: {
    enabled: jobField("decay", "enabled").default,
    time: jobField("decay", "time").default,
    idleDays: dayField("idleDays").default,
    zeroDays: dayField("zeroDays").default,
    retentionDays: dayField("retentionDays").default,
  },
  consolidate: {
    enabled: jobField("consolidate", "enabled").default,
    time: jobField("consolidate", "time").default,
    thresholds: {},
    maxPerSpace: MAX_PER_SPACE.default,
  },
  lifetime: { chat: "decay", consolidated: "decay", remember: "keep", import: "keep" },
};

/** A change from the Settings page or the API: any subset; `thresholds` entries are merged in (null removes one). */
export const jobSettingsPatchSchema = z.strictObject({
  decay: jobSettingsSchema.shape.decay.partial().optional(),
  consolidate: z
    .strictObject({
      enabled: z.boolean().optional(),
      time: jobSettingsSchema.shape.consolidate.shape.time.optional(),
      thresholds: z.record(z.string().min(1).max(200), threshold.nullable()).optional(),
      maxPerSpace: jobSettingsSchema.shape.consolidate.shape.maxPerSpace.optional(),
    })
    .optional(),
  lifetime: lifetimeSchema.partial().optional(),
});
export type JobSettingsPatch = z.infer<typeof jobSettingsPatchSchema>;

const KEY = "jobs";
/** Each person's own lifetime rules (a personal setting, server/core/settings-store.ts). */
const LIFETIME_KEY = "lifetime";

/**
 * Whose each field of the job settings is (issue 32: decay runs over everyone's memories, by each person's
 * settings), read from each field's declaration (schedule-fields.ts, lifetime-fields.ts): the household's
 * record (`jobs`: the schedule, consolidation) or each person's (`lifetime`: the decay days and which kinds
 * decay; a personal field of `decay` is stored flat there). Reading merges and saving splits by this, and
 * the person's schema is cut from it; a field added to the schema without one here is a type error.
 */
export const JOB_SETTING_SCOPES = {
  decay: {
    enabled: jobField("decay", "enabled").scope,
    time: jobField("decay", "time").scope,
    idleDays: dayField("idleDays").scope,
    zeroDays: dayField("zeroDays").scope,
    retentionDays: dayField("retentionDays").scope,
  },
  consolidate: "household",
  lifetime: "personal",
} as const satisfies { [K in keyof JobSettings]: SettingScope | { [F in keyof JobSettings[K]]-?: SettingScope } };

type DecayScopes = (typeof JOB_SETTING_SCOPES)["decay"];
type PersonalDecayField = {
  [F in keyof DecayScopes]: DecayScopes[F] extends "personal" ? F : never;
}[keyof DecayScopes];
const PERSONAL_DECAY_FIELDS = (Object.keys(JOB_SETTING_SCOPES.decay) as (keyof DecayScopes)[]).filter(
  (f) => JOB_SETTING_SCOPES.decay[f] === "personal",
) as PersonalDecayField[];

/** A person's lifetime rules: the personal fields of `decay`, and `lifetime`. */
export const personLifetimeSchema = jobSettingsSchema.shape.decay
  .pick(Object.fromEntries(PERSONAL_DECAY_FIELDS.map((f) => [f, true])) as { [F in PersonalDecayField]: true })
  .extend({ lifetime: lifetimeSchema });
export type PersonLifetime = z.infer<typeof personLifetimeSchema>;

/** The rules decay applies for a person (decay.ts DecayRules: the one shape of them). */
export function decayRulesOf(l: PersonLifetime): DecayRules {
  return {
    idleDays: l.idleDays,
    zeroDays: l.zeroDays,
    retentionDays: l.retentionDays,
    kinds: LIFETIME_KINDS.filter((k) => l.lifetime[k] === "decay"),
  };
}

/** The household record as stored under `jobs`; its decay days and lifetime are the owner's from before people existed. */
function loadHousehold(db: Database.Database): JobSettings {
  const saved = readSetting(db, KEY);
  const base = structuredClone(DEFAULT_JOB_SETTINGS);
  if (saved === undefined) return base;
  return parseHousehold(overSections(base, saved)) ?? base;
}

/** The merged record checked against the schema, or null (the caller keeps the defaults). */
function parseHousehold(merged: unknown): JobSettings | null {
  const parsed = jobSettingsSchema.safeParse(merged);
  return parsed.success ? parsed.data : null;
}

/**
 * Saved sections over the defaults, field by field, for EVERY section of `base` (each job's settings section,
 * job-kinds.ts, is one of them): a section added to the defaults keeps its saved values without an edit here. A
 * section's fields are replaced whole (consolidation's per-model `thresholds` is the saved record).
 */
export function overSections<T extends object>(base: T, saved: unknown): T {
  const out = { ...base };
  const from = (saved && typeof saved === "object" ? saved : {}) as Record<string, unknown>;
  for (const k of Object.keys(base) as (keyof T & string)[]) {
    const v = from[k];
    if (v && typeof v === "object" && !Array.isArray(v)) out[k] = { ...base[k], ...v } as T[typeof k];
  }
  return out;
}

/**
 * One person's lifetime rules (the acting person's by default): their saved `lifetime` setting, else the
 * defaults. The owner's fall back to the values in the household record, where they were kept before
 * people existed (so a store from then decays as it did).
 */
export function loadPersonLifetime(db: Database.Database, personId: string = actingPersonId()): PersonLifetime {
  const base =
    personId === OWNER_ID ? personalPart(loadHousehold(db)) : personalPart(structuredClone(DEFAULT_JOB_SETTINGS));
  const saved = readSetting(db, LIFETIME_KEY, personId) as Partial<PersonLifetime> | undefined;
  if (saved === undefined || saved === null || typeof saved !== "object") return base;
  const parsed = personLifetimeSchema.safeParse({
    ...base,
    ...saved,
    lifetime: { ...base.lifetime, ...(saved.lifetime ?? {}) },
  });
  return parsed.success ? parsed.data : base;
}

/** The personal fields of full settings, as a person's record holds them. */
function personalPart(s: JobSettings): PersonLifetime {
  const out: Record<string, unknown> = { lifetime: s.lifetime };
  for (const f of PERSONAL_DECAY_FIELDS) out[f] = s.decay[f];
  return out as PersonLifetime;
}

/** Save a change to the acting person's lifetime rules (any subset); returns their rules now in force. */
export function savePersonLifetime(
  db: Database.Database,
  patch: Partial<Omit<PersonLifetime, "lifetime">> & { lifetime?: Partial<PersonLifetime["lifetime"]> },
): PersonLifetime {
  return db.transaction(() => {
    const cur = loadPersonLifetime(db);
    const next = personLifetimeSchema.parse({
      ...cur,
      ...Object.fromEntries(Object.entries(patch).filter(([k, v]) => k !== "lifetime" && v !== undefined)),
      lifetime: { ...cur.lifetime, ...(patch.lifetime ?? {}) },
    });
    writeSetting(db, LIFETIME_KEY, next);
    return next;
  })();
}

/**
 * The job settings as the acting person sees them: the household's schedule and consolidation, with their
 * own decay days and lifetime policy (loadPersonLifetime).
 */
export function loadJobSettings(db: Database.Database): JobSettings {
  const h = loadHousehold(db);
  const mine = loadPersonLifetime(db);
  const decay = { ...h.decay };
  for (const f of PERSONAL_DECAY_FIELDS) decay[f] = mine[f];
  return { ...h, decay, lifetime: mine.lifetime };
}

/**
 * Validate and store a change; returns the settings now in force. The schedule and consolidation go to the
 * household record; the decay days and lifetime policy are the acting person's own (savePersonLifetime).
 */
export function saveJobSettings(db: Database.Database, patch: JobSettingsPatch): JobSettings {
  const p = jobSettingsPatchSchema.parse(patch);
  return db.transaction(() => {
    const cur = loadHousehold(db);
    const thresholds = { ...cur.consolidate.thresholds };
    for (const [model, v] of Object.entries(p.consolidate?.thresholds ?? {})) {
      if (v === null) delete thresholds[model];
      else thresholds[model] = v;
    }
    const { thresholds: _t, ...consolidateRest } = p.consolidate ?? {};
    // Split by JOB_SETTING_SCOPES: the personal fields of `decay` go to the person's record.
    const schedule: Partial<JobSettings["decay"]> = {};
    const mine: Partial<Omit<PersonLifetime, "lifetime">> = {};
    for (const [f, v] of Object.entries(p.decay ?? {}) as [keyof DecayScopes, never][]) {
      if (v === undefined) continue;
      if (JOB_SETTING_SCOPES.decay[f] === "personal") mine[f as PersonalDecayField] = v;
      else schedule[f] = v;
    }
    const next = jobSettingsSchema.parse({
      decay: { ...cur.decay, ...schedule },
      consolidate: { ...cur.consolidate, ...consolidateRest, thresholds },
      lifetime: cur.lifetime,
    });
    writeSetting(db, KEY, next);
    if (Object.keys(mine).length > 0 || p.lifetime) savePersonLifetime(db, { ...mine, lifetime: p.lifetime });
    return loadJobSettings(db);
  })();
}

/** The consolidation threshold for an embedding model: its saved value, else 0.92. */
export function consolidationThreshold(s: JobSettings, model: string | undefined): number {
  return (model && s.consolidate.thresholds[model]) || DEFAULT_CONSOLIDATION_THRESHOLD;
}

/** "03:00" → the node-cron expression for daily at that time. */
export function dailyCron(time: string): string {
  const [h, m] = time.split(":").map(Number);
  return `0 ${m} ${h} * * *`;
}
