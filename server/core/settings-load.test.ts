/**
 * A saved setting survives its schema's changes (issue 58 item 4). Every setting declared in SETTINGS is
 * walked: for each part of a saved value, the part made invalid (a range narrowed under it, a type changed),
 * the part missing (a field added later, without a default in the saved value), and an unknown field beside
 * it (a field renamed) — each time every other part still reads as saved, the broken part reads as its
 * default, the stored row is untouched and the saved text is set aside with what was not kept. A provider
 * family renamed keeps the other families' sections and keys, and its own section (key sealed) stays set aside
 * across a later save.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { z } from "zod";
import { loadDetectSettings } from "../chat/detect-local";
import { loadLearningSettings } from "../chat/fact-model";
import { loadPrivacySettings } from "../chat/memory-policy";
import { loadSavedProviderSettings, resetProviderSettings, saveProviderSettings } from "../chat/providers";
import { loadJobSettings, loadPersonLifetime } from "../jobs/settings";
import { defaultSettingsFor, loadRetrievalSettings } from "../memory/retrieval/settings";
import { checklistDismissed } from "../services/setup-service";
import { openTempStore, type TempStore } from "../test/temp-store";
import { salvage } from "./settings-load";
import { readSettingText, SETTINGS, unkeptSettings, writeSetting } from "./settings-store";
import { OWNER_ID } from "./space-name";

const ENV = ["MEMO_DATA_DIR", "MEMO_PROVIDER", "MEMO_OPENAI_API_KEY", "MEMO_ANTHROPIC_API_KEY", "MEMO_CHAT_MODEL"];
const saved: Record<string, string | undefined> = {};
let store: TempStore;
const warn = console.warn;
const warnings: string[] = [];

before(() => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir; // the key file for sealed provider keys
  console.warn = (...a: unknown[]) => void warnings.push(a.join(" "));
});
after(() => {
  console.warn = warn;
  store.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

type Json = Record<string, unknown>;
interface Case {
  /** The key it is saved under (a prefix setting: one of its keys). */
  key: string;
  /** A saved value with every part valid, most of them not the default. */
  sample: Json;
  /** What reads with nothing saved. */
  defaults: Json;
  /** The setting as its module reads it. */
  load: () => unknown;
  /** Objects whose every key is an entry (a record): an unknown key there is a new entry, not a renamed field. */
  records?: string[];
}

const MODEL = "test-model";
const CASES: Record<keyof typeof SETTINGS, Case> = {
  "retrieval:": {
    key: `retrieval:${MODEL}`,
    sample: {
      ...defaultSettingsFor(MODEL),
      topN: 9,
      fusion: "rrf",
      weights: { vector: 2, fts: 0.5, anchor: 1.5, factVector: 0.25, factFts: 0.75 },
      anchorQuery: false,
      minConfidence: 0.3,
      tokenBudget: 900,
    },
    defaults: defaultSettingsFor(MODEL),
    load: () => loadRetrievalSettings(store.sqlite, MODEL),
  },
  privacy: {
    key: "privacy",
    sample: {
      sharing: { "openai@api.openai.com": "on", "anthropic@api.anthropic.com": "pinned" },
      temporaryReadsMemory: false,
    },
    defaults: { sharing: {}, temporaryReadsMemory: true },
    load: () => loadPrivacySettings(store.sqlite),
    records: ["sharing"],
  },
  "ui.firstRunChecklist": {
    key: "ui.firstRunChecklist",
    sample: { dismissed: true },
    defaults: { dismissed: false },
    load: () => ({ dismissed: checklistDismissed(store.sqlite) }),
  },
  lifetime: {
    key: "lifetime",
    sample: {
      idleDays: 20,
      zeroDays: 9,
      retentionDays: 45,
      lifetime: { chat: "keep", consolidated: "decay", remember: "decay", import: "keep" },
    },
    defaults: loadPersonLifetime(openTempStore().sqlite, OWNER_ID) as unknown as Json,
    load: () => loadPersonLifetime(store.sqlite, OWNER_ID),
  },
  jobs: {
    key: "jobs",
    sample: {
      decay: { enabled: false, time: "04:30", idleDays: 21, zeroDays: 8, retentionDays: 40 },
      consolidate: { enabled: false, time: "05:15", thresholds: { "model-a": 0.95, "model-b": 0.9 }, maxPerSpace: 150 },
      lifetime: { chat: "keep", consolidated: "keep", remember: "decay", import: "decay" },
    },
    defaults: loadJobSettings(openTempStore().sqlite) as unknown as Json,
    load: () => loadJobSettings(store.sqlite),
    records: ["consolidate.thresholds"],
  },
  "chat.providers": {
    key: "chat.providers",
    sample: {
      active: "openai",
      timeoutSec: 30,
      maxTokens: 500,
      temperature: 0.4,
      openai: { baseUrl: "http://127.0.0.1:9/v1", model: "m-1" },
      llama: { modelPath: "/models/chat.gguf" },
    },
    defaults: {},
    load: () => loadSavedProviderSettings(store.sqlite),
  },
  "chat.detectLocal": {
    key: "chat.detectLocal",
    sample: { enabled: false, preferredPort: 1234 },
    defaults: {},
    load: () => loadDetectSettings(store.sqlite),
  },
  "facts.learning": {
    key: "facts.learning",
    sample: { providers: { "openai@api.openai.com": true, "llama@local": false } },
    defaults: { providers: {} },
    load: () => loadLearningSettings(store.sqlite),
    records: ["providers"],
  },
};

