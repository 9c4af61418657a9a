/**
 * What an error shows (issue 58 item 6): what the person needs, nothing of a file's contents or of another
 * service's answer. The local model path pointed at any file, a provider's Test pointed at another service,
 * and a member's getting-started card.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { createCaller } from "../api/root";
import { LocalChatServer } from "../chat/local-server";
import { isConfigured, resetProviderSettings, resolveProviderConfig, saveProviderSettings } from "../chat/providers";
import { runAs } from "../core/acting";
import type { MemoContext } from "../core/context";
import { answeringServer } from "../test/answering-server";
import { openTempStore, type TempStore } from "../test/temp-store";
import { setupStatus } from "./setup-service";

const SECRET = "TOP-SECRET-LINE root:x:0:0";
const ENV = ["MEMO_PROVIDER", "MEMO_DATA_DIR", "MEMO_CHAT_MODEL", "MEMO_LLAMA_SERVER", "MEMO_OPENAI_API_KEY"];
const saved: Record<string, string | undefined> = {};
let store: TempStore;
let memo: MemoContext;

before(() => {
  for (const k of ENV) {
    saved[k] = process.env[k];
    delete process.env[k];
  }
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  memo = { db: store.sqlite, embedder: undefined as never };
});
after(() => {
  resetProviderSettings(store.sqlite);
  store.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

const secretBits = (s: string | null | undefined) =>
  [SECRET, "TOP-", "TOP-SECRET", "root:x", "<html", "internal"].filter((b) => (s ?? "").includes(b));

test("the local model path pointed at another file: 'not a GGUF model', and nothing of the file", async () => {
  const file = path.join(store.dir, "passwd");
  fs.writeFileSync(file, `${SECRET}\n`);
  saveProviderSettings(store.sqlite, { active: "llama", llama: { modelPath: file } });
  const c = isConfigured(resolveProviderConfig(store.sqlite), "llama");
  assert.equal(c.ok, false);
  assert.match(c.missing ?? "", /is not a GGUF model/);
  assert.deepEqual(secretBits(c.missing), []);
  // The supervised server refuses to hand it to llama.cpp (whose loader quotes the bytes it read).
  const server = new LocalChatServer({ modelPath: file, preferNode: true, maxStartFailures: 1, log: () => {} });
  const err = await server.ensureHealthy(20_000).then(
    () => null,
    (e: Error) => e.message,
  );
  await server.stop();
  assert.match(err ?? "", /is not a GGUF model/);
  assert.deepEqual(secretBits(err), []);
  assert.deepEqual(secretBits(server.status().lastError), []);
});

test("a model server that quotes the file on stderr: people see how it ended, not what it wrote", async () => {
  // A GGUF signature, then someone else's bytes; the stand-in server (a test double written here) quotes them.
  const file = path.join(store.dir, "fake.gguf");
  fs.writeFileSync(file, `GGUF${SECRET}\n`);
  const script = path.join(store.dir, "quoting-llama-server.sh");
  fs.writeFileSync(
    script,
    '#!/bin/sh\n# TEST DOUBLE: a llama-server that fails to load and quotes the model file, as llama.cpp does.\nwhile [ "$1" != "-m" ]; do shift; done\necho "gguf_init: invalid header: $(head -c 40 "$2")" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  process.env.MEMO_LLAMA_SERVER = script;
  try {
    const server = new LocalChatServer({ modelPath: file, maxStartFailures: 1, log: () => {} });
    const err = await server.ensureHealthy(20_000).then(
      () => null,
      (e: Error) => e.message,
    );
    await server.stop();
    assert.match(err ?? "", /exited \(code 1\) \(the server log says why\)/);
    assert.deepEqual(secretBits(err), []);
    assert.deepEqual(secretBits(server.status().lastError), []);
  } finally {
    delete process.env.MEMO_LLAMA_SERVER;
  }
});

test("a provider's Test against another service says what went wrong, never what it answered", async () => {
  const other = await answeringServer({
    status: 500,
    type: "text/html",
    body: `<html><body>internal admin page ${SECRET}</body></html>`,
  });
  const caller = createCaller({ memo, headers: new Headers() });
  const runTest = () =>
    caller.providers.test({ provider: "openai", settings: { openai: { baseUrl: `${other.url}/v1`, model: "m" } } });
  try {
    const html500 = await runTest();
    assert.equal(html500.ok, false);
    assert.match(html500.error ?? "", /HTTP 500: no error message in a provider's format/);
    assert.deepEqual(secretBits(html500.error), []);

    // A JSON answer without a provider's error shape: not echoed either.
    other.set({ status: 400, type: "application/json", body: JSON.stringify({ detail: SECRET, internal: true }) });
    const json400 = await runTest();
    assert.equal(json400.ok, false);
    assert.deepEqual(secretBits(json400.error), []);

    // A 200 that is not a chat completion (a web page): not "ok", and not quoted.
    other.set({ status: 200, type: "text/html", body: `<html>${SECRET}</html>` });
    const page = await runTest();
    assert.equal(page.ok, false);
    assert.match(page.error ?? "", /answered, but not with a chat completion/);
    assert.deepEqual(secretBits(page.error), []);
    assert.deepEqual(secretBits(page.reply), []);

    // A provider's own error message is still what the person needs to see.
    other.set({
      status: 401,
      type: "application/json",
      body: JSON.stringify({ error: { message: "Incorrect API key provided." } }),
    });
    const auth = await runTest();
    assert.match(auth.error ?? "", /rejected the API key \(HTTP 401: Incorrect API key provided\.\)/);
  } finally {
    await other.close();
  }
});

test("a member's getting-started card holds no server path; an admin's says where the data is", () => {
  resetProviderSettings(store.sqlite); // (the model path the tests above saved is an admin's setting)
  const member = runAs({ personId: "pmember", admin: false }, () => setupStatus(memo));
  assert.equal(member.data, null);
  assert.ok(!JSON.stringify(member).includes(store.dir), "no path of the data folder in what a member receives");
  const admin = runAs({ personId: "owner", admin: true }, () => setupStatus(memo));
  assert.equal(admin.data?.dir, store.dir);
  const card = fs.readFileSync(path.resolve(import.meta.dirname, "../../app/_setup/first-run-checklist.tsx"), "utf8");
  // `npm run backup` is shown only under s.data (an admin's card); a member's says how to keep their own copy.
  const adminPart = card.indexOf("{s.data ? (");
  const memberPart = card.slice(card.indexOf(") : (", adminPart), card.indexOf("</ul>", adminPart));
  assert.ok(adminPart > 0 && card.indexOf("npm run backup") > adminPart);
  assert.ok(!memberPart.includes("npm run backup"));
  assert.match(memberPart, /export it on/);
});
