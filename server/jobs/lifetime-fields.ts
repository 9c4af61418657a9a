/**
 * The decay days of each person's lifetime setting, declared once: their range and default are the schema's
 * (settings.ts jobSettingsSchema, DEFAULT_JOB_SETTINGS), their label, unit and help the form's (Settings →
 * Lifetime of your memories, app/settings/lifetime-section.tsx renders one input per entry). Plain data, no
 * server imports, so the page can read it.
 */
export interface DayField {
  key: "idleDays" | "zeroDays" | "retentionDays";
  /** Each person's own (the household's schedule: schedule-fields.ts). */
  scope: "personal";
  /** The input's element id. */
  inputId: string;
  label: string;
  help: string;
  unit: "days";
  min: number;
  max: number;
  default: number;
}

export const DECAY_DAY_FIELDS = [
  {
    key: "idleDays",
    scope: "personal",
    inputId: "lifetime-idle",
    label: "Idle days before decay",
    help: "Not recalled this long: −1 importance per day",
    unit: "days",
    min: 1,
    max: 3650,
    default: 14,
  },
  {
    key: "zeroDays",
    scope: "personal",
    inputId: "lifetime-zero",
    label: "Days at importance 0",
    help: "Then soft-deleted (restorable)",
    unit: "days",
    min: 1,
    max: 3650,
    default: 7,
  },
  {
    key: "retentionDays",
    scope: "personal",
    inputId: "lifetime-retention",
    label: "Retention of deleted memories",
    help: "Days before soft-deleted memories are purged for good",
    unit: "days",
    min: 1,
    max: 3650,
    default: 30,
  },
] as const satisfies readonly DayField[];

export function dayField(key: DayField["key"]): DayField {
  return DECAY_DAY_FIELDS.find((f) => f.key === key)!;
}
