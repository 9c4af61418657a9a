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
  resolveProviderConfig,
} from "./index";

const ENV = ["MEMO_PROVIDER", "MEMO_DATA_DIR", "MEMO_CHAT_MODEL", "MEMO_OPENAI_BASE_URL", "MEMO_OPENAI_API_KEY"];
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
  // What it needs, for people, is its own.
  assert.throws(() => createProvider(cfg, "bare" as ProviderId), /Bare \(test double\) needs a base URL/);

  // The status and the Settings form: its row, with its own form and fields.
  const row = providerStatus(db).providers.find((p) => p.id === ("acme" as ProviderId))!;
  assert.deepEqual(
    [row.configured, row.form.title, row.form.fields.map((f) => [f.inputId, f.kind, f.value])],
    [true, "Acme (test double) endpoint", [["acme-key", "secret", null]]],
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

/** The product files that may still name a family's id in a comparison, and why. */
const ALLOWED: Record<string, string> = {
  // The OpenAI-compatible family's local server found on loopback (detect-local.ts) stands in for its endpoint.
  "server/chat/providers/config.ts": "openai",
  "server/boot.ts": "openai",
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
