/**
 * The provider layer: request building and stream parsing for both API shapes (pure), the official SDKs
 * against local test doubles speaking each wire format (OpenAI SSE chunks, Anthropic events), readable
 * errors for down / 401 / timeout / bad model, and configuration from Settings over the environment.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, afterEach, before, test } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { FAKE_ANTHROPIC_MODEL, FakeAnthropicServer } from "../test/fake-anthropic-server";
import { openTempStore, type TempStore } from "../test/temp-store";
import {
  anthropicEventError,
  anthropicEventText,
  createProvider,
  getProvider,
  normalizeOpenAIBaseUrl,
  openAIChunkFinish,
  openAIChunkText,
  ProviderError,
  providerStatus,
  resetProviderSettings,
  resolveProviderConfig,
  saveProviderSettings,
  toAnthropicRequest,
  toOpenAIRequest,
  type ChatMessage,
  type ChatProvider,
} from "./providers";

const ENV_KEYS = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_ANTHROPIC_MODEL",
  "MEMO_ANTHROPIC_BASE_URL",
  "MEMO_CHAT_MODEL",
  "MEMO_PROVIDER_TIMEOUT_SEC",
  "MEMO_DATA_DIR",
];
const savedEnv: Record<string, string | undefined> = {};
let store: TempStore;
let openai: OpenAIFixtureServer;
let anthropic: FakeAnthropicServer;

before(async () => {
  for (const k of ENV_KEYS) {
    savedEnv[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir; // no data/models/chat of the developer's checkout
  openai = await OpenAIFixtureServer.start({ apiKey: "sk-fixture" });
  anthropic = await FakeAnthropicServer.start("sk-ant-fixture");
});
after(async () => {
  await openai.close();
  await anthropic.close();
  store.close();
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});
afterEach(() => {
  resetProviderSettings(store.sqlite);
  for (const k of ENV_KEYS) if (k !== "MEMO_DATA_DIR") delete process.env[k];
});

const MSGS: ChatMessage[] = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "first question" },
  { role: "assistant", content: "first answer" },
  { role: "user", content: "What is my dog called?" },
];

async function collect(gen: AsyncGenerator<string, unknown>): Promise<{ parts: string[]; result: unknown }> {
  const parts: string[] = [];
  for (;;) {
    const r = await gen.next();
    if (r.done) return { parts, result: r.value };
    parts.push(r.value);
  }
}

async function rejects(p: Promise<unknown>, kind: string, message: RegExp): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProviderError, `expected a ProviderError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, message);
    return e;
  }
  throw new Error("expected a rejection");
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function openaiProvider(
  over: { baseUrl?: string; apiKey?: string; model?: string; timeoutSec?: number } = {},
): ChatProvider {
  saveProviderSettings(store.sqlite, {
    active: "openai",
    openai: {
      baseUrl: over.baseUrl ?? openai.url,
      apiKey: over.apiKey ?? "sk-fixture",
      model: over.model ?? FIXTURE_MODEL,
    },
    ...(over.timeoutSec ? { timeoutSec: over.timeoutSec } : {}),
  });
  return getProvider(store.sqlite);
}

function anthropicProvider(over: { apiKey?: string; model?: string } = {}): ChatProvider {
  saveProviderSettings(store.sqlite, {
    active: "anthropic",
    anthropic: {
      baseUrl: anthropic.url,
      apiKey: over.apiKey ?? "sk-ant-fixture",
      model: over.model ?? FAKE_ANTHROPIC_MODEL,
    },
  });
  return getProvider(store.sqlite);
}

// ---------------------------------------------------------------------------------------------------------
// Pure request building and parsing

test("OpenAI request: roles and content as given; max_tokens and temperature only when set", () => {
  const body = toOpenAIRequest(MSGS, { model: "m", stream: true });
  assert.deepEqual(body, { model: "m", messages: MSGS, stream: true });
  const b2 = toOpenAIRequest(MSGS, { model: "m", stream: false, maxTokens: 10, temperature: 0.2 });
  assert.equal(b2.max_tokens, 10);
  assert.equal(b2.temperature, 0.2);
});

test("structured output: OpenAI gets response_format json_schema; Anthropic a tool it must call", () => {
  const jsonSchema = { name: "memo_facts", schema: { type: "object", properties: {} }, strict: true };
  const o = toOpenAIRequest(MSGS, { model: "m", stream: false, jsonSchema });
  assert.deepEqual(o.response_format, { type: "json_schema", json_schema: jsonSchema });
  assert.equal(toOpenAIRequest(MSGS, { model: "m", stream: false }).response_format, undefined);
  const a = toAnthropicRequest(MSGS, { model: "m", stream: false, jsonSchema });
  assert.deepEqual(a.tool_choice, { type: "tool", name: "memo_facts" });
  assert.equal(a.tools?.length, 1);
  assert.deepEqual((a.tools![0] as { input_schema: unknown }).input_schema, jsonSchema.schema);
});

test("OpenAI stream chunks: content deltas are text; role, tool and empty chunks add nothing", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    ({
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    }) as unknown as OpenAI.Chat.Completions.ChatCompletionChunk;
  assert.equal(openAIChunkText(chunk({ role: "assistant", content: "" })), "");
  assert.equal(openAIChunkText(chunk({ content: "Hel" })), "Hel");
  assert.equal(openAIChunkText(chunk({ tool_calls: [{ index: 0 }] })), "");
  assert.equal(openAIChunkText(chunk({ reasoning_content: "hmm" })), "");
  assert.equal(openAIChunkText({ choices: [] } as unknown as OpenAI.Chat.Completions.ChatCompletionChunk), "");
  assert.equal(openAIChunkFinish(chunk({}, "length")), "length");
  assert.equal(openAIChunkFinish(chunk({ content: "x" })), null);
});

test("Anthropic request: system apart, consecutive turns merged, starts with a user turn", () => {
  const body = toAnthropicRequest(
    [
      { role: "system", content: "sys one" },
      { role: "assistant", content: "a greeting before any user turn" },
      { role: "user", content: "u1" },
      { role: "user", content: "u2" },
      { role: "system", content: "sys two" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u3" },
    ],
    { model: "claude-x", stream: true, maxTokens: 100 },
  );
  assert.deepEqual(body, {
    model: "claude-x",
    max_tokens: 100,
    stream: true,
    system: "sys one\n\nsys two",
    messages: [
      { role: "user", content: "u1\n\nu2" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u3" },
    ],
  });
  assert.equal(toAnthropicRequest([{ role: "user", content: "x" }], { model: "m", stream: false }).max_tokens, 4096);
  assert.throws(
    () => toAnthropicRequest([{ role: "system", content: "only" }], { model: "m", stream: false }),
    ProviderError,
  );
});

test("Anthropic events: text deltas are text; other events and deltas add nothing; error events are errors", () => {
  const ev = (e: unknown) => e as Anthropic.Messages.RawMessageStreamEvent;
  assert.equal(
    anthropicEventText(ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } })),
    "Hi",
  );
  assert.equal(
    anthropicEventText(
      ev({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } }),
    ),
    "",
  );
  assert.equal(
    anthropicEventText(
      ev({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{" } }),
    ),
    "",
  );
  assert.equal(anthropicEventText(ev({ type: "message_start", message: {} })), "");
  assert.equal(anthropicEventText(ev({ type: "message_stop" })), "");
  assert.equal(anthropicEventError({ type: "ping" }), null);
  const err = anthropicEventError({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  assert.equal(err?.kind, "rate_limited");
  assert.match(err!.message, /Overloaded/);
});

test("base URLs without a path get /v1 (Ollama, LM Studio)", () => {
  assert.equal(normalizeOpenAIBaseUrl("http://localhost:11434"), "http://localhost:11434/v1");
  assert.equal(normalizeOpenAIBaseUrl("http://localhost:11434/"), "http://localhost:11434/v1");
  assert.equal(normalizeOpenAIBaseUrl("http://localhost:1234/v1/"), "http://localhost:1234/v1");
  assert.equal(normalizeOpenAIBaseUrl("https://example.com/openai/v1"), "https://example.com/openai/v1");
});

// ---------------------------------------------------------------------------------------------------------
// The OpenAI-compatible provider over real HTTP (official client, fixture server)

test("OpenAI-compatible: streams the reply in pieces and reports how it ended", async () => {
  const p = openaiProvider();
  const { parts, result } = await collect(p.stream(MSGS));
  assert.ok(parts.length > 3, `${parts.length} pieces`);
  assert.equal(parts.join(""), "Fixture reply to: What is my dog called?\n\nNo memory block received.");
  assert.deepEqual(result, {
    text: parts.join(""),
    model: FIXTURE_MODEL,
    finishReason: "stop",
    usage: (result as { usage: unknown }).usage,
  });
  const last = openai.requests.at(-1)!;
  assert.equal(last.authorization, "Bearer sk-fixture");
  assert.equal(last.body?.stream, true);
  assert.deepEqual(last.body?.messages, MSGS);
});

test("OpenAI-compatible: non-streaming completion and model list", async () => {
  const p = openaiProvider();
  const r = await p.complete([{ role: "user", content: "hi" }], { maxTokens: 5 });
  assert.equal(r.text, "Fixture reply to: hi\n\nNo memory block received.");
  assert.equal(r.finishReason, "stop");
  assert.ok(r.usage && r.usage.outputTokens > 0);
  assert.equal(openai.requests.at(-1)!.body?.max_tokens, 5);
  assert.deepEqual(await p.listModels(), ["fixture-echo", "fixture-echo-2"]);
});

test("OpenAI-compatible: with no model configured, the endpoint's first model is used", async () => {
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: openai.url, apiKey: "sk-fixture" } });
  const p = getProvider(store.sqlite);
  assert.equal(p.model, null);
  const r = await p.complete([{ role: "user", content: "hi" }]);
  assert.equal(r.model, FIXTURE_MODEL);
});

test("errors: down, 401, unknown model, wrong path, 500, timeout — each readable", async () => {
  const port = await closedPort();
  await rejects(
    openaiProvider({ baseUrl: `http://127.0.0.1:${port}/v1` }).complete(MSGS),
    "unreachable",
    new RegExp(`Cannot reach .* at http://127\\.0\\.0\\.1:${port}/v1: connection refused`),
  );
  await rejects(
    collect(openaiProvider({ baseUrl: `http://127.0.0.1:${port}/v1` }).stream(MSGS)),
    "unreachable",
    /connection refused/,
  );
  await rejects(
    collect(openaiProvider({ apiKey: "wrong" }).stream(MSGS)),
    "auth",
    /rejected the API key \(HTTP 401: Incorrect API key provided\.\)/,
  );
  const bad = await rejects(
    collect(openaiProvider({ model: "gpt-nope" }).stream(MSGS)),
    "bad_model",
    /has no model 'gpt-nope'/,
  );
  assert.equal(bad.status, 404);
  await rejects(
    openaiProvider({ baseUrl: openai.url.replace(/\/v1$/, "/nope") }).complete(MSGS),
    "bad_url",
    /404 Not Found .* check the base URL/,
  );
  await rejects(
    collect(openaiProvider().stream([{ role: "user", content: "[fixture:500]" }])),
    "upstream",
    /HTTP 500: The fixture failed on purpose/,
  );
  const t0 = Date.now();
  await rejects(
    collect(openaiProvider({ timeoutSec: 1 }).stream([{ role: "user", content: "[fixture:hang]" }])),
    "timeout",
    /sent nothing for 1 s/,
  );
  assert.ok(Date.now() - t0 < 5000, "a hung provider fails after the timeout, not later");
});

test("a reply cut off mid-stream is an error after the pieces already received", async () => {
  const p = openaiProvider();
  const parts: string[] = [];
  await rejects(
    (async () => {
      for await (const t of p.stream([{ role: "user", content: "please [fixture:cut] now" }])) parts.push(t);
    })(),
    "upstream",
    /./,
  );
  assert.ok(parts.length >= 3, "the first pieces arrived before the cut");
});

test("cancelling through the signal stops the request with kind 'aborted'", async () => {
  const p = openaiProvider();
  const ac = new AbortController();
  const gen = p.stream([{ role: "user", content: "[fixture:slow] a longer reply please" }], { signal: ac.signal });
  await gen.next();
  ac.abort();
  await rejects(collect(gen), "aborted", /cancelled/);
});

// ---------------------------------------------------------------------------------------------------------
// Anthropic over real HTTP (official SDK, fake server)

test("Anthropic: streams text deltas from the real event sequence; system prompt sent apart", async () => {
  const p = anthropicProvider();
  const { parts, result } = await collect(p.stream(MSGS));
  assert.equal(parts.join(""), "Anthropic fixture: What is my dog called?");
  assert.ok(parts.length > 3);
  assert.deepEqual(result, {
    text: parts.join(""),
    model: FAKE_ANTHROPIC_MODEL,
    finishReason: "end_turn",
    usage: { inputTokens: 12, outputTokens: 7 },
  });
  const req = anthropic.requests.at(-1)!;
  assert.ok(
    req.headers["x-api-key"] === "sk-ant-fixture" || req.headers.authorization === "Bearer sk-ant-fixture",
    "the key is sent",
  );
  assert.equal(req.body?.system, "You are terse.");
  assert.deepEqual(
    req.body?.messages?.map((m) => m.role),
    ["user", "assistant", "user"],
  );
});

test("Anthropic: complete, models, and errors (401, unknown model, error event mid-stream)", async () => {
  const p = anthropicProvider();
  assert.equal((await p.complete(MSGS)).text, "Anthropic fixture: What is my dog called?");
  assert.deepEqual(await p.listModels(), [FAKE_ANTHROPIC_MODEL]);
  await rejects(
    collect(anthropicProvider({ apiKey: "nope" }).stream(MSGS)),
    "auth",
    /rejected the API key \(HTTP 401: invalid x-api-key\)/,
  );
  await rejects(anthropicProvider({ model: "claude-nope" }).complete(MSGS), "bad_model", /has no model 'claude-nope'/);
  // Structured output: the forced tool's input is the answer, as JSON text.
  anthropic.toolInput = { facts: [{ text: "The user has a dog.", replaces: [], exchange: 1 }] };
  const structured = await p.complete(MSGS, { jsonSchema: { name: "memo_facts", schema: { type: "object" } } });
  assert.deepEqual(JSON.parse(structured.text), anthropic.toolInput);
  assert.deepEqual(anthropic.requests.at(-1)!.body!.tool_choice, { type: "tool", name: "memo_facts" });
  anthropic.overloadMidStream = true;
  try {
    await rejects(collect(anthropicProvider().stream(MSGS)), "rate_limited", /Overloaded/);
  } finally {
    anthropic.overloadMidStream = false;
  }
});

// ---------------------------------------------------------------------------------------------------------
// Configuration

test("nothing configured: no provider, and the status says how to set one up", () => {
  const s = providerStatus(store.sqlite);
  assert.equal(s.active, null);
  assert.equal(s.ready, false);
  assert.match(s.problem!, /No chat provider is configured.*Settings → Providers.*MEMO_PROVIDER=openai/);
  assert.equal(s.unready, "No chat provider is configured.");
  assert.throws(
    () => getProvider(store.sqlite),
    (e: unknown) => e instanceof ProviderError && e.kind === "not_configured" && e.status === 503,
  );
});

test("environment variables configure a provider; Settings override them field by field; reset goes back", () => {
  process.env.MEMO_PROVIDER = "openai";
  process.env.MEMO_OPENAI_BASE_URL = "http://localhost:11434";
  process.env.MEMO_OPENAI_MODEL = "llama3.2";
  process.env.MEMO_OPENAI_API_KEY = "sk-secret-env";
  let cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual([cfg.active.value, cfg.active.source], ["openai", "env"]);
  assert.deepEqual([cfg.sections.openai.model.value, cfg.sections.openai.model.source], ["llama3.2", "env"]);
  saveProviderSettings(store.sqlite, { openai: { model: "qwen2.5" } });
  cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual([cfg.sections.openai.model.value, cfg.sections.openai.model.source], ["qwen2.5", "settings"]);
  assert.equal(cfg.sections.openai.baseUrl.source, "env");
  assert.equal(createProvider(cfg, "openai").model, "qwen2.5");
  // "" clears a saved value: the environment applies again
  saveProviderSettings(store.sqlite, { openai: { model: "" } });
  assert.equal(resolveProviderConfig(store.sqlite).sections.openai.model.value, "llama3.2");
  saveProviderSettings(store.sqlite, { active: "anthropic", anthropic: { apiKey: "sk-ant-saved" } });
  assert.equal(resolveProviderConfig(store.sqlite).active.value, "anthropic");
  resetProviderSettings(store.sqlite);
  assert.equal(resolveProviderConfig(store.sqlite).active.value, "openai");
});

test("API keys never appear in the status the browser gets", () => {
  process.env.MEMO_ANTHROPIC_API_KEY = "sk-ant-env-secret";
  saveProviderSettings(store.sqlite, {
    active: "openai",
    openai: { baseUrl: openai.url, apiKey: "sk-saved-secret", model: "m" },
  });
  const s = providerStatus(store.sqlite);
  const json = JSON.stringify(s);
  assert.ok(!json.includes("sk-saved-secret") && !json.includes("sk-ant-env-secret"), json);
  const o = s.providers.find((p) => p.id === "openai")!;
  assert.deepEqual([o.apiKeySet, o.apiKeySource, o.configured], [true, "settings", true]);
  const a = s.providers.find((p) => p.id === "anthropic")!;
  assert.deepEqual([a.apiKeySet, a.apiKeySource, a.configured], [true, "env", true]);
});

test("with no choice made, the first provider that has what it needs is used; a key alone means api.openai.com", () => {
  process.env.MEMO_OPENAI_API_KEY = "sk-x";
  const cfg = resolveProviderConfig(store.sqlite);
  assert.deepEqual([cfg.active.value, cfg.active.source], ["openai", "default"]);
  assert.equal(cfg.sections.openai.baseUrl.value, "https://api.openai.com/v1");
  assert.equal(cfg.sections.openai.model.value, "gpt-4o-mini");
});

test("the local provider needs an existing GGUF; a chat model in data/models/chat is found", () => {
  saveProviderSettings(store.sqlite, { active: "llama", llama: { modelPath: "/nonexistent/model.gguf" } });
  let s = providerStatus(store.sqlite);
  assert.equal(s.ready, false);
  assert.match(s.problem!, /\/nonexistent\/model\.gguf \(it does not exist\)/);
  // Without the how (pages that are the how, or link to it, say it in their own place): no "Settings → Providers".
  assert.match(s.unready!, /^Local.* is selected but needs .*\/nonexistent\/model\.gguf \(it does not exist\)\.$/);
  assert.doesNotMatch(s.unready!, /Settings → Providers|MEMO_PROVIDER/);
  resetProviderSettings(store.sqlite);
  const dir = path.join(store.dir, "models", "chat");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "local-chat.gguf"), "GGUF");
  s = providerStatus(store.sqlite);
  assert.equal(s.active, "llama");
  assert.equal(s.providers[0]!.model, "local-chat");
  assert.equal(s.providers[0]!.modelPathSource, "default");
  fs.rmSync(dir, { recursive: true });
});

test("saving rejects what cannot work with a readable message", () => {
  assert.throws(
    () => saveProviderSettings(store.sqlite, { openai: { baseUrl: "localhost:11434" } }),
    /is not a URL|must start with http/,
  );
  assert.throws(() => saveProviderSettings(store.sqlite, { openai: { baseUrl: "ftp://x" } }), /must start with http/);
  assert.throws(() => saveProviderSettings(store.sqlite, { timeoutSec: 0 } as never));
  assert.deepEqual(resolveProviderConfig(store.sqlite).sections.openai.baseUrl.value, null, "nothing was saved");
});
