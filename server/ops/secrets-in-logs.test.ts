/**
 * Provider API keys never appear in logs (issue 8, item 6), nor in what the app shows or records about
 * provider failures. The keys are set the way users set them (MEMO_OPENAI_API_KEY, MEMO_ANTHROPIC_API_KEY)
 * and every failure path is driven against a TEST DOUBLE endpoint that is as unhelpful as possible: it
 * ECHOES the key it received in its error messages (some proxies and self-hosted servers do). Everything
 * written to the console and to stdout/stderr meanwhile, the chat events, the HTTP answers and the rows
 * recorded (messages, job_runs) are searched for the key.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { POST as completionsRoute } from "../../app/v1/chat/completions/route";
import { PersistQueue, setPersistQueue } from "../chat/exchange-queue";
import { complete } from "../chat/providers";
import { runTurn, type TurnEvent } from "../chat/turn";
import { runConsolidateJob } from "../jobs/jobs";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";

const OPENAI_KEY = "sk-memo-test-SECRET-7f3a9c1e5b";
const ANTHROPIC_KEY = "sk-ant-memo-test-SECRET-2d8e4b6a";
const ENV = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_ANTHROPIC_BASE_URL",
  "MEMO_ANTHROPIC_MODEL",
  "MEMO_CHAT_MODEL",
  "MEMO_PROVIDER_TIMEOUT_SEC",
];
const saved = new Map(ENV.map((k) => [k, process.env[k]]));

/** TEST DOUBLE: an OpenAI- and Anthropic-shaped endpoint that fails in every way it is asked to, echoing the key. */
type Mode = "401" | "500" | "mid-stream" | "hang";
let mode: Mode = "401";
const echo = http.createServer((req, res) => {
  const key = String(req.headers.authorization ?? req.headers["x-api-key"] ?? "");
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ object: "list", data: [{ id: "echo-model", object: "model" }] }));
    }
    if (mode === "hang") return;
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as { stream?: boolean };
    if (mode === "mid-stream" && body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "echo-model", choices: [{ index: 0, delta: { content: "Partial " }, finish_reason: null }] })}\n\n`,
      );
      return res.end(
        `data: ${JSON.stringify({ error: { message: `upstream crashed while serving key ${key}` } })}\n\n`,
      );
    }
    const status = mode === "500" ? 500 : 401;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        type: "error",
        error: {
          type: status === 401 ? "authentication_error" : "api_error",
          message: `Incorrect API key provided: ${key}. You passed ${key}.`,
        },
      }),
    );
  });
});

let url = "";
let store: TempStore;
let ctx: MemoContext;
const captured: string[] = [];
const restore: (() => void)[] = [];

before(async () => {
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, {
    MEMO_PROVIDER: "openai",
    MEMO_OPENAI_BASE_URL: `${url}/v1`,
    MEMO_OPENAI_API_KEY: OPENAI_KEY,
    MEMO_OPENAI_MODEL: "echo-model",
    MEMO_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    MEMO_ANTHROPIC_BASE_URL: url,
    MEMO_ANTHROPIC_MODEL: "echo-model",
    MEMO_PROVIDER_TIMEOUT_SEC: "1",
  });
  store = openTempStore();
  ctx = { db: store.sqlite, embedder: await inProcessEmbedder() };
  setAppContext(ctx);
  setPersistQueue(new PersistQueue(() => ctx, { baseDelayMs: 10, maxAttempts: 2 }));
  // Capture everything logged from here on (console and the raw streams).
  for (const m of ["log", "info", "warn", "error", "debug"] as const) {
    const orig = console[m];
    console[m] = (...args: unknown[]) => {
      captured.push(
        args
          .map((a) =>
            a instanceof Error ? `${a.stack} ${JSON.stringify(a)}` : typeof a === "string" ? a : JSON.stringify(a),
          )
          .join(" "),
      );
    };
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
  echo.closeAllConnections();
  await new Promise<void>((r) => echo.close(() => r()));
  for (const [k, v] of saved)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const shown: string[] = [];

async function chat(message: string, provider?: "openai" | "anthropic"): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  for await (const ev of runTurn({ memo: ctx }, { message, space: "keys", provider })) events.push(ev);
  shown.push(JSON.stringify(events));
  return events;
}

test("every provider failure path: the key is in no log line, event, answer or recorded row", async () => {
  const failures: string[] = [];
  for (const m of ["401", "500", "mid-stream", "hang"] as Mode[]) {
    mode = m;
    for (const provider of ["openai", "anthropic"] as const) {
      const events = await chat(`hello from ${provider} in mode ${m}`, provider);
      const err = events.find((e) => e.type === "error") as Extract<TurnEvent, { type: "error" }> | undefined;
      if (err) failures.push(`${provider}/${m}: ${err.kind}`);
    }
    // the OpenAI-compatible API, streamed and not
    for (const stream of [false, true]) {
      const res = await completionsRoute(
        new Request("http://127.0.0.1/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "memo", stream, messages: [{ role: "user", content: `api ${m} ${stream}` }] }),
        }),
      );
      shown.push(`${res.status} ${await res.text()}`);
    }
    // the merge call consolidation makes, and a recorded consolidation run
    await complete([{ role: "user", content: "merge these" }], { db: ctx.db }).catch((e: unknown) =>
      shown.push(String(e)),
    );
  }
  // a consolidation run whose merges fail is recorded with its error
  const run = await runConsolidateJob(ctx, {});
  shown.push(JSON.stringify(run));
  // unreachable endpoint
  process.env.MEMO_OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
  await chat("anyone there?");
  process.env.MEMO_OPENAI_BASE_URL = `${url}/v1`;

  assert.ok(failures.length >= 6, `the failures happened: ${failures.join(", ")}`);
  assert.ok(
    captured.some((l) => /Incorrect API key provided|upstream crashed|\[redacted\]/.test(l)) ||
      shown.some((l) => /\[redacted\]/.test(l)),
    "the echoed messages went through the app",
  );
  const rows = [
    ...(ctx.db.prepare("SELECT content FROM messages").all() as { content: string }[]).map((r) => r.content),
    ...(
      ctx.db.prepare("SELECT coalesce(error, '') || ' ' || coalesce(result, '') AS t FROM job_runs").all() as {
        t: string;
      }[]
    ).map((r) => r.t),
  ];
  for (const key of [OPENAI_KEY, ANTHROPIC_KEY]) {
    for (const [where, texts] of [
      ["logs", captured],
      ["events and answers", shown],
      ["recorded rows", rows],
    ] as const) {
      const hit = texts.find((t) => t.includes(key));
      assert.equal(hit, undefined, `the key appears in the ${where}: ${hit?.slice(0, 300)}`);
    }
  }
  assert.ok(
    shown.some((t) => t.includes("[redacted]")),
    "an echoed key is replaced, not dropped silently",
  );
});
