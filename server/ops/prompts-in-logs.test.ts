/**
 * Prompts and memory contents never reach the log by default; MEMO_LOG_PROMPTS=1 logs every prompt sent
 * to a provider and warns, once, that the log now holds private text. Everything written to the console
 * and to stdout/stderr is captured while real turns run through the chat route and the OpenAI-compatible
 * route (the OpenAI-compatible test double as provider): replies with recalled memories, a provider that
 * fails, a streamed reply, exchanges persisted by the app's queue, and start-up recovery.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { POST as chatRoute } from "../../app/api/chat/route";
import { POST as completionsRoute } from "../../app/v1/chat/completions/route";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { PersistQueue, persistQueue, recoverUnpersisted, setPersistQueue } from "../chat/exchange-queue";
import { PROMPT_LOG_WARNING } from "../chat/prompt-log";
import { saveProviderSettings } from "../chat/providers";
import { addMemories } from "../memory/store/add";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";

const MEMORY = "Private fact: my passport number is XK-5539-ZEBRA and it is kept in the oak desk.";
const ENV = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_LOG_PROMPTS",
  "MEMO_TREAT_AS_REMOTE",
];
const saved = new Map(ENV.map((k) => [k, process.env[k]]));
let fixture: OpenAIFixtureServer;
let store: TempStore;
let ctx: MemoContext;
const captured: string[] = [];
const restore: (() => void)[] = [];

before(async () => {
  for (const k of ENV) delete process.env[k];
  fixture = await OpenAIFixtureServer.start();
  store = openTempStore();
  ctx = { db: store.sqlite, embedder: await inProcessEmbedder() };
  setAppContext(ctx);
  setPersistQueue(new PersistQueue(() => ctx, { baseDelayMs: 10, maxAttempts: 2 })); // the default logger: the console
  saveProviderSettings(ctx.db, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
  await addMemories(ctx, [{ text: MEMORY, space: "personal", pinned: true }]);
  for (const m of ["log", "info", "warn", "error", "debug"] as const) {
    const orig = console[m];
    console[m] = (...args: unknown[]) =>
      void captured.push(
        args.map((a) => (a instanceof Error ? `${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "),
      );
    restore.push(() => (console[m] = orig));
  }
  for (const s of [process.stdout, process.stderr]) {
    const orig = s.write.bind(s);
    s.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return (orig as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof s.write;
    restore.push(() => (s.write = orig));
  }
});
after(async () => {
  restore.forEach((r) => r());
  setAppContext(undefined);
  setPersistQueue(undefined);
  store.close();
  await fixture.close();
  for (const [k, v] of saved)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const post = (path: string, body: unknown) =>
  new Request(`http://127.0.0.1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** One of each: chat turns (recalled memory, provider failure), the OpenAI-compatible API streamed and not, persistence, recovery. */
async function traffic(tag: string): Promise<string> {
  const question = `Where is my passport kept, question ${tag}?`;
  const page = await (await chatRoute(post("/api/chat", { message: question }))).text();
  assert.match(page, /Memory block received/, "the memory did go to the (loopback) provider");
  await (await chatRoute(post("/api/chat", { message: `[fixture:500] passport ${tag}` }))).text();
  for (const stream of [false, true]) {
    const res = await completionsRoute(
      post("/v1/chat/completions", {
        model: "memo",
        stream,
        messages: [{ role: "user", content: `${question} via api ${stream}` }],
      }),
    );
    assert.equal(res.status, 200);
    await res.text();
  }
  await persistQueue().drain();
  recoverUnpersisted(ctx, persistQueue());
  await persistQueue().drain();
  return question;
}

test("by default no prompt, message, reply or memory content is logged", async () => {
  const question = await traffic("one");
  const log = captured.join("\n");
  for (const secret of ["XK-5539-ZEBRA", "oak desk", question, "Where is my passport", "Fixture reply to"]) {
    assert.ok(!log.includes(secret), `the log holds "${secret}":\n${log.slice(0, 2000)}`);
  }
  assert.ok(!log.includes("MEMO_LOG_PROMPTS"));
});

test("MEMO_LOG_PROMPTS=1 logs each prompt with its memory block, after one warning", async () => {
  captured.length = 0;
  process.env.MEMO_LOG_PROMPTS = "1";
  try {
    const question = await traffic("two");
    const log = captured.join("\n");
    assert.ok(log.includes(question) && log.includes("XK-5539-ZEBRA"), "the prompts are in the log");
    assert.match(log, /\[prompt\] chat turn in conversation [0-9a-f-]{36} → OpenAI-compatible \(127\.0\.0\.1:\d+\)/);
    assert.match(log, /\[prompt\] \/v1\/chat\/completions/);
    assert.equal(log.split(PROMPT_LOG_WARNING).length - 1, 1, "warned once");
    assert.ok(log.indexOf(PROMPT_LOG_WARNING) < log.indexOf("[prompt]"), "the warning comes first");
  } finally {
    delete process.env.MEMO_LOG_PROMPTS;
  }
});
