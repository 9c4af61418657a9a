/**
 * The household's job settings (the schedule and consolidation), declared once: whose each is, its default and
 * range are what the settings read (settings.ts jobSettingsSchema, DEFAULT_JOB_SETTINGS, JOB_SETTING_SCOPES),
 * its control, label and help what Settings → Background jobs renders (app/settings/jobs-section.tsx: one
 * control per entry, section by section). The decay days are each person's: lifetime-fields.ts. Plain data,
 * no server imports, so the page can read it.
 */

/** The sections of the job settings the form shows, in its order, with their fieldset's legend and note. */
export const JOB_SECTIONS = [
  {
    key: "decay",
    legend: "Decay",
    note: "Each run applies each person's own lifetime rules (Lifetime of your memories, above).",
  },
  { key: "consolidate", legend: "Consolidation", note: null },
] as const;
export type JobSectionKey = (typeof JOB_SECTIONS)[number]["key"];

interface FieldBase {
  section: JobSectionKey;
  /** Its key in the section (`thresholds`: the one for the store's embedding model). */
  key: string;
  scope: "household";
  label: string;
  /** What it does; the form adds its default. */
  help: string;
}

export type JobField =
  /** A checkbox: on or off. */
  | (FieldBase & { control: "toggle"; default: boolean })
  /**
   * A daily time, HH:MM (24-hour). `orAfterDecay`: the value may instead be "after-decay" (right after each
   * decay run; a checkbox), and `time` is what the input shows then.
   */
  | (FieldBase & {
      control: "time";
      inputId: string;
      default: string;
      orAfterDecay?: { label: string; time: string };
    })
  /** A number in [min, max]; `perModel`: one value per embedding model (disabled until the store has one). */
  | (FieldBase & {
      control: "number";
      inputId: string;
      default: number;
      min: number;
      max: number;
      step: number;
      perModel?: true;
    });

export const AFTER_DECAY = "after-decay";

export const JOB_FIELDS = [
  {
    section: "decay",
    key: "enabled",
    scope: "household",
    control: "toggle",
    label: "Run daily",
    help: "",
    default: true,
  },
  {
    section: "decay",
    key: "time",
    scope: "household",
    control: "time",
    inputId: "jobs-decay-time",
    label: "At",
    help: "24-hour time",
    default: "03:00",
  },
  {
    section: "consolidate",
    key: "enabled",
    scope: "household",
    control: "toggle",
    label: "Merge near-duplicate memories daily (needs a chat provider)",
    help: "",
    default: true,
  },
  {
    section: "consolidate",
    key: "time",
    scope: "household",
    control: "time",
    inputId: "jobs-cons-time",
    label: "At",
    help: "Or right after decay",
    default: AFTER_DECAY,
    orAfterDecay: { label: "Right after decay", time: "03:30" },
  },
  {
    section: "consolidate",
    key: "thresholds",
    scope: "household",
    control: "number",
    inputId: "jobs-threshold",
    label: "Similarity threshold",
    help: "Cosine ≥ this merges",
    default: 0.92,
    min: 0.5,
    max: 1,
    step: 0.01,
    perModel: true,
  },
  {
    section: "consolidate",
    key: "maxPerSpace",
    scope: "household",
    control: "number",
    inputId: "jobs-max",
    label: "Memories compared per space",
    help: "The most recent ones",
    default: 200,
    min: 2,
    max: 2000,
    step: 1,
  },
] as const satisfies readonly JobField[];

type Declared = (typeof JOB_FIELDS)[number];

/** The declaration of one field, typed by its section and key. */
export function jobField<S extends JobSectionKey, K extends Extract<Declared, { section: S }>["key"]>(
  section: S,
  key: K,
): Extract<Declared, { section: S; key: K }> {
  return JOB_FIELDS.find((f) => f.section === section && f.key === key) as Extract<Declared, { section: S; key: K }>;
}

/** The form's hint: its help and its default ("Or right after decay (default)" for the after-decay time). */
export function jobFieldHint(f: JobField, perModel?: string | null): string {
  if (f.control === "time" && f.orAfterDecay && f.default === AFTER_DECAY) return `${f.help} (default)`;
  if (f.control === "number" && f.perModel)
    return perModel
      ? `${f.help}; for ${perModel}; default ${f.default}`
      : `Set once the store has an embedding model; default ${f.default}`;
  return f.help ? `${f.help}; default ${f.default}` : `default ${f.default}`;
}
