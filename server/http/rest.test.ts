import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { StoreError } from "../core/errors";
import { EmbedderResponseError } from "../embedder/client";
import { EmbedderUnavailableError } from "../embedder/supervisor";
import { ServiceError } from "../core/errors";
import { batchInput, forgetInput, newMemoryInput, searchInput } from "../core/validators";
import { handle, MAX_JSON_BYTES, readBody } from "./rest";

const req = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/api/v1/memories", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
const utf8 = (s: string) => new TextEncoder().encode(s);

async function rejectsWith(p: Promise<unknown>, status: number, msg: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ServiceError, `expected ServiceError, got ${String(e)}`);
    assert.equal(e.status, status);
    assert.match(e.message, msg);
    return true;
  });
}

test("a valid body is parsed and validated (timestamps normalised to ISO)", async () => {
  const v = await readBody(
    req(JSON.stringify({ text: "Café ☕ 東京 🐶", space: "work_1", timestamp: "2024-06-15" })),
    newMemoryInput,
  );
  assert.deepEqual(v, { text: "Café ☕ 東京 🐶", space: "work_1", timestamp: "2024-06-15T00:00:00.000Z" });
});

test("invalid UTF-8 bytes are a 400, not silently replaced", async () => {
  const bytes = new Uint8Array([...utf8('{"text":"caf'), 0xe9, ...utf8('"}')]); // Latin-1 é
  await rejectsWith(readBody(req(bytes), newMemoryInput), 400, /not valid UTF-8/);
  await rejectsWith(readBody(req(new Uint8Array([0xff, 0xfe, 0x7b, 0x7d])), newMemoryInput), 400, /not valid UTF-8/);
  // A truncated multi-byte sequence at the end too.
  await rejectsWith(
    readBody(req(new Uint8Array([...utf8('{"text":"x"}'), 0xe2, 0x82])), newMemoryInput),
    400,
    /not valid UTF-8/,
  );
});

test("an empty body is a 400", async () => {
  await rejectsWith(readBody(req(null), newMemoryInput), 400, /empty/);
  await rejectsWith(readBody(req(""), newMemoryInput), 400, /empty/);
});

test("an oversized body is a 413, by declared length or by actual size", async () => {
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "x".repeat(200) })), newMemoryInput, 100),
    413,
    /larger than 100 bytes/,
  );
  const big = JSON.stringify({ text: "y".repeat(MAX_JSON_BYTES) });
  await rejectsWith(readBody(req(big), newMemoryInput), 413, new RegExp(`larger than ${MAX_JSON_BYTES} bytes`));
  // A lying Content-Length header does not get past the cap either (the bytes are counted).
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "z".repeat(500) }), { "content-length": "10" }), newMemoryInput, 100),
    413,
    /larger than/,
  );
});

test("a streamed body without Content-Length is cut off at the cap, not buffered whole", async () => {
  const CHUNK = 64 * 1024;
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= 64 * 1024 * 1024) return controller.close(); // 64 MiB if read to the end
      pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK).fill(0x20));
    },
    cancel() {
      cancelled = true;
    },
  });
  const r = new Request("http://127.0.0.1/api/v1/memories", {
    method: "POST",
    body: stream,
    duplex: "half",
  } as RequestInit);
  await rejectsWith(readBody(r, newMemoryInput, 256 * 1024), 413, /larger than 262144 bytes/);
  assert.ok(pulled <= 256 * 1024 + 4 * CHUNK, `read ${pulled} bytes for a 256 KiB cap`);
  assert.equal(cancelled, true);
  // Under the cap, a streamed body reads normally.
  const small = new Request("http://127.0.0.1/", {
    method: "POST",
    body: new ReadableStream({
      start: (c) => (c.enqueue(utf8('{"text":')), c.enqueue(utf8('"streamed"}')), c.close()),
    }),
    duplex: "half",
  } as RequestInit);
  assert.deepEqual(await readBody(small, newMemoryInput), { text: "streamed" });
});

test("invalid JSON is a 400", async () => {
  await rejectsWith(readBody(req("{text: 'x'}"), newMemoryInput), 400, /not valid JSON/);
  await rejectsWith(readBody(req('{"text":"x"'), newMemoryInput), 400, /not valid JSON/);
});