/** Every leaf of a value (a record's entries are leaves), with its path. */
function leaves(v: Json, path: string[] = []): string[][] {
  return Object.entries(v).flatMap(([k, x]) =>
    typeof x === "object" && x !== null && !Array.isArray(x) ? leaves(x as Json, [...path, k]) : [[...path, k]],
  );
}
/** Every object in a value (the top one included), with its path. */
function objects(v: Json, path: string[] = []): string[][] {
  return [
    path,
    ...Object.entries(v).flatMap(([k, x]) =>
      typeof x === "object" && x !== null && !Array.isArray(x) ? objects(x as Json, [...path, k]) : [],
    ),
  ];
}
const at = (v: Json, p: string[]): unknown => p.reduce<unknown>((o, k) => (o as Json | undefined)?.[k], v);
function put(v: Json, p: string[], x: unknown): Json {
  const out = structuredClone(v);
  let o = out;
  for (const k of p.slice(0, -1)) o = (o[k] ??= {}) as Json;
  if (x === undefined) delete o[p.at(-1)!];
  else o[p.at(-1)!] = x;
  return out;
}
/** A value of another type, or for a number one far outside any range (a range narrowed under it). */
const broken = (x: unknown) => (typeof x === "number" ? -1e12 : typeof x === "string" ? 12345 : "not-a-boolean");

function clear() {
  store.sqlite.prepare("DELETE FROM settings").run();
}

/** Save `value` raw, read it through its module; check the row is untouched and what was set aside. */
function readBack(c: Case, value: Json, lost: string | null) {
  clear();
  writeSetting(store.sqlite, c.key, value);
  const text = readSettingText(store.sqlite, c.key);
  const read = JSON.parse(JSON.stringify(c.load())) as Json; // (a section read as undefined is no section)
  assert.equal(readSettingText(store.sqlite, c.key), text, `${c.key}: the saved row is left as it was`);
  const aside = unkeptSettings(store.sqlite, OWNER_ID, true).filter((u) => c.key.startsWith(u.key) || u.key === c.key);
  if (lost === null) assert.deepEqual(aside, [], `${c.key}: nothing set aside`);
  else {
    assert.equal(aside.length, 1, `${c.key}: ${lost} set aside`);
    assert.equal(aside[0]!.entries[0]!.original, text, `${c.key}: the saved text is kept whole`);
    assert.ok(
      aside[0]!.entries[0]!.unkept.some((u) => u.path === lost),
      `${c.key}: ${lost} is named (${JSON.stringify(aside[0]!.entries[0]!.unkept)})`,
    );
  }
  return read;
}

test("every declared setting has its case here (a new one fails until it is walked too)", () => {
  assert.deepEqual(Object.keys(CASES).sort(), Object.keys(SETTINGS).sort());
});

for (const [name, c] of Object.entries(CASES)) {
  test(`${name}: a part that no longer parses, is missing, or is unknown costs only that part`, () => {
    // Saved as is: read as saved.
    assert.deepEqual(readBack(c, c.sample, null), { ...c.defaults, ...c.sample }, "the sample reads as saved");
    const full = { ...c.defaults, ...c.sample } as Json;
    for (const p of leaves(c.sample)) {
      const dotted = p.join(".");
      // Invalid now (a narrowed range, another type): that part reads as its default; every other as saved.
      const expected = put(full, p, at(c.defaults, p));
      assert.deepEqual(
        readBack(c, put(c.sample, p, broken(at(c.sample, p))), dotted),
        expected,
        `${name}: ${dotted} broken`,
      );
      // Missing (the field is newer than the saved value): its default, nothing lost, nothing set aside.
      assert.deepEqual(readBack(c, put(c.sample, p, undefined), null), expected, `${name}: ${dotted} missing`);
    }
    // A field the schema no longer has (renamed): everything else reads as saved, the field is set aside.
    for (const p of objects(c.sample)) {
      if ((c.records ?? []).includes(p.join("."))) continue;
      const renamed = [...p, "renamedField"];
      assert.deepEqual(
        readBack(c, put(c.sample, renamed, 7), renamed.join(".")),
        full,
        `${name}: ${renamed.join(".")}`,
      );
    }
  });
}

