/**
 * The provider-family registry is the one place a family is described: it covers every id the API accepts,
 * and a family registered later (test doubles, server/test/provider-family-double.ts) is picked up by each
 * call site — its client for chat and structured output, the status and the Settings form's fields, the
 * health check, fact learning — without those call sites naming it. A scan of the product code keeps new
 * switches on a family's id from coming back.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { OWNER_ID } from "../../core/space-name";
import { familyDoubleCalls, registerTestFamilies } from "../../test/provider-family-double";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { chooseFactModel } from "../fact-model";
import { providerHealth } from "../provider-health";
import {
  createProvider,
  PROVIDER_IDS,
  PROVIDER_LABELS,
  type ProviderId,
  providerFamilies,
  providerFamily,
  providerStatus,
  loadSavedProviderSettings,
  resetProviderSettings,
  resolveProviderConfig,
  saveProviderSettings,
} from "./index";
import { readSetting } from "../../core/settings-store";
import { providerEndpoint } from "../memory-policy";
import { listModels } from "../../http/openai-compat-request";

const ENV = [
  "MEMO_PROVIDER",
  "MEMO_DATA_DIR",
  "MEMO_CHAT_MODEL",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_ANTHROPIC_BASE_URL",
  "MEMO_ACME_API_KEY",
  "MEMO_ACME_BASE_URL",
];
const saved: Record<string, string | undefined> = {};
let store: TempStore;

before(() => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir; // no chat model of the developer's checkout
});
after(() => {
  store.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test("the registry covers every family the API accepts, each with a complete descriptor", () => {
  // Before any test family: the built-in ones are exactly PROVIDER_IDS, in its order (the default choice's).
  assert.deepEqual(
    providerFamilies().map((f) => f.id),
    [...PROVIDER_IDS],
  );
  for (const id of PROVIDER_IDS) {
    const f = providerFamily(id);
    assert.equal(f.label, PROVIDER_LABELS[id]);
    assert.ok(f.form.title && f.form.fields.length > 0, `${id} has a Settings form`);
    for (const field of f.form.fields) assert.match(field.inputId, new RegExp(`^${id}-`));
  }
  // Every input of the form has its own id.
  const ids = providerFamilies().flatMap((f) => f.form.fields.map((x) => x.inputId));
  assert.equal(new Set(ids).size, ids.length);
  // The status the form renders carries each family's own fields; a secret's value never leaves the server.
  const rows = providerStatus(store.sqlite).providers;
  assert.deepEqual(
    rows.map((r) => [r.id, r.form.title, r.form.fields.map((x) => x.inputId)]),
    [
      ["llama", "Local llama.cpp", ["llama-path"]],
      ["openai", "OpenAI-compatible endpoint", ["openai-base", "openai-model", "openai-key"]],
      ["anthropic", "Anthropic", ["anthropic-key", "anthropic-model"]],
    ],
  );
});

test("a family registered later is picked up by every call site without them naming it", async () => {
  registerTestFamilies();
  const db = store.sqlite;
  const cfg = resolveProviderConfig(db);
  // Chat and structured output: its own client, built by its descriptor.
  const acme = createProvider(cfg, "acme" as ProviderId);
  assert.equal(acme.label, "Acme (test double)");
  const parts: string[] = [];
  const it = acme.stream([{ role: "user", content: "hello there" }]);
  for (let r = await it.next(); !r.done; r = await it.next()) parts.push(r.value);
  assert.equal(parts.join(""), "echo: hello there");
  const json = await acme.complete([{ role: "user", content: "x" }], {
    jsonSchema: { name: "facts", schema: { type: "object" } },
  });
  assert.equal(json.text, '{"facts":[]}');
  // The OpenAI-compatible endpoint's model list (GET /v1/models) offers its model too.
  assert.ok(listModels(db).data.some((m) => m.id === "acme:echo-1" && m.owned_by === "acme"));
  // What it needs, for people, is its own.
  assert.throws(() => createProvider(cfg, "bare" as ProviderId), /Bare \(test double\) needs a base URL/);

  // The status and the Settings form: its row, with its own form and fields.
  const row = providerStatus(db).providers.find((p) => p.id === ("acme" as ProviderId))!;
  assert.deepEqual(
    [row.configured, row.form.title, row.form.fields.map((f) => [f.inputId, f.kind, f.value])],
    [
      true,
      "Acme (test double) endpoint",
      [
        ["acme-baseUrl", "text", null],
        ["acme-model", "text", "echo-1"],
        ["acme-apiKey", "secret", null],
      ],
    ],
  );

  // The health check: its own, when it is the chosen family.
  process.env.MEMO_PROVIDER = "acme";
  const health = await providerHealth(db, { fresh: true });
  assert.deepEqual([health.state, health.provider], ["ready", "acme"]);
  assert.ok(familyDoubleCalls.healthChecks.includes("acme"));
  delete process.env.MEMO_PROVIDER;

  // Fact learning: a family that learning prefers (on this machine) is tried before the conversation's.
  const choice = chooseFactModel(db, "acme" as ProviderId, [OWNER_ID]);
  assert.ok(choice.ok);
  assert.equal(choice.provider.id, "loopy");
  assert.equal(providerFamily(choice.provider.id).learning.oneSlot, true);
});

test("a family registered later is saved, read back and resolved from its declaration, with its own key and address", () => {
  registerTestFamilies();
  const db = store.sqlite;
  resetProviderSettings(db);
  // Other families' keys and addresses in the environment: none of them may become the new family's.
  process.env.MEMO_ANTHROPIC_API_KEY = "sk-ant-env";
  process.env.MEMO_ANTHROPIC_BASE_URL = "https://anthropic.example";
  process.env.MEMO_OPENAI_API_KEY = "sk-openai-env";
  try {
    const before = resolveProviderConfig(db).sections;
    assert.deepEqual(before.acme, {
      baseUrl: { value: null, source: null },
      model: { value: "echo-1", source: "default" },
      apiKey: { value: null, source: null },
    });
    assert.deepEqual(before.bare, { baseUrl: { value: null, source: null }, apiKey: { value: null, source: null } });
    // The built-in ones still get theirs (the OpenAI-compatible key brings api.openai.com with it).
    assert.deepEqual(before.anthropic.apiKey, { value: "sk-ant-env", source: "env" });
    assert.equal(before.openai.baseUrl.value, "https://api.openai.com/v1");

    // Write: its section under its id, the key sealed and bound to the family's own default address.
    saveProviderSettings(db, { active: "acme" as ProviderId, acme: { apiKey: "acme-saved", model: "m2" } });
    const raw = readSetting(db, "chat.providers") as Record<string, Record<string, string>>;
    assert.equal(raw.active as unknown, "acme");
    assert.equal(raw.acme.keyOrigin, "https://api.acme.test");
    assert.equal(raw.acme.model, "m2");
    assert.ok(!JSON.stringify(raw).includes("acme-saved"), "the saved key is sealed");
    // Read back: the key opened, used for its own address only.
    assert.equal((loadSavedProviderSettings(db).acme as Record<string, string>).apiKey, "acme-saved");
    let cfg = resolveProviderConfig(db);
    assert.deepEqual(cfg.active, { value: "acme", source: "settings" });
    assert.deepEqual(cfg.sections.acme.apiKey, { value: "acme-saved", source: "settings" });
    assert.deepEqual(cfg.sections.acme.model, { value: "m2", source: "settings" });
    assert.deepEqual(cfg.sections.anthropic.apiKey, { value: "sk-ant-env", source: "env" }, "Anthropic's is its own");
    assert.equal(providerEndpoint(cfg, "acme" as ProviderId).host, "api.acme.test");
    const row = providerStatus(db).providers.find((p) => p.id === ("acme" as ProviderId))!;
    assert.deepEqual(
      row.form.fields.map((f) => [f.name, f.value, f.set, f.source]),
      [
        ["baseUrl", null, false, null],
        ["model", "m2", true, "settings"],
        ["apiKey", null, true, "settings"],
      ],
    );

    // A new address without a new key: the saved key does not follow it there.
    saveProviderSettings(db, { acme: { baseUrl: "https://anthropic.example/v1" } });
    cfg = resolveProviderConfig(db);
    assert.equal(cfg.sections.acme.baseUrl.value, "https://anthropic.example/v1");
    assert.deepEqual(cfg.sections.acme.apiKey, { value: null, source: null });
    assert.equal(providerEndpoint(cfg, "acme" as ProviderId).host, "anthropic.example");

    // A family with no default address: a saved key goes nowhere until it has one, not to another family's.
    saveProviderSettings(db, { bare: { apiKey: "bare-saved" } });
    cfg = resolveProviderConfig(db);
    assert.deepEqual(cfg.sections.bare.apiKey, { value: null, source: null });
    assert.equal(cfg.sections.bare.baseUrl.value, null);
    assert.equal(providerEndpoint(cfg, "bare" as ProviderId).host, "(not set)");

    // A local family's section: no key, nothing sealed.
    saveProviderSettings(db, { loopy: { modelPath: "/models/loopy.gguf" } });
    assert.deepEqual(
      readSetting(db, "chat.providers") && (readSetting(db, "chat.providers") as Record<string, unknown>).loopy,
      {
        modelPath: "/models/loopy.gguf",
      },
    );
    assert.deepEqual(resolveProviderConfig(db).sections.loopy.modelPath, {
      value: "/models/loopy.gguf",
      source: "settings",
    });

    // Bad input: a field its declaration does not have, a family nobody registered, an address that is not one.
    assert.throws(() => saveProviderSettings(db, { acme: { modelPath: "/x.gguf" } }), /Provider settings: .*modelPath/);
    assert.throws(() => saveProviderSettings(db, { nobody: { apiKey: "k" } }), /Provider settings: .*nobody/);
    assert.throws(
      () => saveProviderSettings(db, { active: "nobody" as ProviderId }),
      /not a registered provider family/,
    );
    assert.throws(
      () => saveProviderSettings(db, { acme: { baseUrl: "ftp://x" } }),
      /Acme \(test double\) base URL must/,
    );
    assert.equal(resolveProviderConfig(db).sections.acme.baseUrl.value, "https://anthropic.example/v1", "nothing lost");
  } finally {
    resetProviderSettings(db);
    for (const k of ["MEMO_ANTHROPIC_API_KEY", "MEMO_ANTHROPIC_BASE_URL", "MEMO_OPENAI_API_KEY"]) delete process.env[k];
  }
});

/** The product files that may still name a family's id in a comparison, and why. */
const ALLOWED: Record<string, string> = {
  // A route class named after the OpenAI-compatible API Memo serves, not a provider family.
  "server/auth/access.ts": "openai",
  // Settings → Models lists GGUF files, which only the local llama.cpp family runs.
  "app/settings/models-section.tsx": "llama",
};

