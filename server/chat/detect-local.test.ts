/**
 * Local provider detection against the OpenAI-compatible TEST DOUBLE (server/test/fixture-chat-server.ts)
 * on a free port named in MEMO_DETECT_PORTS: found and chatted through; a configured provider wins over
 * it; MEMO_DETECT_LOCAL=0 and the Settings switch turn it off.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, beforeEach, test } from "node:test";
import { FixtureChatServer } from "../test/fixture-chat-server";
import { openTempStore, type TempStore } from "../test/temp-store";
import { detectedServer, getLocalDetector, probePort, saveDetectSettings } from "./detect-local";
import { getProvider, providerStatus, resolveProviderConfig, saveProviderSettings } from "./providers";

const ENV_KEYS = [
  "MEMO_DETECT_PORTS",
  "MEMO_DETECT_LOCAL",
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
  "MEMO_DATA_DIR",
];
const saved: Record<string, string | undefined> = {};
let local: FixtureChatServer;
let configured: FixtureChatServer;
let closedPort: number;
let store: TempStore;

const portOf = (s: FixtureChatServer) => Number(new URL(s.url).port);
const probes = (s: FixtureChatServer) => s.requests.filter((r) => r.path === "/v1/models").length;

before(async () => {
  for (const k of ENV_KEYS) saved[k] = process.env[k];
  local = await FixtureChatServer.start("local-llama3");
  configured = await FixtureChatServer.start("configured-model");
  // A port nothing listens on (bound, then released): detection must skip it and go on.
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  closedPort = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
});

after(async () => {
  await local.close();
  await configured.close();
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

beforeEach(() => {
  for (const k of ENV_KEYS) delete process.env[k];
  store = openTempStore();
  // No chat GGUF in data/models/chat/ of this data folder: nothing is configured.
  process.env.MEMO_DATA_DIR = store.dir;
  process.env.MEMO_DETECT_PORTS = `${closedPort},${portOf(local)}`;
  getLocalDetector().clear();
});

afterEach(() => store.close());

test("a local OpenAI-compatible server on a port in MEMO_DETECT_PORTS is found and chatted through", async () => {
  assert.equal(resolveProviderConfig(store.sqlite).active.value, null, "nothing configured, nothing found yet");
  const found = await getLocalDetector().recheck(store.sqlite);
  assert.deepEqual(
    found.map((f) => f.port),
    [portOf(local)],
  );
  assert.equal(found[0]!.model, "local-llama3");

  const cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual(cfg.active, { value: "openai", source: "detected" });
  assert.equal(cfg.sections.openai.baseUrl.value, local.url);
  assert.equal(cfg.sections.openai.model.value, "local-llama3");
  const st = providerStatus(store.sqlite);
  assert.equal(st.ready, true);
  assert.equal(st.activeSource, "detected");

  const reply = await getProvider(store.sqlite).complete([{ role: "user", content: "hello there" }]);
  assert.equal(reply.text, "fixture reply: hello there");
  const chat = local.requests.filter((r) => r.path === "/v1/chat/completions");
  assert.equal(chat.length, 1);
  assert.equal(chat[0]!.body?.model, "local-llama3");
});

test("a model picked in the chat page's picker keeps chatting through the detected server", async () => {
  await getLocalDetector().recheck(store.sqlite);
  saveProviderSettings(store.sqlite, { active: "openai", openai: { model: "another-model" } });
  const cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual(cfg.active, { value: "openai", source: "settings" });
  assert.equal(cfg.sections.openai.baseUrl.value, local.url);
  assert.equal(cfg.sections.openai.model.value, "another-model");
  assert.equal(providerStatus(store.sqlite).ready, true);
});

test("a configured provider is preferred over a detected one", async () => {
  await getLocalDetector().recheck(store.sqlite);
  assert.ok(detectedServer(store.sqlite));
  process.env.MEMO_OPENAI_BASE_URL = configured.url;
  const cfg = resolveProviderConfig(store.sqlite);
  assert.equal(cfg.active.value, "openai");
  assert.notEqual(cfg.active.source, "detected");
  assert.equal(cfg.sections.openai.baseUrl.value, configured.url);
  const reply = await getProvider(store.sqlite).complete([{ role: "user", content: "which one?" }]);
  assert.equal(reply.text, "fixture reply: which one?");
  assert.equal(configured.requests.filter((r) => r.path === "/v1/chat/completions").length, 1);
  assert.equal(
    local.requests.filter((r) => r.path === "/v1/chat/completions").length,
    1,
    "only the first test's chat reached the detected server",
  );

  // Boot's loop asks before probing: with a provider configured it leaves the ports alone.
  const before = probes(local);
  const detector = getLocalDetector();
  detector.start(store.sqlite, () => {
    const c = resolveProviderConfig(store.sqlite);
    return !c.active.value || c.active.source === "detected";
  });
  await new Promise((r) => setTimeout(r, 100));
  detector.stop();
  assert.equal(probes(local), before);
});

test("MEMO_DETECT_LOCAL=0 disables detection; so does the switch in Settings", async () => {
  process.env.MEMO_DETECT_LOCAL = "0";
  const before = probes(local);
  assert.deepEqual(await getLocalDetector().recheck(store.sqlite), []);
  assert.equal(probes(local), before, "no probe was sent");
  assert.equal(resolveProviderConfig(store.sqlite).active.value, null);
  assert.equal(getLocalDetector().status(store.sqlite).disabledReason, "MEMO_DETECT_LOCAL=0");

  delete process.env.MEMO_DETECT_LOCAL;
  await getLocalDetector().recheck(store.sqlite);
  assert.equal(resolveProviderConfig(store.sqlite).active.source, "detected");
  saveDetectSettings(store.sqlite, { enabled: false });
  assert.equal(
    resolveProviderConfig(store.sqlite).active.value,
    null,
    "turned off in Settings: not used even though it was found",
  );
  assert.equal(getLocalDetector().status(store.sqlite).disabledReason, "turned off in Settings");
});

test("a server that accepts but never answers is not detected (1 s probe timeout)", async () => {
  const sockets = new Set<import("node:net").Socket>();
  const silent = http.createServer(() => undefined);
  silent.on("connection", (s) => sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  try {
    assert.equal(await probePort((silent.address() as AddressInfo).port), null);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});