test("a provider family renamed: the other sections and their keys survive, its own is set aside, sealed", () => {
  clear();
  saveProviderSettings(store.sqlite, {
    active: "anthropic",
    anthropic: { apiKey: "sk-ant-kept-1234567", model: "claude-x" },
    openai: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-openai-kept-7654321", model: "m" },
  });
  // The same store after a family's id changed: its section (key sealed) sits under an id nobody registers.
  const row = JSON.parse(readSettingText(store.sqlite, "chat.providers")!) as Json;
  row.oldfamily = { ...(row.openai as Json) };
  writeSetting(store.sqlite, "chat.providers", row);
  const text = readSettingText(store.sqlite, "chat.providers")!;

  const s = loadSavedProviderSettings(store.sqlite);
  assert.equal(s.active, "anthropic");
  assert.equal((s.anthropic as Json).apiKey, "sk-ant-kept-1234567");
  assert.equal((s.openai as Json).apiKey, "sk-openai-kept-7654321");
  assert.equal((s.openai as Json).baseUrl, "http://127.0.0.1:9/v1");
  assert.equal(s.oldfamily, undefined);
  // A save afterwards writes what is in force; the renamed section, its key still sealed, stays set aside.
  saveProviderSettings(store.sqlite, { timeoutSec: 60 });
  assert.equal((loadSavedProviderSettings(store.sqlite).anthropic as Json).apiKey, "sk-ant-kept-1234567");
  const aside = unkeptSettings(store.sqlite, OWNER_ID, true).find((u) => u.key === "chat.providers")!;
  assert.deepEqual(
    aside.entries.map((e) => [e.original, e.unkept]),
    [[text, [{ path: "oldfamily", reason: "no such setting any more" }]]],
  );
  assert.ok(!text.includes("sk-openai-kept"), "the set-aside text holds the key sealed, as it was stored");
  assert.ok(
    warnings.some((w) => w.includes("'chat.providers'") && w.includes("oldfamily")),
    "logged",
  );
  // Only an admin sees the household's; a member sees none of it.
  assert.deepEqual(unkeptSettings(store.sqlite, "pmember", false), []);
  resetProviderSettings(store.sqlite);
});

test("a person's own set-aside parts are theirs only", () => {
  clear();
  store.sqlite
    .prepare("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, '')")
    .run("privacy@person:pbob", JSON.stringify({ sharing: { "openai@x": "everything" }, temporaryReadsMemory: false }));
  const bob = loadPrivacySettings(store.sqlite, "pbob");
  assert.deepEqual(bob, { sharing: {}, temporaryReadsMemory: false });
  assert.deepEqual(
    unkeptSettings(store.sqlite, "pbob", false).map((u) => [u.key, u.entries[0]!.unkept.map((x) => x.path)]),
    [["privacy", ["sharing.openai@x"]]],
  );
  assert.deepEqual(unkeptSettings(store.sqlite, OWNER_ID, true), [], "not the owner's, nor an admin's");
});

test("salvage: a narrowed range, a field without a default, a rule across fields", () => {
  const schema = z.strictObject({
    n: z.number().max(5),
    s: z.string(),
    deep: z.object({ a: z.boolean(), b: z.number() }),
  });
  const defaults = { n: 1, s: "d", deep: { a: false, b: 0 } };
  assert.deepEqual(salvage(schema, defaults, { n: 9, s: "kept", deep: { a: true, b: "x" } }), {
    value: { n: 1, s: "kept", deep: { a: true, b: 0 } },
    unkept: [
      { path: "n", reason: "Too big: expected number to be <=5" },
      { path: "deep.b", reason: "Invalid input: expected number, received string" },
    ],
  });
  assert.deepEqual(salvage(schema, defaults, "a string").value, defaults);
  const rule = schema.refine((v) => v.n > 2, "n must be above 2");
  assert.deepEqual(salvage(rule, { ...defaults, n: 3 }, { n: 1, s: "x", deep: { a: true, b: 1 } }).unkept, [
    { path: "(the whole value)", reason: "n must be above 2" },
  ]);
});

test("Settings reads what was set aside (where and why, never the saved text) and can dismiss it", async () => {
  const { createCaller } = await import("../api/root");
  clear();
  writeSetting(store.sqlite, "jobs", { decay: { time: "25:99" }, consolidate: {}, lifetime: {} });
  loadJobSettings(store.sqlite);
  const caller = createCaller({ memo: { db: store.sqlite, embedder: undefined as never }, headers: new Headers() });
  const list = await caller.unkeptSettings.list();
  assert.deepEqual(
    list.map((u) => [u.key, u.entries.map((e) => e.unkept.map((x) => x.path))]),
    [["jobs", [["decay.time"]]]],
  );
  assert.ok(!JSON.stringify(list).includes("25:99"), "the saved text stays on the server");
  assert.deepEqual(await caller.unkeptSettings.dismiss({ key: "jobs" }), { dismissed: true });
  assert.deepEqual(await caller.unkeptSettings.list(), []);
  await assert.rejects(caller.unkeptSettings.dismiss({ key: "nothing.like.it" }), /no setting/);
});
