/**
 * The one loader of saved settings (issue 58 item 4). A setting's schema changes — a range narrowed, a field
 * added without a default, a provider family renamed — while values saved under the old one stay in the
 * store. Reading one used to be all or nothing: any part that no longer parsed reset the whole setting to its
 * defaults (a person's sharing choices back to "ask", every saved provider section and its key gone at the
 * next save). Here every part that still parses is kept, field by field and entry by entry; a part that does
 * not takes its default; and what could not be kept is logged once and set aside whole with the saved text it
 * came from (settings-store.ts setAsideUnkept), so nothing saved is ever lost and Settings shows it beside the
 * section it belongs to until the person dismisses it.
 */
import type Database from "better-sqlite3";
import type { z } from "zod";
import { readSettingText, setAsideUnkept } from "./settings-store";

/** A part of a saved value that could not be kept: where it was (`weights.fts`, `sharing.openai@x`), and why. */
export interface Unkept {
  path: string;
  reason: string;
}

// Zod's own description of a schema (v4 `_zod.def`): enough of it to walk objects, records and wrappers.
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: SchemaDef } })._zod.def;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const WRAPPERS = new Set(["optional", "default", "prefault", "nullable", "readonly", "nonoptional"]);

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);
const why = (r: { error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message ?? "not valid";

/** The schema under its wrappers (optional, default, nullable…). */
function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let d = defOf(cur); WRAPPERS.has(d.type) && d.innerType; d = defOf(cur)) cur = d.innerType;
  return cur;
}

/**
 * The part of `stored` that `schema` still accepts, with `fallback` (the defaults) standing in for the rest;
 * each part not kept is added to `unkept`. Undefined means "absent" (a field the object then leaves out).
 */
function keep(schema: z.ZodType, fallback: unknown, stored: unknown, path: string, unkept: Unkept[]): unknown {
  if (stored === undefined) {
    // A field saved before it existed: its default (the caller's, else the schema's own).
    if (fallback !== undefined) return structuredClone(fallback);
    const r = schema.safeParse(undefined);
    return r.success ? r.data : undefined;
  }
  const inner = unwrap(schema);
  const d = defOf(inner);
  const whole = schema.safeParse(stored);
  // An object is walked even when it parses: a plain z.object would drop a field it no longer has unsaid.
  if (whole.success && !(d.type === "object" && isPlainObject(stored))) return whole.data;
  if (d.type === "object" && d.shape && isPlainObject(stored)) {
    const fb = isPlainObject(fallback) ? fallback : {};
    const out: Record<string, unknown> = {};
    for (const [k, field] of Object.entries(d.shape)) {
      const v = keep(field, fb[k], stored[k], join(path, k), unkept);
      if (v !== undefined) out[k] = v;
    }
    const open = d.catchall && defOf(d.catchall).type !== "never";
    for (const [k, v] of Object.entries(stored)) {
      if (Object.hasOwn(d.shape, k)) continue;
      if (open && d.catchall!.safeParse(v).success) out[k] = v;
      else unkept.push({ path: join(path, k), reason: "no such setting any more" });
    }
    return out;
  }
  if (d.type === "record" && d.keyType && d.valueType && isPlainObject(stored)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(stored)) {
      const key = d.keyType.safeParse(k);
      if (!key.success) {
        unkept.push({ path: join(path, k), reason: why(key) });
        continue;
      }
      const value = keep(d.valueType, undefined, v, join(path, k), unkept);
      if (value !== undefined) out[k] = value;
    }
    return out;
  }
  unkept.push({ path: path || "(the whole value)", reason: why(whole) });
  return fallback === undefined ? undefined : structuredClone(fallback);
}

/**
 * A saved value read against its schema now: every part that still parses, the defaults for the rest, and
 * what was not kept. `defaults` is the whole setting as it reads with nothing saved.
 */
export function salvage<T>(schema: z.ZodType<T>, defaults: T, stored: unknown): { value: T; unkept: Unkept[] } {
  const unkept: Unkept[] = [];
  const kept = keep(schema, defaults, stored, "", unkept);
  const r = schema.safeParse(kept);
  if (r.success) return { value: r.data, unkept };
  // The parts pass but not together (a rule across fields): the defaults, and the whole value set aside.
  return { value: structuredClone(defaults), unkept: [...unkept, { path: "(the whole value)", reason: why(r) }] };
}

/**
 * The saved setting `key` (the acting person's, or `personId`'s), read with `salvage`: nothing saved reads
 * as `defaults`; what could not be kept is logged and set aside with the saved text (never dropped).
 */
export function loadSetting<T>(
  db: Database.Database,
  key: string,
  schema: z.ZodType<T>,
  defaults: T,
  personId?: string,
): T {
  const text = readSettingText(db, key, personId);
  if (text === undefined) return structuredClone(defaults);
  let stored: unknown;
  let result: { value: T; unkept: Unkept[] };
  try {
    stored = JSON.parse(text);
    result = salvage(schema, defaults, stored);
  } catch {
    result = { value: structuredClone(defaults), unkept: [{ path: "(the whole value)", reason: "not JSON" }] };
  }
  if (result.unkept.length > 0) setAside(db, key, personId, text, result.unkept);
  return result.value;
}

function setAside(db: Database.Database, key: string, personId: string | undefined, text: string, unkept: Unkept[]) {
  try {
    if (setAsideUnkept(db, key, personId, { at: new Date().toISOString(), original: text, unkept }))
      console.warn(
        `[settings] '${key}': could not keep ${unkept.map((u) => `${u.path} (${u.reason})`).join(", ")}; ` +
          "the rest is in force, and the saved value is kept aside (Settings shows it)",
      );
  } catch (e) {
    // A store that cannot be written (read-only, full) still reads: say so, and go on with what was kept.
    console.warn(`[settings] '${key}': could not set aside what was not kept: ${(e as Error).message}`);
  }
}
