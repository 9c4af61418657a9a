/**
 * The real local chat path, end to end: a tiny `llama` chat GGUF written at test time (ChatML template,
 * random weights: its replies are gibberish) served by server/chat/llama-chat-main.ts through
 * node-llama-cpp's prebuilt CPU binary, supervised by LocalChatServer, spoken to by the "llama" provider
 * (the official openai client) and by a whole chat turn. The protocol is real; the content is not.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { factsRequest } from "../memory/facts/extract";
import { writeTinyLlamaGguf } from "../test/gguf/write-tiny-llama";
import { waitUntil } from "../test/wait-until";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { currentLocalChatServer, getLocalChatServer, stopLocalChatServer } from "./local-server";
import { PersistQueue } from "./exchange-queue";
import { FactLearner } from "./fact-learner";
import { attemptsOf } from "../memory/facts/queue";
import { beginRequest } from "../ops/inflight";
import { getProvider, saveProviderSettings } from "./providers";
import { readSseJson } from "./sse";
import { runTurn, type TurnEvent } from "./turn";

let dir: string;
let modelPath: string;
let store: TempStore;
const savedThreads = process.env.MEMO_CHAT_THREADS;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-llama-chat-"));
  modelPath = path.join(dir, "tiny-llama-chat-test.gguf");
  writeTinyLlamaGguf(modelPath, { seed: 5 });
  process.env.MEMO_CHAT_THREADS = "1"; // a tiny model on a busy 2-core machine: one thread is fastest
  store = openTempStore();
  // Greedy decoding (temperature 0): the random model's output is then fixed, so it cannot stop early by
  // sampling its end-of-turn token by chance.
  saveProviderSettings(store.sqlite, {
    active: "llama",
    llama: { modelPath },
    maxTokens: 12,
    timeoutSec: 120,
    temperature: 0,
  });
});

after(async () => {
  await stopLocalChatServer();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (savedThreads === undefined) delete process.env.MEMO_CHAT_THREADS;
  else process.env.MEMO_CHAT_THREADS = savedThreads;
});

test("the supervised server loads the tiny GGUF and answers the OpenAI API: models, streamed and whole completions", async () => {
  const sup = getLocalChatServer(modelPath);
  const base = await sup.ensureHealthy(120_000);
  const st = sup.status();
  assert.equal(st.state, "ready");
  assert.match(st.engine!, /node-llama-cpp .*ChatML template/);

  const models = (await (await fetch(`${base}/v1/models`)).json()) as { data: { id: string }[] };
  assert.deepEqual(
    models.data.map((m) => m.id),
    ["tiny-llama-chat-test"],
  );

  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "x",
      stream: true,
      max_tokens: 8,
      temperature: 0,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello memo" },
      ],
    }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /text\/event-stream/);
  type Chunk = {
    object: string;
    choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
    usage?: { completion_tokens: number };
  };
  const chunks: Chunk[] = [];
  for await (const c of readSseJson<Chunk>(res.body!)) chunks.push(c);
  assert.equal(chunks[0]!.choices[0]!.delta.role, "assistant");
  const content = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).join("");
  assert.ok(content.length > 0, "some (gibberish) text was generated");
  const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean);
  assert.deepEqual(finish, ["length"], "stopped by max_tokens");
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk"));
  assert.ok(chunks.at(-1)!.usage!.completion_tokens > 0 && chunks.at(-1)!.usage!.completion_tokens <= 8);

  const whole = (await (
    await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], max_tokens: 4, temperature: 0 }),
    })
  ).json()) as { object: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
  assert.equal(whole.object, "chat.completion");
  assert.equal(whole.choices[0]!.message.role, "assistant");
  assert.equal(whole.choices[0]!.finish_reason, "length");

  const bad = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [] }),
  });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: { message: string } }).error.message, /messages/);
});

test("a json_schema response_format becomes a grammar: the random model can only write JSON of the memo_facts schema", async () => {
  const base = await getLocalChatServer(modelPath).ensureHealthy(120_000);
  const req = factsRequest(
    [{ text: "User: I live in Lisbon.\nAssistant: Nice.", at: new Date().toISOString() }],
    [{ id: "f-1", text: "The user lives in Berlin." }],
  );
  const ask = async (extra: Record<string, unknown>) =>
    (
      (await (
        await fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: req.messages, max_tokens: 40, temperature: 0, ...extra }),
        })
      ).json()) as { choices: { message: { content: string } }[] }
    ).choices[0]!.message.content;
  const constrained = await ask({ response_format: { type: "json_schema", json_schema: req.jsonSchema } });
  // Cut by max_tokens it may be unfinished, but it is the schema's JSON from its first character.
  assert.match(constrained, /^\{\s*"facts"\s*:\s*\[/, constrained);
  const free = await ask({});
  assert.doesNotMatch(free, /^\{\s*"facts"/, "without the format the same model writes gibberish");
  const bad = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: req.messages, response_format: { type: "json_schema" } }),
  });
  assert.equal(bad.status, 400);
});

test("the llama provider streams a reply through the official openai client", async () => {
  const provider = getProvider(store.sqlite);
  assert.equal(provider.id, "llama");
  assert.equal(provider.model, "tiny-llama-chat-test");
  const parts: string[] = [];
  const gen = provider.stream([{ role: "user", content: "what is the memo?" }]);
  let r = await gen.next();
  for (; !r.done; r = await gen.next()) parts.push(r.value);
  assert.ok(parts.length > 0);
  assert.equal(r.value.finishReason, "length");
  assert.equal(r.value.text, parts.join(""));
  const c = await provider.complete([{ role: "user", content: "hi" }], { maxTokens: 3 });
  assert.equal(c.finishReason, "length");
});

test("a whole chat turn answered by the local model, then recovery after the server is killed", async () => {
  const memo = { db: store.sqlite, embedder: await inProcessEmbedder() };
  const queue = new PersistQueue(() => memo, { log: () => undefined });
  const events: TurnEvent[] = [];
  for await (const ev of runTurn({ memo, persist: queue }, { message: "My cat is called Miso." })) events.push(ev);
  const done = events.find((e) => e.type === "done") as Extract<TurnEvent, { type: "done" }>;
  assert.ok(done, JSON.stringify(events.find((e) => e.type === "error")));
  assert.ok(done.message.content.length > 0);
  assert.ok(done.timings.providerFirstTokenMs !== null);
  await queue.drain();
  assert.equal(
    (store.sqlite.prepare("SELECT count(*) AS n FROM memories WHERE kind = 'chat'").get() as { n: number }).n,
    1,
  );

  const sup = currentLocalChatServer()!;
  const pid = sup.pid!;
  process.kill(pid, "SIGKILL");
  const t0 = Date.now();
  while (sup.pid === pid || sup.status().state !== "ready") {
    if (Date.now() - t0 > 120_000) throw new Error(`not restarted: ${JSON.stringify(sup.status())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(sup.status().restarts >= 1);
  const again = await getProvider(store.sqlite).complete([{ role: "user", content: "still there?" }], { maxTokens: 3 });
  assert.ok(again.text.length >= 0 && again.finishReason === "length");
});

test("learning facts with the local model: the schema as a grammar; a reply that begins takes the model back", async () => {
  const memo = { db: store.sqlite, embedder: await inProcessEmbedder() };
  const queue = new PersistQueue(() => memo, { log: () => undefined });
  await queue.enqueue({
    space: "personal",
    conversationId: null,
    user: "My sister Lena lives in Porto.",
    assistant: "Nice.",
    timestamp: new Date().toISOString(),
    source: "test",
    learn: { provider: "llama" },
  });
  const job = () =>
    store.sqlite.prepare("SELECT id, status, attempts FROM fact_jobs ORDER BY id DESC").get() as {
      id: number;
      status: string;
      attempts: number;
    };
  assert.equal(job().status, "queued", "learning is on by default for the local model");
  // A long answer allowed: the call is still generating when a reply begins.
  const slow = new FactLearner(() => memo, { log: () => undefined, quietMs: 0, maxTokensPerExchange: 4000 });
  slow.wake();
  await waitUntil(() => slow.status(), { what: "the model call to start", done: (st) => st.calls >= 1 });
  const reply = beginRequest();
  await waitUntil(job, { what: "the job to be given back", done: (j) => j.status === "queued", timeoutMs: 30_000 });
  assert.deepEqual([job().status, job().attempts], ["queued", 0], "given back untried: the reply has the model");
  assert.deepEqual(attemptsOf(store.sqlite, job().id), []);
  await slow.stop();
  reply.end();
  // A short answer: the grammar's JSON, complete or cut at the token limit — checked and recorded either way.
  const quick = new FactLearner(() => memo, { log: () => undefined, quietMs: 0, maxTokensPerExchange: 24 });
  quick.wake();
  await quick.idle();
  const [attempt] = attemptsOf(store.sqlite, job().id);
  assert.equal(attempt!.providerKey, "llama@local");
  assert.ok(["ok", "bad_output"].includes(attempt!.outcome), attempt!.detail ?? "");
  if (attempt!.outcome === "bad_output") assert.match(attempt!.detail!, /^not_json: /, "a cut answer, not gibberish");
  assert.equal((attempt!.sent as { local: boolean }).local, true);
  await quick.stop();
});
