/**
 * A third provider family (a test double, server/test/provider-family-double.ts) registered beside the
 * built-in ones: where its key comes from and may go, and where its prompts go, are its own; no path falls
 * through to Anthropic's (or OpenAI's) key or address, as any id but "openai" did before the registry.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { ACME_FAMILY, registerTestFamilies } from "../../test/provider-family-double";
import { providerEndpoint } from "../memory-policy";
import type { ProviderConfig, ProviderId } from "./types";
import { providerFamilies, providerFamily, registerProviderFamily } from "./families";
import { envKeyOrigin, hasEnvKey, keyBaseUrl, rebindKey, usableKey } from "./stored-keys";

const ENV = {
  MEMO_ANTHROPIC_API_KEY: "sk-ant-secret",
  MEMO_ANTHROPIC_BASE_URL: "https://anthropic.example",
  MEMO_OPENAI_API_KEY: "sk-openai-secret",
  MEMO_OPENAI_BASE_URL: "https://openai.example/v1",
} as unknown as NodeJS.ProcessEnv;

before(() => registerTestFamilies());

/** A resolved config with only the built-in sections (a new family has none of its own yet). */
const cfg = {
  sections: {
    openai: { baseUrl: { value: "https://openai.example/v1", source: "env" } },
    anthropic: { baseUrl: { value: "https://anthropic.example", source: "env" } },
  },
} as unknown as ProviderConfig;

test("the built-in families are registered with their own descriptors", () => {
  assert.deepEqual(
    providerFamilies()
      .map((f) => [f.id, f.remote])
      .filter(([id]) => ["llama", "openai", "anthropic"].includes(id as string)),
    [
      ["llama", false],
      ["openai", true],
      ["anthropic", true],
    ],
  );
  assert.throws(() => providerFamily("nobody"), /no provider family 'nobody'/);
  assert.throws(() => registerProviderFamily({ ...ACME_FAMILY }), /already registered/);
});

test("a third family's key: only its own environment variable, only to its own address", () => {
  // Another family's key in the environment is never this family's.
  assert.equal(hasEnvKey("acme", ENV), false);
  assert.equal(usableKey("acme", undefined, "https://anthropic.example", ENV), null);
  assert.equal(usableKey("acme", undefined, "https://api.acme.test/v2", ENV), null);
  // Its key goes to its default address, or the base URL its own variable names; nowhere else.
  assert.equal(envKeyOrigin("acme", ENV), "https://api.acme.test");
  assert.equal(keyBaseUrl("acme", undefined, ENV), "https://api.acme.test/v2");
  const withKey = { ...ENV, MEMO_ACME_API_KEY: "acme-secret" };
  assert.deepEqual(usableKey("acme", undefined, "https://api.acme.test/v2", withKey), {
    value: "acme-secret",
    source: "env",
  });
  assert.equal(usableKey("acme", undefined, "https://anthropic.example", withKey), null);
  assert.equal(usableKey("anthropic", undefined, "https://api.acme.test/v2", withKey), null);
  const moved = { ...withKey, MEMO_ACME_BASE_URL: "https://acme.internal" };
  assert.equal(envKeyOrigin("acme", moved), "https://acme.internal");
  // A saved key is bound to the family's own address.
  assert.equal(rebindKey("acme", { apiKey: "k" }, true, ENV)?.keyOrigin, "https://api.acme.test");
  // A family with no default address: its key may go nowhere until a base URL is set.
  assert.equal(envKeyOrigin("bare", { ...ENV, MEMO_BARE_API_KEY: "b" }), null);
  assert.equal(usableKey("bare", undefined, "https://anthropic.example", { ...ENV, MEMO_BARE_API_KEY: "b" }), null);
});

test("a third family's prompts go to its own address (or nowhere), never Anthropic's", () => {
  const acme = providerEndpoint(cfg, "acme" as ProviderId);
  assert.deepEqual(
    [acme.host, acme.local, acme.key, acme.label],
    ["api.acme.test", false, "acme@api.acme.test", "Acme (test double)"],
  );
  const bare = providerEndpoint(cfg, "bare" as ProviderId);
  assert.equal(bare.host, "(not set)");
  // The built-in ones as before.
  assert.equal(providerEndpoint(cfg, "anthropic").host, "anthropic.example");
  assert.equal(providerEndpoint(cfg, "openai").host, "openai.example");
  assert.equal(providerEndpoint(cfg, "llama").host, "this machine");
  const none = {
    sections: { openai: { baseUrl: { value: null } }, anthropic: { baseUrl: { value: null } } },
  } as unknown as ProviderConfig;
  assert.equal(providerEndpoint(none, "anthropic").host, "api.anthropic.com");
  assert.equal(providerEndpoint(none, "openai").host, "(not set)");
  assert.throws(() => providerEndpoint(cfg, "nobody" as ProviderId), /no provider family 'nobody'/);
});
