/**
 * Issue 33 items 1 and 10: a provider key goes only to the origin it was entered for, API tokens get no
 * provider (model, access, job) settings at all, and saved keys are sealed with the data folder's key file.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, afterEach, before, test } from "node:test";
import Database from "better-sqlite3";
import { TRPCError } from "@trpc/server";
import { createCaller } from "../api/root";
import { createApiToken, createSession, setOwnerPasswordHash } from "../auth/store";
import { hashPassword } from "../auth/password";
import { setDb } from "../db";
import { backupDatabase } from "../ops/backup";
import { secretKeyPath } from "../core/secret-box";
import { openTempStore, type TempStore } from "../test/temp-store";
import { FAKE_ANTHROPIC_MODEL, FakeAnthropicServer } from "../test/fake-anthropic-server";
import { providerStatus, resetProviderSettings, resolveProviderConfig, saveProviderSettings } from "./providers";

const ENV_KEYS = [
  "MEMO_HOST",
  "MEMO_DATA_DIR",
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_ANTHROPIC_BASE_URL",
  "MEMO_DETECT_LOCAL",
];
const savedEnv: Record<string, string | undefined> = {};

/** TEST DOUBLE: the reviewer's listener; records the Authorization/x-api-key each request carried and answers 401. */
class KeyCatcher {
  readonly seen: string[] = [];
  url = "";
  private server = http.createServer((req, res) => {
    this.seen.push(String(req.headers.authorization ?? req.headers["x-api-key"] ?? ""));
    req.resume();
    res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"no"}}');
  });
  static async start(): Promise<KeyCatcher> {
    const c = new KeyCatcher();
    await new Promise<void>((r) => c.server.listen(0, "127.0.0.1", () => r()));
    c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
    return c;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let store: TempStore;
let catcher: KeyCatcher;
let anthropic: FakeAnthropicServer;
let owner: ReturnType<typeof createCaller>;
let program: ReturnType<typeof createCaller>;

const SAVED_OPENAI = "sk-saved-OPENAI-1a2b3c";
const SAVED_ANTHROPIC = "sk-ant-saved-ANTHROPIC-4d5e6f";
const ENV_OPENAI = "sk-env-OPENAI-7a8b9c";
const ENV_ANTHROPIC = "sk-ant-env-ANTHROPIC-0d1e2f";

before(async () => {
  for (const k of ENV_KEYS) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  process.env.MEMO_DETECT_LOCAL = "0";
  process.env.MEMO_HOST = "0.0.0.0"; // sign-in required: sessions and tokens are told apart
  setDb(store);
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  catcher = await KeyCatcher.start();
  anthropic = await FakeAnthropicServer.start(SAVED_ANTHROPIC);
  const ctx = { db: store.sqlite, embedder: {} as never };
  const session = createSession(store.sqlite, {}).token;
  owner = createCaller({ memo: ctx, headers: new Headers({ cookie: `memo_session=${session}` }) });
  const token = createApiToken(store.sqlite, "a program").token;
  program = createCaller({ memo: ctx, headers: new Headers({ authorization: `Bearer ${token}` }) });
});
after(async () => {
  await catcher.close();
  await anthropic.close();
  setDb(undefined);
  store.close();
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});
afterEach(() => {
  resetProviderSettings(store.sqlite);
  catcher.seen.length = 0;
  for (const k of ENV_KEYS) if (!["MEMO_DATA_DIR", "MEMO_HOST", "MEMO_DETECT_LOCAL"].includes(k)) delete process.env[k];
});

/** The key the last request to the Anthropic double carried (the SDK sends x-api-key or a bearer). */
function sentKey(f: FakeAnthropicServer): string | undefined {
  const h = f.requests.at(-1)?.headers;
  return (h?.["x-api-key"] as string | undefined) ?? h?.authorization?.replace(/^Bearer /, "");
}

const forbidden = async (p: Promise<unknown>) =>
  assert.rejects(
    p,
    (e: unknown) => e instanceof TRPCError && e.code === "FORBIDDEN" && /API tokens cannot/.test(e.message),
  );

test("an API token gets no provider, model, access or job settings at all", async () => {
  const catcherSettings = { openai: { baseUrl: `${catcher.url}/v1` } };
  await forbidden(program.providers.test({ provider: "openai", settings: catcherSettings }));
  await forbidden(program.providers.save(catcherSettings));
  await forbidden(program.providers.status());
  await forbidden(program.providers.select({ provider: "anthropic" }));
  await forbidden(program.providers.reset());
  await forbidden(program.providers.models({ provider: "openai" }));
  await forbidden(program.setup.useLocalModel({ path: "/x.gguf" }));
  await forbidden(program.setup.setDetection({ enabled: true }));
  await forbidden(program.jobs.settings());
  await forbidden(program.jobs.saveSettings({}));
  await forbidden(program.retrievalSettings.reset());
  await forbidden(program.privacy.setSharing({ key: `openai@${new URL(catcher.url).host}`, mode: "on" }));
  await forbidden(program.access.tokens());
  await forbidden(program.access.createToken({ name: "more" }));
  await forbidden(program.access.setPassword({ current: "owner password", password: "a new password" }));
  assert.deepEqual(catcher.seen, [], "nothing reached the listener");
  // The owner's session may: the status only says that a key is set.
  assert.equal((await owner.providers.status()).active, null);
  assert.ok((await owner.access.tokens()).some((t) => t.name === "a program"));
});

test("providers.test with another base URL sends no stored or environment key there (the review's finding)", async () => {
  saveProviderSettings(store.sqlite, { openai: { apiKey: SAVED_OPENAI }, anthropic: { apiKey: SAVED_ANTHROPIC } });
  const r1 = await owner.providers.test({ provider: "openai", settings: { openai: { baseUrl: `${catcher.url}/v1` } } });
  const r2 = await owner.providers.test({ provider: "anthropic", settings: { anthropic: { baseUrl: catcher.url } } });
  assert.equal(r1.ok, false);
  assert.equal(r2.ok, false);
  assert.match(r2.error ?? "", /API key/, "Anthropic at a new host has no key: it is not even called");
  // The environment's keys only go to the environment's base URL (or the default host).
  resetProviderSettings(store.sqlite);
  process.env.MEMO_OPENAI_API_KEY = ENV_OPENAI;
  process.env.MEMO_ANTHROPIC_API_KEY = ENV_ANTHROPIC;
  await owner.providers.test({ provider: "openai", settings: { openai: { baseUrl: `${catcher.url}/v1` } } });
  await owner.providers.test({ provider: "anthropic", settings: { anthropic: { baseUrl: catcher.url } } });
  for (const k of [SAVED_OPENAI, SAVED_ANTHROPIC, ENV_OPENAI, ENV_ANTHROPIC])
    assert.ok(!catcher.seen.some((h) => h.includes(k)), `${k} was sent: ${catcher.seen.join(" | ")}`);
  assert.ok(catcher.seen.length >= 2, "the OpenAI-compatible tests did reach the listener, keyless");
  // Nothing was saved by Test.
  assert.equal(resolveProviderConfig(store.sqlite).sections.openai.baseUrl.value, "https://api.openai.com/v1");
});

test("providers.save: a new base URL origin (scheme, host or port) clears the saved key unless one comes with it", async () => {
  const key = (id: "openai" | "anthropic") => providerStatus(store.sqlite).providers.find((p) => p.id === id)!;
  await owner.providers.save({ openai: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: SAVED_OPENAI } });
  // Same origin, another path or model: the key stays.
  await owner.providers.save({ openai: { baseUrl: "http://127.0.0.1:11434/api/v1", model: "m" } });
  assert.equal(key("openai").apiKeySet, true);
  for (const moved of ["https://127.0.0.1:11434/v1", "http://localhost:11434/v1", "http://127.0.0.1:11435/v1"]) {
    await owner.providers.save({ openai: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: SAVED_OPENAI } });
    await owner.providers.save({ openai: { baseUrl: moved } });
    assert.equal(key("openai").apiKeySet, false, moved);
  }
  // Clearing the base URL moves the key's destination to the default host: cleared as well.
  await owner.providers.save({ openai: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: SAVED_OPENAI } });
  await owner.providers.save({ openai: { baseUrl: "" } });
  assert.equal(key("openai").apiKeySet, false);
  // A key given with the new URL is bound to it, and used there.
  await owner.providers.save({ anthropic: { apiKey: SAVED_ANTHROPIC } });
  await owner.providers.save({ active: "anthropic", anthropic: { baseUrl: catcher.url } });
  assert.equal(key("anthropic").apiKeySet, false);
  await owner.providers.save({
    anthropic: { baseUrl: anthropic.url, apiKey: SAVED_ANTHROPIC, model: FAKE_ANTHROPIC_MODEL },
  });
  const ok = await owner.providers.test({ provider: "anthropic" });
  assert.equal(ok.ok, true, ok.error ?? "");
  assert.equal(sentKey(anthropic), SAVED_ANTHROPIC);
  // The environment's key is not used at a saved base URL on another origin.
  resetProviderSettings(store.sqlite);
  process.env.MEMO_OPENAI_BASE_URL = "http://127.0.0.1:11434/v1";
  process.env.MEMO_OPENAI_API_KEY = ENV_OPENAI;
  assert.equal(key("openai").apiKeySource, "env");
  await owner.providers.save({ openai: { baseUrl: `${catcher.url}/v1` } });
  assert.deepEqual([key("openai").apiKeySet, key("openai").apiKeySource], [false, null]);
  assert.equal(catcher.seen.length, 0);
});

