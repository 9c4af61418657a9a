/**
 * The household's job settings are declared once (schedule-fields.ts): each field's default is the settings'
 * default, its range the schema's, its scope the one reading and saving split by; every field of the
 * household's sections is declared (so the form, which renders the declaration, shows each), and the decay
 * days, each person's, are declared in lifetime-fields.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DECAY_DAY_FIELDS } from "./lifetime-fields";
import { AFTER_DECAY, JOB_FIELDS, type JobField, jobFieldHint } from "./schedule-fields";
import { DEFAULT_JOB_SETTINGS, JOB_SETTING_SCOPES, jobSettingsPatchSchema, jobSettingsSchema } from "./settings";

const fields = JOB_FIELDS as readonly JobField[];
const withField = (f: JobField, v: unknown) => ({
  ...DEFAULT_JOB_SETTINGS,
  [f.section]: { ...DEFAULT_JOB_SETTINGS[f.section], [f.key]: f.control === "number" && f.perModel ? { m: v } : v },
});
const accepts = (f: JobField, v: unknown) => jobSettingsSchema.safeParse(withField(f, v)).success;

test("every field of the job settings is declared once: the schedule here, the decay days per person", () => {
  const declared = [...fields.map((f) => `${f.section}.${f.key}`), ...DECAY_DAY_FIELDS.map((f) => `decay.${f.key}`)];
  assert.equal(new Set(declared).size, declared.length);
  const schemaFields = (["decay", "consolidate"] as const).flatMap((s) =>
    Object.keys(jobSettingsSchema.shape[s].shape).map((k) => `${s}.${k}`),
  );
  assert.deepEqual([...declared].sort(), schemaFields.sort());
  const ids = fields.flatMap((f) => (f.control === "toggle" ? [] : [f.inputId]));
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^jobs-/);
});

test("each declared field's scope is the one reading and saving split by", () => {
  for (const f of fields) {
    const scope = JOB_SETTING_SCOPES[f.section];
    assert.equal(typeof scope === "string" ? scope : (scope as Record<string, string>)[f.key], f.scope, f.key);
  }
  for (const f of DECAY_DAY_FIELDS) assert.equal(JOB_SETTING_SCOPES.decay[f.key], f.scope);
});

test("each declared field's default is the settings' default and its range the schema's", () => {
  for (const f of fields) {
    const saved = DEFAULT_JOB_SETTINGS[f.section][f.key as never];
    if (f.control === "number" && f.perModel) assert.deepEqual(saved, {}, "no model's value saved by default");
    else assert.equal(saved, f.default, `${f.section}.${f.key} default`);
    assert.ok(accepts(f, f.default), `${f.key}: its default is valid`);
    if (f.control === "number") {
      assert.ok(accepts(f, f.min) && accepts(f, f.max), `${f.key}: min and max`);
      assert.equal(accepts(f, f.min - f.step), false, `${f.key} < min`);
      assert.equal(accepts(f, f.max + f.step), false, `${f.key} > max`);
      // The patch the form sends is held to the same range.
      const patch = { [f.section]: { [f.key]: f.perModel ? { m: f.max + f.step } : f.max + f.step } };
      assert.equal(jobSettingsPatchSchema.safeParse(patch).success, false, `${f.key} patch > max`);
    }
    if (f.control === "time") {
      assert.ok(accepts(f, "23:59"));
      assert.equal(accepts(f, "24:00"), false, `${f.key}: not a time`);
      assert.equal(accepts(f, AFTER_DECAY), Boolean(f.orAfterDecay), `${f.key}: after decay only where declared`);
    }
    if (f.control === "toggle") assert.equal(accepts(f, "yes"), false);
  }
});

test("the form's hints name each default", () => {
  assert.deepEqual(
    fields.map((f) => (f.control === "toggle" ? f.label : jobFieldHint(f, "nomic"))),
    [
      "Run daily",
      "24-hour time; default 03:00",
      "Merge near-duplicate memories daily (needs a chat provider)",
      "Or right after decay (default)",
      "Cosine ≥ this merges; for nomic; default 0.92",
      "The most recent ones; default 200",
    ],
  );
  const threshold = fields.find((f) => f.key === "thresholds")!;
  assert.equal(jobFieldHint(threshold, null), "Set once the store has an embedding model; default 0.92");
});
