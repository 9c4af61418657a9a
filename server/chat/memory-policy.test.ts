/**
 * The sharing decision (server/chat/memory-policy.ts): what counts as this machine, what each provider may
 * receive, and the one plan every turn path follows.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openTempStore } from "../test/temp-store";
import {
  isLoopbackHost,
  loadPrivacySettings,
  planTurnMemory,
  providerEndpoint,
  setSharing,
  setTemporaryReadsMemory,
  sharingFor,
  treatedAsRemote,
  type ProviderEndpoint,
} from "./memory-policy";
import { resolveProviderConfig, saveProviderSettings } from "./providers";

test("loopback is localhost, 127.0.0.0/8 and ::1, however the URL spells them", () => {
  for (const h of [
    "localhost",
    "LOCALHOST:11434",
    "localhost.",
    "127.0.0.1",
    "127.0.0.1:8080",
    "127.255.255.254",
    "127.1", // what fetch connects to: 127.0.0.1
    "0x7f.0.0.1",
    "2130706433",
    "[::1]",
    "[::1]:11434",
    "::1",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
  ]) {
    assert.equal(isLoopbackHost(h), true, h);
  }
});

test("every other host is remote: LAN and link-local addresses, public names, look-alikes", () => {
  for (const h of [
    "192.168.1.20:11434",
    "10.0.0.5",
    "172.16.0.1",
    "169.254.1.1",
    "100.64.0.1",
    "[fe80::1]",
    "[fd00::1]",
    "[::]",
    "0.0.0.0",
    "128.0.0.1",
    "api.openai.com",
    "api.anthropic.com",
    "localhost.example.com",
    "mylocalhost",
    "127.0.0.1.nip.io",
    "ollama.local",
    "[::ffff:192.168.1.2]",
    "",
    "not a host",
  ]) {
    assert.equal(isLoopbackHost(h), false, h);
  }
});

test("MEMO_TREAT_AS_REMOTE (test only) lists host:port endpoints, normalised like URL hosts", () => {
  assert.deepEqual([...treatedAsRemote("127.0.0.1:5417, localhost:80 ,,bad host")], ["127.0.0.1:5417", "localhost"]);
  assert.deepEqual([...treatedAsRemote(undefined)], []);
});

test("providerEndpoint: where each provider's prompts go and whether that is this machine", () => {
  const s = openTempStore();
  const saved = process.env.MEMO_TREAT_AS_REMOTE;
  try {
    delete process.env.MEMO_TREAT_AS_REMOTE;
    saveProviderSettings(s.sqlite, {
      openai: { baseUrl: "http://localhost:11434" },
      anthropic: { apiKey: "sk-ant-x" },
    });
    let cfg = resolveProviderConfig(s.sqlite);
    assert.deepEqual(providerEndpoint(cfg, "openai"), {
      provider: "openai",
      label: "OpenAI-compatible",
      host: "localhost:11434",
      local: true,
      key: "openai@localhost:11434",
    });
    assert.deepEqual(providerEndpoint(cfg, "anthropic"), {
      provider: "anthropic",
      label: "Anthropic",
      host: "api.anthropic.com",
      local: false,
      key: "anthropic@api.anthropic.com",
    });
    assert.equal(providerEndpoint(cfg, "llama").local, true);

    saveProviderSettings(s.sqlite, { openai: { baseUrl: "http://192.168.1.20:11434/v1" } });
    cfg = resolveProviderConfig(s.sqlite);
    assert.equal(providerEndpoint(cfg, "openai").local, false, "a LAN address is remote");

    saveProviderSettings(s.sqlite, { openai: { baseUrl: "http://127.0.0.1:5417/v1" } });
    cfg = resolveProviderConfig(s.sqlite);
    assert.equal(providerEndpoint(cfg, "openai").local, true);
    process.env.MEMO_TREAT_AS_REMOTE = "127.0.0.1:5417";
    assert.equal(providerEndpoint(cfg, "openai").local, false, "named by MEMO_TREAT_AS_REMOTE");
    process.env.MEMO_TREAT_AS_REMOTE = "127.0.0.1:5418";
    assert.equal(providerEndpoint(cfg, "openai").local, true, "only the endpoint it names");
  } finally {
    if (saved === undefined) delete process.env.MEMO_TREAT_AS_REMOTE;
    else process.env.MEMO_TREAT_AS_REMOTE = saved;
    s.close();
  }
});

const remote: ProviderEndpoint = {
  provider: "openai",
  label: "OpenAI-compatible",
  host: "api.example.com",
  local: false,
  key: "openai@api.example.com",
};
const local: ProviderEndpoint = {
  provider: "openai",
  label: "OpenAI-compatible",
  host: "localhost:11434",
  local: true,
  key: "openai@localhost:11434",
};
const normal = { recall: true, store: true, temporary: false };

test("sharing: loopback is always on; a remote provider is asked once, then its saved choice applies", () => {
  const s = openTempStore();
  try {
    let settings = loadPrivacySettings(s.sqlite);
    assert.equal(sharingFor(settings, local), "on");
    assert.equal(sharingFor(settings, remote), "ask");
    setSharing(s.sqlite, remote.key, "pinned");
    settings = loadPrivacySettings(s.sqlite);
    assert.equal(sharingFor(settings, remote), "pinned");
    assert.equal(
      sharingFor(settings, { ...remote, host: "other.example.com", key: "openai@other.example.com" }),
      "ask",
      "per host",
    );
    setSharing(s.sqlite, local.key, "off");
    assert.equal(sharingFor(loadPrivacySettings(s.sqlite), local), "on", "a loopback provider always gets memories");
    setSharing(s.sqlite, remote.key, null);
    assert.equal(sharingFor(loadPrivacySettings(s.sqlite), remote), "ask", "forgotten: asked again");
    assert.equal(loadPrivacySettings(s.sqlite).temporaryReadsMemory, true);
    setTemporaryReadsMemory(s.sqlite, false);
    assert.equal(loadPrivacySettings(s.sqlite).temporaryReadsMemory, false);
    s.sqlite.prepare("UPDATE settings SET value = '{broken' WHERE key = 'privacy'").run();
    assert.equal(
      sharingFor(loadPrivacySettings(s.sqlite), remote),
      "ask",
      "a damaged value asks again rather than shares",
    );
  } finally {
    s.close();
  }
});

test("planTurnMemory: one decision for recall, what is sent, promotion and storing", () => {
  const settings = (sharing: Record<string, "on" | "off" | "pinned"> = {}) => ({ sharing, temporaryReadsMemory: true });
  assert.deepEqual(planTurnMemory(normal, local, settings(), true), {
    recall: true,
    only: "all",
    promote: true,
    store: true,
    sharing: "on",
    reason: null,
    endpoint: local,
  });

  const ask = planTurnMemory(normal, remote, settings(), true);
  assert.equal(ask.sharing, "ask");
  assert.equal(ask.recall, true, "the page can ask: recall, then ask before sending");
  const noAsk = planTurnMemory(normal, remote, settings(), false);
  assert.equal(noAsk.recall, false, "no one to ask: nothing is sent");
  assert.match(noAsk.reason!, /^memory not shared with OpenAI-compatible \(api\.example\.com\)/);

  const off = planTurnMemory(normal, remote, settings({ [remote.key]: "off" }), true);
  assert.equal(off.recall, false);
  assert.equal(off.reason, "memory not shared with OpenAI-compatible (api.example.com)");
  assert.equal(off.store, true, "sharing is about the provider, not about storing");

  const pinned = planTurnMemory(normal, remote, settings({ [remote.key]: "pinned" }), false);
  assert.equal(pinned.recall, true);
  assert.equal(pinned.only, "pinned");

  const noRecall = planTurnMemory({ ...normal, recall: false }, local, settings(), true);
  assert.equal(noRecall.recall, false);
  assert.equal(noRecall.reason, "recall is off for this conversation");
  assert.equal(planTurnMemory({ ...normal, store: false }, local, settings(), true).store, false);

  const temporary = planTurnMemory({ recall: true, store: false, temporary: true }, local, settings(), true);
  assert.equal(temporary.recall, true);
  assert.equal(temporary.promote, false, "a temporary chat writes nothing, not even retrieval counts");
  assert.equal(temporary.store, false);
  const temporaryStoreFlag = planTurnMemory({ recall: false, store: true, temporary: true }, local, settings(), true);
  assert.equal(temporaryStoreFlag.store, false, "a temporary chat never stores, whatever its flag says");
  assert.equal(temporaryStoreFlag.reason, "temporary chat: memory is not read");
});