test("saved keys are sealed with data/secret.key: the database (or a backup of it) alone holds no usable key", async () => {
  await owner.providers.save({ active: "anthropic", anthropic: { baseUrl: anthropic.url, apiKey: SAVED_ANTHROPIC } });
  const file = secretKeyPath();
  assert.equal(file, path.join(store.dir, "secret.key"));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const row = store.sqlite.prepare("SELECT value FROM settings WHERE key = 'chat.providers'").get() as {
    value: string;
  };
  assert.ok(!row.value.includes(SAVED_ANTHROPIC), row.value);
  assert.match(row.value, /"apiKey":"enc:v1:/);
  store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  for (const f of fs.readdirSync(store.dir).filter((n) => n.startsWith("memory.db")))
    assert.equal(fs.readFileSync(path.join(store.dir, f)).includes(Buffer.from(SAVED_ANTHROPIC)), false, f);

  // The backup, opened with another data folder's key file: no key.
  const copy = path.join(store.dir, "elsewhere", "memory.db");
  await backupDatabase(path.join(store.dir, "memory.db"), copy);
  const other = new Database(copy);
  const dir = process.env.MEMO_DATA_DIR;
  process.env.MEMO_DATA_DIR = path.dirname(copy);
  try {
    const a = providerStatus(other).providers.find((p) => p.id === "anthropic")!;
    assert.equal(a.apiKeySet, false);
  } finally {
    process.env.MEMO_DATA_DIR = dir;
    other.close();
  }
  assert.equal(providerStatus(store.sqlite).providers.find((p) => p.id === "anthropic")!.apiKeySet, true);
});

test("a key stored in plain text (before sealing) is sealed on the next read and keeps working", async () => {
  store.sqlite.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('chat.providers', ?)").run(
    JSON.stringify({
      active: "anthropic",
      anthropic: { baseUrl: anthropic.url, apiKey: SAVED_ANTHROPIC, model: FAKE_ANTHROPIC_MODEL },
    }),
  );
  const ok = await owner.providers.test({ provider: "anthropic" });
  assert.equal(ok.ok, true, ok.error ?? "");
  assert.equal(sentKey(anthropic), SAVED_ANTHROPIC);
  const row = store.sqlite.prepare("SELECT value FROM settings WHERE key = 'chat.providers'").get() as {
    value: string;
  };
  assert.ok(!row.value.includes(SAVED_ANTHROPIC), "sealed in place");
  assert.match(row.value, /"keyOrigin":"http:\/\/127\.0\.0\.1:\d+"/, "bound to the origin it was used with");
});
