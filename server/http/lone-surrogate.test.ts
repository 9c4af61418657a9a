/**
 * Issue 33 item 11: JSON can spell text that is not valid Unicode — a lone surrogate, "\ud800" — which
 * decodes to a JS string that SQLite would store as U+FFFD. Every JSON body check refuses it with a 400,
 * like invalid UTF-8 bytes; a surrogate pair spelt with escapes is ordinary text and passes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceError } from "../core/errors";
import { newMemoryInput } from "../core/validators";
import { badTextMessage, checkJsonBody, findBadText } from "./guard";
import { OpenAIHttpError, readCompletionRequest } from "./openai-compat-request";
import { readBody } from "./rest";

// The bytes as a client sends them: the backslash escape itself, not a UTF-16 code unit.
const LONE_HIGH = '{"text":"before \\ud800 after"}';
const LONE_LOW = '{"text":"\\udc00"}';
const PAIR = '{"text":"dog \\ud83d\\udc36"}';

const post = (body: string) =>
  new Request("http://127.0.0.1/api/v1/memories", {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });

test("findBadText: a lone surrogate in a value or a key, wherever it is; a pair is fine", () => {
  assert.deepEqual(findBadText(JSON.parse(LONE_HIGH)), { path: ["text"], problem: "lone-surrogate" });
  assert.deepEqual(findBadText({ items: [{ text: "ok" }, { text: "\udfff" }] }), {
    path: ["items", 1, "text"],
    problem: "lone-surrogate",
  });
  assert.deepEqual(findBadText({ "k\ud800": 1 }), { path: ["k\ud800"], problem: "lone-surrogate" });
  assert.equal(findBadText(JSON.parse(PAIR)), null);
  assert.equal(findBadText("Café ☕ 東京 🐶"), null);
  assert.match(
    badTextMessage({ path: ["text"], problem: "lone-surrogate" }),
    /^text: text is not valid Unicode text \(it holds a lone surrogate, e\.g\. an escaped \\ud800\)$/,
  );
});

test("REST bodies (readBody): a lone surrogate is a 400, like invalid UTF-8 bytes", async () => {
  for (const body of [LONE_HIGH, LONE_LOW]) {
    await assert.rejects(readBody(post(body), newMemoryInput), (e: unknown) => {
      assert.ok(e instanceof ServiceError);
      assert.equal(e.status, 400);
      assert.match(e.message, /^text: text is not valid Unicode text/);
      return true;
    });
  }
  assert.equal((await readBody(post(PAIR), newMemoryInput)).text, "dog 🐶");
});

test("tRPC and MCP bodies (checkJsonBody): a lone surrogate is a 400", async () => {
  const r = await checkJsonBody(post('{"0":{"json":{"text":"x\\ud800"}}}'), 1 << 20);
  assert.deepEqual(r, {
    status: 400,
    message: "0.json.text: text is not valid Unicode text (it holds a lone surrogate, e.g. an escaped \\ud800)",
  });
  assert.deepEqual(await checkJsonBody(post(PAIR), 1 << 20), { text: PAIR });
});

test("OpenAI-compatible bodies: a lone surrogate is a 400 in OpenAI's error shape", async () => {
  const body = '{"model":"memo","messages":[{"role":"user","content":"hi \\ud800"}]}';
  await assert.rejects(readCompletionRequest(post(body)), (e: unknown) => {
    assert.ok(e instanceof OpenAIHttpError);
    assert.equal(e.status, 400);
    assert.match(e.message, /messages\.0\.content: content is not valid Unicode text/);
    return true;
  });
});
