/**
 * `npm run models:pull -- --chat && npm start` is a fully local Memo: a chat GGUF in data/models/chat/
 * (here the tiny generated `llama` GGUF standing in for Qwen2.5-1.5B-Instruct) is used when no other
 * provider is configured, served by the supervised local llama.cpp server; Settings lists the GGUFs of
 * data/models/ and only those can be picked; a configured provider still wins.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { writeTinyLlamaGguf } from "../test/gguf/write-tiny-llama";
import { writeTinyNomicGguf } from "../test/gguf/write-gguf";
import { openTempStore, type TempStore } from "../test/temp-store";
import { listLocalGgufs, resolveListedChatGguf } from "./local-models";
import { stopLocalChatServer } from "./local-server";
import { getProvider, resolveProviderConfig, saveProviderSettings } from "./providers";

const ENV = [
  "MEMO_DATA_DIR",
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
  "MEMO_CHAT_THREADS",
];
const saved: Record<string, string | undefined> = {};
let store: TempStore;
let chatModel: string;

before(() => {
  for (const k of ENV) saved[k] = process.env[k];
  for (const k of ENV) delete process.env[k];
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  process.env.MEMO_CHAT_THREADS = "1";
  const models = path.join(store.dir, "models");
  fs.mkdirSync(path.join(models, "chat"), { recursive: true });
  chatModel = path.join(models, "chat", "tiny-chat-a.gguf");
  writeTinyLlamaGguf(chatModel, { seed: 3 });
  writeTinyLlamaGguf(path.join(models, "tiny-chat-b.gguf"), { seed: 4 });
  writeTinyNomicGguf(path.join(models, "nomic-embed-text-v1.5.Q8_0.gguf"));
  fs.writeFileSync(path.join(models, "chat", "half.gguf.part"), "GGUF");
});

after(async () => {
  await stopLocalChatServer();
  store.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test("Settings lists the GGUFs of data/models/: chat models to pick, the embedding model apart, no partial downloads", () => {
  const list = listLocalGgufs().map((g) => [g.file, g.kind]);
  assert.deepEqual(list, [
    ["tiny-chat-a.gguf", "chat"],
    ["nomic-embed-text-v1.5.Q8_0.gguf", "embedding"],
    ["tiny-chat-b.gguf", "chat"],
  ]);
  assert.ok(resolveListedChatGguf(chatModel));
  assert.equal(
    resolveListedChatGguf(path.join(store.dir, "models", "nomic-embed-text-v1.5.Q8_0.gguf")),
    null,
    "an embedding model cannot chat",
  );
  assert.equal(resolveListedChatGguf("/etc/passwd"), null);
});

test("with no provider configured, the chat GGUF in data/models/chat/ answers through the local llama.cpp server", {
  timeout: 180_000,
}, async () => {
  const cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual(cfg.active, { value: "llama", source: "default" });
  assert.equal(cfg.sections.llama.modelPath.value, chatModel);
  const provider = getProvider(store.sqlite);
  assert.equal(provider.label, "Local llama.cpp (tiny-chat-a)");
  const r = await provider.complete([{ role: "user", content: "hello" }], { maxTokens: 4, temperature: 0 });
  assert.equal(r.model, "tiny-chat-a");
  assert.ok(r.usage && r.usage.outputTokens > 0, "the local model generated tokens");
});

test("a provider configured in the environment wins over the discovered GGUF; one picked in Settings wins over both", () => {
  process.env.MEMO_OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
  try {
    assert.deepEqual(resolveProviderConfig(store.sqlite).active, { value: "openai", source: "default" });
    const other = path.join(store.dir, "models", "tiny-chat-b.gguf");
    saveProviderSettings(store.sqlite, { active: "llama", llama: { modelPath: other } });
    const cfg = resolveProviderConfig(store.sqlite);
    assert.deepEqual(cfg.active, { value: "llama", source: "settings" });
    assert.equal(cfg.sections.llama.modelPath.value, other);
  } finally {
    delete process.env.MEMO_OPENAI_BASE_URL;
  }
});
