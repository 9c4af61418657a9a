/**
 * The decay days are declared once (lifetime-fields.ts): the settings schema enforces each field's range and
 * the defaults are its default, so the form that renders the declaration shows what the server accepts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DECAY_DAY_FIELDS } from "./lifetime-fields";
import { DEFAULT_JOB_SETTINGS, jobSettingsSchema } from "./settings";

const withDecay = (patch: Record<string, number>) => ({
  ...DEFAULT_JOB_SETTINGS,
  decay: { ...DEFAULT_JOB_SETTINGS.decay, ...patch },
});

test("each declared decay-days field: the schema's range and the default are the declaration's", () => {
  assert.deepEqual(
    DECAY_DAY_FIELDS.map((f) => f.key),
    ["idleDays", "zeroDays", "retentionDays"],
  );
  for (const f of DECAY_DAY_FIELDS) {
    assert.equal(DEFAULT_JOB_SETTINGS.decay[f.key], f.default, `${f.key} default`);
    assert.ok(jobSettingsSchema.safeParse(withDecay({ [f.key]: f.min })).success, `${f.key} = min`);
    assert.ok(jobSettingsSchema.safeParse(withDecay({ [f.key]: f.max })).success, `${f.key} = max`);
    assert.equal(jobSettingsSchema.safeParse(withDecay({ [f.key]: f.min - 1 })).success, false, `${f.key} < min`);
    assert.equal(jobSettingsSchema.safeParse(withDecay({ [f.key]: f.max + 1 })).success, false, `${f.key} > max`);
    assert.ok(f.label && f.help && f.inputId.startsWith("lifetime-"));
  }
});