test("no product code outside the registry switches on a family's id", () => {
  const root = path.resolve(import.meta.dirname, "../../..");
  const ids = PROVIDER_IDS.join("|");
  const compare = new RegExp(`(?:===|!==)\\s*"(${ids})"|"(${ids})"\\s*(?:===|!==)|case\\s+"(${ids})"`, "g");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (rel !== "server/test") walk(rel);
      } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
        const text = fs.readFileSync(path.join(root, rel), "utf8");
        for (const m of text.matchAll(compare)) {
          const id = m[1] ?? m[2] ?? m[3];
          if (rel === "server/chat/providers/families.ts" || ALLOWED[rel] === id) continue;
          found.push(`${rel}: ${m[0]}`);
        }
      }
    }
  };
  walk("server");
  walk("app");
  assert.deepEqual(found, []);
});

/**
 * The product files that may still write a family's id as a string literal ("openai", "acme:…", "acme@…"),
 * and why. A regular expression naming one is allowed nowhere.
 */
const LITERAL_ALLOWED: Record<string, { ids: string[]; why: string }> = {
  "server/auth/access.ts": { ids: ["openai"], why: "a route class named after the OpenAI-compatible API Memo serves" },
  "app/settings/models-section.tsx": { ids: ["llama"], why: "GGUF files, which only the local llama.cpp family runs" },
  "server/api/routers/setup.ts": {
    ids: ["openai", "llama"],
    why: "the first-run steps choose a family on purpose: a detected OpenAI-compatible server, a GGUF file",
  },
  "server/chat/providers/openai.ts": { ids: ["openai"], why: "the OpenAI-compatible family's own client (and SDK)" },
  "server/chat/providers/anthropic.ts": { ids: ["anthropic"], why: "the Anthropic family's own client" },
  "server/chat/providers/streaming.ts": {
    ids: ["openai", "anthropic"],
    why: "the two built-in clients' stream readers (and their SDKs)",
  },
  "server/chat/providers/types.ts": { ids: ["llama", "openai", "anthropic"], why: "PROVIDER_IDS itself" },
  "app/_chat/provider-picker.tsx": {
    ids: ["openai"],
    why: "the model query's placeholder input while no family is active (the query is disabled then)",
  },
};