test("schema errors are a readable 400 naming the field", async () => {
  await rejectsWith(readBody(req(JSON.stringify({ text: 5 })), newMemoryInput), 400, /^text: .*expected string/i);
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "   " })), newMemoryInput),
    400,
    /^text: text must not be empty$/,
  );
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "ok", space: "no spaces!" })), newMemoryInput),
    400,
    /^space: space must be 1–64 letters, digits, '-' or '_'$/,
  );
  await rejectsWith(readBody(req(JSON.stringify({ text: "ok", extra: 1 })), newMemoryInput), 400, /extra/);
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "ok", timestamp: "yesterday-ish" })), newMemoryInput),
    400,
    /^timestamp: timestamp must be an ISO-8601/,
  );
  await rejectsWith(readBody(req(JSON.stringify({ text: "ok", importance: 6 })), newMemoryInput), 400, /^importance: /);
  await rejectsWith(readBody(req("[]"), newMemoryInput), 400, /^body: /);
  await rejectsWith(
    readBody(req(JSON.stringify({ items: [{ text: "a" }, { text: "" }] })), batchInput),
    400,
    /^items\.1\.text: text must not be empty$/,
  );
  await rejectsWith(readBody(req(JSON.stringify({ query: "q", k: 0 })), searchInput), 400, /^k: k must be at least 1$/);
  await rejectsWith(
    readBody(req(JSON.stringify({ query: "q", tzOffsetMinutes: 900 })), searchInput),
    400,
    /^tzOffsetMinutes: tzOffsetMinutes must be between -840 and 840$/,
  );
  assert.equal(
    (await readBody(req(JSON.stringify({ query: "q", tzOffsetMinutes: -300 })), searchInput)).tzOffsetMinutes,
    -300,
  );
  // `at`, the turn's date, is normalised to UTC like a memory's timestamp.
  assert.equal(
    (await readBody(req(JSON.stringify({ query: "q", at: "2024-05-10T14:00:00+02:00" })), searchInput)).at,
    "2024-05-10T12:00:00.000Z",
  );
  await rejectsWith(
    readBody(req(JSON.stringify({ query: "q", at: "last Tuesday" })), searchInput),
    400,
    /^at: at must be an ISO-8601 date or date-time$/,
  );
  await rejectsWith(
    readBody(req(JSON.stringify({ pattern: "a" })), forgetInput),
    400,
    /^pattern: pattern must have at least 2 characters$/,
  );
  // Several problems at once are all reported.
  await rejectsWith(readBody(req(JSON.stringify({ text: "", space: "" })), newMemoryInput), 400, /text: .*; space: /);
});

test("a NUL character in text is a 400", async () => {
  await rejectsWith(
    readBody(req(JSON.stringify({ text: "before\u0000after" })), newMemoryInput),
    400,
    /^text: text must not contain NUL characters$/,
  );
  await rejectsWith(readBody(req(JSON.stringify({ query: "a\u0000" })), searchInput), 400, /NUL/);
  await rejectsWith(readBody(req(JSON.stringify({ pattern: "ab\u0000" })), forgetInput), 400, /NUL/);
});

test("handle maps errors to statuses with readable JSON bodies", async () => {
  const body = async (r: Response) => ((await r.json()) as { error: { status: number; message: string } }).error;
  const ok = await handle(() => Response.json({ fine: true }));
  assert.equal(ok.status, 200);
  const cases: [() => never, number, RegExp][] = [
    [
      () => {
        throw new ServiceError(404, "space 'x' does not exist");
      },
      404,
      /space 'x' does not exist/,
    ],
    [
      () => {
        throw new EmbedderUnavailableError("embedding server is down");
      },
      503,
      /down/,
    ],
    [
      () => {
        throw new EmbedderResponseError("bad vector");
      },
      502,
      /bad answer: bad vector/,
    ],
    [
      () => {
        throw new StoreError("held by another model", "MODEL_MISMATCH");
      },
      409,
      /another model/,
    ],
    [
      () => {
        throw new StoreError("no such memory", "NOT_FOUND");
      },
      404,
      /no such memory/,
    ],
    [
      () => {
        throw new StoreError("bad", "INVALID");
      },
      400,
      /bad/,
    ],
    [
      () => {
        z.object({ n: z.number() }).parse({ n: "x" });
        throw new Error("unreachable");
      },
      400,
      /^n: /,
    ],
  ];
  for (const [fn, status, msg] of cases) {
    const r = await handle(fn);
    assert.equal(r.status, status);
    const e = await body(r);
    assert.equal(e.status, status);
    assert.match(e.message, msg);
  }
  // Anything unexpected is a 500 without internals, logged on the server.
  const logged: unknown[] = [];
  const orig = console.error;
  console.error = (...a: unknown[]) => void logged.push(a);
  try {
    const r = await handle(() => {
      throw new Error("secret internal detail");
    });
    assert.equal(r.status, 500);
    const e = await body(r);
    assert.doesNotMatch(e.message, /secret/);
    assert.equal(logged.length, 1);
  } finally {
    console.error = orig;
  }
});
