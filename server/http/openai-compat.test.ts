/**
 * The OpenAI-compatible endpoint's logic on a real store (in-process bundled embedder) with the
 * OpenAI-compatible test double as the provider: validation, space and model selection, the memory
 * block in the system prompt, both response shapes, and persistence of the exchange.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { addMemories } from "../memory/store/add";
import { addFacts } from "../services/facts-service";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import {
  chatCompletionRequest,
  completeNonStreaming,
  completeStreaming,
  listModels,
  MEMORY_PREAMBLE,
  OpenAIHttpError,
  openAIErrorResponse,
  prepareCompletion,
  readCompletionRequest,
  resolveModel,
} from "./openai-compat";
import { PersistQueue } from "../chat/exchange-queue";
import { ProviderError, providerResolutions, saveProviderSettings } from "../chat/providers";
import { readSseJson } from "../chat/sse";

let store: TempStore;
let memo: MemoContext;
let fixture: OpenAIFixtureServer;
let queue: PersistQueue;

before(async () => {
  for (const k of [
    "MEMO_PROVIDER",
    "MEMO_OPENAI_BASE_URL",
    "MEMO_OPENAI_API_KEY",
    "MEMO_OPENAI_MODEL",
    "MEMO_ANTHROPIC_API_KEY",
    "MEMO_CHAT_MODEL",
  ])
    delete process.env[k];
  store = openTempStore();
  memo = { db: store.sqlite, embedder: await inProcessEmbedder() };
  fixture = await OpenAIFixtureServer.start();
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
  queue = new PersistQueue(() => memo, { log: () => undefined });
  await addMemories(memo, [{ text: "The spare bike key hangs on the hook behind the pantry door.", space: "home" }]);
});
after(async () => {
  await fixture.close();
  store.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request("http://memo.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    return openAIErrorResponse(e).status;
  }
  return 200;
}

test("bad requests are 4xx with OpenAI's error shape", async () => {
  assert.equal(await status(readCompletionRequest(post(""))), 400);
  assert.equal(await status(readCompletionRequest(post("{nope"))), 400);
  assert.equal(await status(readCompletionRequest(post({ model: "memo", messages: [] }))), 400);
  assert.equal(
    await status(
      readCompletionRequest(
        post({ model: "memo", messages: [{ role: "user", content: "x" }], tools: [{ type: "function" }] }),
      ),
    ),
    400,
  );
  assert.equal(await status(readCompletionRequest(post("x".repeat(3 * 1024 * 1024)))), 413);
  const r = openAIErrorResponse(
    new OpenAIHttpError(400, "messages must not be empty", "invalid_request_error", "invalid_request", "messages"),
  );
  assert.deepEqual(await r.json(), {
    error: {
      message: "messages must not be empty",
      type: "invalid_request_error",
      param: "messages",
      code: "invalid_request",
    },
  });
  const pe = await openAIErrorResponse(new ProviderError("bad_model", "no model x", "openai")).json();
  assert.deepEqual(pe, {
    error: { message: "no model x", type: "invalid_request_error", param: "model", code: "model_not_found" },
  });
  // Clients send fields Memo does not use: they are accepted.
  assert.ok(
    chatCompletionRequest.safeParse({
      model: "m",
      messages: [{ role: "user", content: "x", name: "bob" }],
      top_p: 1,
      user: "u",
    }).success,
  );
});

test("model names: memo, <provider>:<model>, or a model of the selected provider", () => {
  assert.equal(resolveModel(store.sqlite, "memo").model, undefined);
  assert.equal(resolveModel(store.sqlite, "openai:fixture-echo-2").model, "fixture-echo-2");
  assert.equal(resolveModel(store.sqlite, "gpt-4o").model, "gpt-4o");
  assert.throws(
    () => resolveModel(store.sqlite, "anthropic:claude-x"),
    (e: unknown) => e instanceof OpenAIHttpError && e.status === 404,
  );
  assert.deepEqual(
    listModels(store.sqlite).data.map((m) => m.id),
    ["memo", "openai:fixture-echo"],
  );
});

test("the memory block joins the client's system prompt, from the space in the header (over the body field)", async () => {
  const body = chatCompletionRequest.parse({
    model: "memo",
    memo_space: "elsewhere",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Where is the spare bike key?" }] },
    ],
  });
  const p = await prepareCompletion(memo, post(body, { "x-memo-space": "home" }), body);
  assert.equal(p.space, "home");
  assert.equal(p.recalled.length, 1);
  assert.equal(p.messages.length, 2);
  assert.ok(
    p.messages[0]!.content.startsWith(`Be brief.\n\n${MEMORY_PREAMBLE}\n\n[Relevant Memories]\n- `),
    p.messages[0]!.content,
  );
  assert.match(p.messages[0]!.content, /\n- \d{4}-\d{2}-\d{2}: The spare bike key hangs/);
  const noSys = chatCompletionRequest.parse({
    model: "memo",
    messages: [{ role: "user", content: "spare bike key?" }],
  });
  const q = await prepareCompletion(memo, post(noSys, { "x-memo-space": "home" }), noSys);
  assert.equal(q.messages[0]!.role, "system");
  assert.equal(q.messages.length, 2);
  const bad = chatCompletionRequest.parse({ model: "memo", messages: [{ role: "user", content: "x" }] });
  await assert.rejects(
    prepareCompletion(memo, post(bad, { "x-memo-space": "not valid!" }), bad),
    (e: unknown) => e instanceof OpenAIHttpError && e.status === 400,
  );
});

test("a /v1 turn packs what Memo knows as the chat does: the current fact in [What I know], the replaced one not as current", async () => {
  // A space with a life in it (a space of two memories has no word statistics to be confident with).
  const other = [
    "User: My sourdough starter needs feeding twice a day.",
    "User: I am training for a half marathon in October.",
    "User: The violin lesson moved to Thursday evenings.",
    "User: Our cat Miso hates the vacuum cleaner.",
    "User: I booked the dentist for the ninth of May.",
    "User: My sister plays chess online every night.",
    "User: The tomato seedlings are on the windowsill.",
    "User: I started reading a novel about lighthouse keepers.",
    "User: Work wants the quarterly report by Friday.",
    "User: I bought a second-hand kayak last summer.",
  ];
  await addMemories(
    memo,
    other.map((text, i) => ({ text, space: "moves", timestamp: `2024-0${1 + (i % 9)}-05T10:00:00Z` })),
  );
  const [[berlin], [lisbon]] = await addMemories(memo, [
    { text: "User: I live in Berlin, in a flat near the canal.", space: "moves", timestamp: "2024-03-01T10:00:00Z" },
    {
      text: "User: We moved to Lisbon last weekend, the flat has a balcony.",
      space: "moves",
      timestamp: "2024-06-20T10:00:00Z",
    },
  ]);
  const [old] = await addFacts(memo, "moves", [{ text: "The user lives in Berlin.", sources: [berlin!] }], "import");
  await addFacts(
    memo,
    "moves",
    [{ text: "The user lives in Lisbon.", sources: [lisbon!], replaces: [old!] }],
    "import",
  );
  const body = chatCompletionRequest.parse({
    model: "memo",
    messages: [{ role: "user", content: "Where do I live now?" }],
  });
  const p = await prepareCompletion(memo, post(body, { "x-memo-space": "moves" }), body);
  const system = p.messages[0]!.content;
  assert.ok(
    system.startsWith(`${MEMORY_PREAMBLE}\n\n[What I know]\n- The user lives in Lisbon. (since 2024-06-20)`),
    system,
  );
  const known = system.split("\n\n[Relevant Memories]")[0]!;
  assert.doesNotMatch(known, /lives in Berlin/, "the replaced fact is not stated as current");
  // The exchange that matched is the old one; its replaced fact speaks through the fact that replaced it.
  assert.match(system, /\[Relevant Memories\]\n- 2024-03-01: User: I live in Berlin/);
});

test("non-streaming and streaming answers in OpenAI's shapes; each exchange is persisted", async () => {
  const body = chatCompletionRequest.parse({
    model: "memo",
    messages: [{ role: "user", content: "Where is the spare bike key?" }],
  });
  const p = await prepareCompletion(memo, post(body, { "x-memo-space": "home" }), body);
  const r = (await (await completeNonStreaming(memo, p, new AbortController().signal, queue)).json()) as {
    object: string;
    choices: { message: { content: string }; finish_reason: string }[];
    memo: { recalled: unknown[] };
  };
  assert.equal(r.object, "chat.completion");
  assert.match(r.choices[0]!.message.content, /Memory block received:[\s\S]*pantry door/);
  assert.equal(r.choices[0]!.finish_reason, "stop");
  assert.equal(r.memo.recalled.length, 1);

  const sbody = chatCompletionRequest.parse({
    model: "memo",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Which door is the bike key behind?" }],
  });
  const sp = await prepareCompletion(memo, post(sbody, { "x-memo-space": "home" }), sbody);
  const res = await completeStreaming(memo, sp, sbody, new AbortController().signal, queue);
  assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
  type Chunk = {
    object: string;
    choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
    usage?: unknown;
  };
  const chunks: Chunk[] = [];
  for await (const c of readSseJson<Chunk>(res.body!)) chunks.push(c);
  assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
  assert.match(
    chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""),
    /^Fixture reply to: Which door is the bike key behind\?/,
  );
  assert.deepEqual(chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean), ["stop"]);
  assert.ok(chunks.at(-1)!.usage, "usage last, as asked");

  await queue.drain();
  const stored = store.sqlite
    .prepare("SELECT content FROM memories WHERE space_id = 'home' AND content LIKE 'User:%' ORDER BY rid")
    .all() as { content: string }[];
  assert.equal(stored.length, 2);
  assert.match(stored[0]!.content, /^User: Where is the spare bike key\? Assistant: Fixture reply/);
  assert.match(stored[1]!.content, /^User: Which door is the bike key behind\? Assistant: Fixture reply/);
});

test("a /v1 request resolves the provider configuration once: its provider, its memory plan, its write's learning decision", async () => {
  const body = chatCompletionRequest.parse({
    model: "memo",
    messages: [{ role: "user", content: "Where did I leave the spare bike key?" }],
  });
  const before = providerResolutions();
  const p = await prepareCompletion(memo, post(body, { "x-memo-space": "straight" }), body);
  assert.equal(p.learn.provider, "openai", "the learning decision is made with the request's configuration");
  await completeNonStreaming(memo, p, new AbortController().signal, queue);
  await queue.drain();
  assert.equal(providerResolutions() - before, 1);
  const stored = store.sqlite.prepare("SELECT count(*) FROM memories WHERE space_id = 'straight'").pluck().get();
  assert.equal(stored, 1, "the exchange is stored");
});

test("a provider failure before the first token is an HTTP error, not a broken stream", async () => {
  const body = chatCompletionRequest.parse({
    model: "memo",
    stream: true,
    messages: [{ role: "user", content: "[fixture:500]" }],
  });
  const p = await prepareCompletion(memo, post(body), body);
  assert.equal(await status(completeStreaming(memo, p, body, new AbortController().signal, queue)), 502);
});