/** Each line's code with comments dropped (a line comment, or a line inside or opening a block comment). */
function codeLines(text: string): [number, string][] {
  return text
    .split("\n")
    .map((l, i) => [i + 1, l] as [number, string])
    .filter(([, l]) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .map(([n, l]) => [n, l.replace(/\s\/\/\s.*$/, "")]);
}

/** Family ids written by hand: a string literal that is an id or starts "<id>:" / "<id>@", or a regex naming one. */
function handWrittenIds(text: string, ids: readonly string[]): { line: number; id: string; text: string }[] {
  const alt = ids.join("|");
  const literal = new RegExp(`(["'\`])(${alt})(?:[:@][^"'\`\\n]*)?\\1`, "g");
  // A regex literal: after a token that can precede an expression, `/…/flags` (character classes allowed).
  const regex = /(?<=(?:[(=,:[!&|?{};]|\breturn)\s*)\/(?![/*])(?:[^/\\\n[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+\/[dgimsuy]*/g;
  const word = new RegExp(`\\b(${alt})\\b`);
  const found: { line: number; id: string; text: string }[] = [];
  for (const [line, code] of codeLines(text)) {
    if (/^\s*(import|export)\b.*\bfrom\s+["']/.test(code) || /^\s*import\s+["']/.test(code)) continue; // module names
    for (const m of code.matchAll(literal)) found.push({ line, id: m[2]!, text: m[0] });
    for (const m of code.matchAll(regex)) {
      const w = word.exec(m[0]);
      if (w) found.push({ line, id: w[1]!, text: m[0] });
    }
    for (const m of code.matchAll(/new RegExp\(([^)]*)\)/g)) {
      const w = word.exec(m[1]!);
      if (w) found.push({ line, id: w[1]!, text: m[0] });
    }
  }
  return found;
}

test("the scan finds family ids in regular expressions and string literals", () => {
  const ids = ["llama", "openai", "anthropic"];
  const hits = (s: string) => handWrittenIds(s, ids).map((h) => h.id);
  assert.deepEqual(hits("  const m = /^(llama|openai|anthropic):(.*)$/.exec(model);"), ["llama"]);
  assert.deepEqual(hits('    .regex(/^(openai|anthropic)@\\S+$/, "key must be …")'), ["openai"]);
  assert.deepEqual(hits('  const r = new RegExp("^openai@");'), ["openai"]);
  assert.deepEqual(hits('  if (key.startsWith("anthropic@")) return;'), ["anthropic"]);
  assert.deepEqual(hits('  save({ active: "llama" });'), ["llama"]);
  assert.deepEqual(hits('import OpenAI from "openai";'), []);
  assert.deepEqual(hits("// openai@x and /llama/ in a comment"), []);
  assert.deepEqual(hits('  const s = "openaiish" + a / b / c;'), []);
});

test("no product code outside the registry writes a family's id in a string literal or a regular expression", () => {
  const root = path.resolve(import.meta.dirname, "../../..");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (rel !== "server/test") walk(rel);
      } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
        if (rel === "server/chat/providers/families.ts") continue;
        for (const h of handWrittenIds(fs.readFileSync(path.join(root, rel), "utf8"), PROVIDER_IDS)) {
          const isRegex = !/^["'`]/.test(h.text);
          if (!isRegex && LITERAL_ALLOWED[rel]?.ids.includes(h.id)) continue;
          found.push(`${rel}:${h.line}: ${h.text}`);
        }
      }
    }
  };
  walk("server");
  walk("app");
  assert.deepEqual(found, []);
});
