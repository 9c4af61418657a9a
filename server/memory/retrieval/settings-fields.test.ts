/**
 * The retrieval form's numeric fields are declared once (settings-fields.ts): each declared range is the
 * schema's, read from retrievalSettingsSchema itself, and every numeric setting of the schema is either
 * declared or listed as not shown with its reason, so a setting added to the schema cannot slip past the form.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import {
  NOT_SHOWN,
  RETRIEVAL_FIELDS,
  fieldValue,
  fieldsPatch,
  retrievalFields,
  type RetrievalFieldPath,
} from "./settings-fields";
import { defaultSettingsFor, retrievalSettingsSchema } from "./settings";
import { TECHNIQUES } from "./techniques";

/** Every number in the schema, by its path (`weights.vector`), defaults unwrapped. */
function schemaNumbers(shape: Record<string, z.ZodType>, prefix = ""): Map<string, z.ZodNumber> {
  const out = new Map<string, z.ZodNumber>();
  for (const [key, raw] of Object.entries(shape)) {
    const t = raw instanceof z.ZodDefault ? (raw.unwrap() as z.ZodType) : raw;
    if (t instanceof z.ZodNumber) out.set(prefix + key, t);
    else if (t instanceof z.ZodObject) for (const [p, n] of schemaNumbers(t.shape, `${prefix}${key}.`)) out.set(p, n);
  }
  return out;
}

const numbers = schemaNumbers(retrievalSettingsSchema.shape);

test("the schema's numbers are found (the walk itself reads nested weights and defaulted fields)", () => {
  assert.ok(numbers.has("topN") && numbers.has("weights.vector") && numbers.has("profileTokens"));
  assert.equal(numbers.get("topN")?.isInt, true);
  assert.equal(numbers.get("ftsFloor")?.maxValue, Number.POSITIVE_INFINITY);
});

test("each declared field's range is the schema's, and its step fits an integer setting", () => {
  for (const f of RETRIEVAL_FIELDS) {
    const n = numbers.get(f.path);
    assert.ok(n, `${f.path} is a number in retrievalSettingsSchema`);
    assert.equal(f.min, n.minValue, `${f.path} min`);
    assert.equal(f.max ?? Number.POSITIVE_INFINITY, n.maxValue, `${f.path} max`);
    if (n.isInt) assert.ok(Number.isInteger(f.step), `${f.path}: an integer setting steps by whole numbers`);
    assert.ok(f.step > 0 && f.label && f.inputId.startsWith("rs-"), f.path);
  }
});

test("every numeric setting of the schema is declared or listed as not shown, with its reason; none both", () => {
  const declared = new Set<string>(RETRIEVAL_FIELDS.map((f) => f.path));
  for (const path of numbers.keys()) {
    const notShown = NOT_SHOWN[path];
    assert.ok(declared.has(path) !== (notShown !== undefined), `${path}: declared xor not shown`);
    if (notShown !== undefined) assert.ok(notShown.length > 20, `${path}: a reason`);
  }
  for (const path of Object.keys(NOT_SHOWN)) assert.ok(numbers.has(path), `${path} not shown is a schema number`);
});

test("paths, input ids and labels are unique; the techniques are declared as techniques.ts has them", () => {
  for (const key of ["path", "inputId", "label"] as const)
    assert.equal(new Set(RETRIEVAL_FIELDS.map((f) => f[key])).size, RETRIEVAL_FIELDS.length, key);
  const techniques = retrievalFields("techniques");
  for (const t of TECHNIQUES) {
    const f = techniques.find((x) => x.path === t.key);
    assert.ok(f, t.key);
    assert.deepEqual([f.label, f.help, f.min, f.max, f.step], [t.label, t.does, t.min, t.max, t.step]);
  }
  // A select lists every step from min to max: only for few values.
  for (const f of RETRIEVAL_FIELDS.filter((x) => x.control === "select"))
    assert.ok(f.max !== undefined && (f.max - f.min) / f.step <= 10, f.path);
});

test("every default lies in its field's range, and the form's patch reads each value by its path", () => {
  for (const model of ["nomic-embed-text-v1.5", "universal-sentence-encoder-lite"]) {
    const d = defaultSettingsFor(model);
    for (const f of RETRIEVAL_FIELDS) {
      const v = fieldValue(d, f.path);
      assert.ok(v >= f.min && v <= (f.max ?? Number.POSITIVE_INFINITY), `${model} ${f.path} = ${v}`);
    }
    const patch = fieldsPatch((p: RetrievalFieldPath) => fieldValue(d, p));
    assert.deepEqual(patch.weights, { vector: d.weights.vector, fts: d.weights.fts, anchor: d.weights.anchor });
    assert.equal(patch.profileTokens, d.profileTokens);
    assert.equal(patch.denseMaxDocFraction, d.denseMaxDocFraction);
    // The patch is a valid save (the service's partial schema): what the form sends the server accepts.
    assert.ok(retrievalSettingsSchema.partial().strict().safeParse(patch).success, model);
  }
});
