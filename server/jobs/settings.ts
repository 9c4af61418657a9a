/**
 * Settings of the background jobs (docs/storage.md#what-each-job-may-change), stored as JSON in the `settings` table under `jobs`.
 * Defaults: decay daily at 03:00 (server local time), consolidation right after it; a memory decays after
 * 14 days without retrieval, is soft-deleted after 7 days at importance 0, and soft-deleted rows are
 * purged after 30 days; consolidation merges pairs with cosine ≥ 0.92 (a per-embedding-model setting)
 * among the 200 most recent live memories of each space.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { readSetting, writeSetting } from "../core/settings-store";

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a time of day as HH:MM (24-hour)");

export const DEFAULT_CONSOLIDATION_THRESHOLD = 0.92;

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
    idleDays: z.number().int().min(1).max(3650),
    /** A memory at importance 0 for this many days is soft-deleted. */
    zeroDays: z.number().int().min(1).max(3650),
    /** Soft-deleted memories are purged from every table after this many days. */
    retentionDays: z.number().int().min(1).max(3650),
  }),
  consolidate: z.strictObject({
    enabled: z.boolean(),
    /** "after-decay": right after each scheduled decay run; else its own daily time. */
    time: z.union([z.literal("after-decay"), hhmm]),
    /** Cosine similarity at or above which two memories are merged, per embedding model. */
    thresholds: z.record(z.string().min(1).max(200), z.number().min(0.5).max(1)),
    /** Memories compared per space (the most recent live ones). */
    maxPerSpace: z.number().int().min(2).max(2000),
  }),
  /** What decays, by kind (docs/storage.md "What Memo keeps, and for how long"). */
  lifetime: lifetimeSchema,
});

export type JobSettings = z.infer<typeof jobSettingsSchema>;

export const DEFAULT_JOB_SETTINGS: JobSettings = {
  decay: { enabled: true, time: "03:00", idleDays: 14, zeroDays: 7, retentionDays: 30 },
  consolidate: { enabled: true, time: "after-decay", thresholds: {}, maxPerSpace: 200 },
  lifetime: { chat: "decay", consolidated: "decay", remember: "keep", import: "keep" },
};

/** The kinds the decay job touches under these settings (never `document`). */
export function decayingKinds(s: JobSettings): LifetimeKind[] {
  return LIFETIME_KINDS.filter((k) => s.lifetime[k] === "decay");
}

/** A change from the Settings page or the API: any subset; `thresholds` entries are merged in (null removes one). */
export const jobSettingsPatchSchema = z.strictObject({
  decay: jobSettingsSchema.shape.decay.partial().optional(),
  consolidate: z
    .strictObject({
      enabled: z.boolean().optional(),
      time: jobSettingsSchema.shape.consolidate.shape.time.optional(),
      thresholds: z.record(z.string().min(1).max(200), z.number().min(0.5).max(1).nullable()).optional(),
      maxPerSpace: jobSettingsSchema.shape.consolidate.shape.maxPerSpace.optional(),
    })
    .optional(),
  lifetime: lifetimeSchema.partial().optional(),
});
export type JobSettingsPatch = z.infer<typeof jobSettingsPatchSchema>;

const KEY = "jobs";

export function loadJobSettings(db: Database.Database): JobSettings {
  const saved = readSetting(db, KEY) as Partial<JobSettings> | undefined;
  const base = structuredClone(DEFAULT_JOB_SETTINGS);
  if (saved === undefined) return base;
  try {
    const merged = {
      decay: { ...base.decay, ...(saved.decay ?? {}) },
      consolidate: {
        ...base.consolidate,
        ...(saved.consolidate ?? {}),
        thresholds: { ...(saved.consolidate?.thresholds ?? {}) },
      },
      lifetime: { ...base.lifetime, ...(saved.lifetime ?? {}) },
    };
    const parsed = jobSettingsSchema.safeParse(merged);
    return parsed.success ? parsed.data : base;
  } catch {
    return base;
  }
}

/** Validate and store a change (one statement); returns the settings now in force. */
export function saveJobSettings(db: Database.Database, patch: JobSettingsPatch): JobSettings {
  const p = jobSettingsPatchSchema.parse(patch);
  return db.transaction(() => {
    const cur = loadJobSettings(db);
    const thresholds = { ...cur.consolidate.thresholds };
    for (const [model, v] of Object.entries(p.consolidate?.thresholds ?? {})) {
      if (v === null) delete thresholds[model];
      else thresholds[model] = v;
    }
    const { thresholds: _t, ...consolidateRest } = p.consolidate ?? {};
    const next = jobSettingsSchema.parse({
      decay: { ...cur.decay, ...(p.decay ?? {}) },
      consolidate: { ...cur.consolidate, ...consolidateRest, thresholds },
      lifetime: { ...cur.lifetime, ...(p.lifetime ?? {}) },
    });
    writeSetting(db, KEY, next);
    return next;
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
