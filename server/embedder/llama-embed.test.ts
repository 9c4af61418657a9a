/**
 * The real llama.cpp path, end to end: a tiny nomic-bert GGUF written at test time (never downloaded,
 * never committed) served by server/embedder/main.ts through node-llama-cpp's prebuilt CPU binary, under
 * EmbedderSupervisor. Checks the HTTP API, that inputs are evaluated in one batch, and crash recovery.
 *
 *   node --import tsx --test server/embedder/llama-embed.test.ts
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { TINY_NOMIC_FILE, writeTinyNomicGguf, type NomicGgufInfo } from "../test/gguf/write-gguf";
import { EmbedderSupervisor } from "./supervisor";

let dir: string;
let model: NomicGgufInfo;
let sup: EmbedderSupervisor | undefined;
let firstPid: number;
const reference = new Map<string, number[]>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function post<T>(base: string, pathname: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(base + pathname, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as T };
}

type EmbeddingsBody = {
  model: string;
  data: { index: number; embedding: number[] }[];
  usage: { prompt_tokens: number };
  error?: { message: string };
};

async function embed(base: string, input: string | string[]): Promise<number[][]> {
  const r = await post<EmbeddingsBody>(base, "/v1/embeddings", { input });
  assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
  return r.body.data.sort((a, b) => a.index - b.index).map((d) => d.embedding);
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));
const cosine = (a: number[], b: number[]) => dot(a, b) / (norm(a) * norm(b));
const maxAbsDiff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

before(() => {
  // hermetic: a fixed port or a smaller context from the environment would change what is tested
  delete process.env.MEMO_EMBED_PORT;
  delete process.env.MEMO_EMBED_CTX;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-llama-embed-"));
  model = writeTinyNomicGguf(path.join(dir, TINY_NOMIC_FILE), { seed: 7 });
});

after(async () => {
  await sup?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the supervisor starts main.ts on the tiny GGUF via node-llama-cpp and reports it", async () => {
  sup = new EmbedderSupervisor({
    choice: { kind: "gguf", path: model.file, reason: "test" },
    preferNode: true,
    healthIntervalMs: 300,
    healthTimeoutMs: 2000,
    backoffMinMs: 100,
    log: () => undefined,
  });
  sup.start();
  const base = await sup.ensureHealthy(30_000);
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  const st = sup.status();
  assert.equal(st.status, "ready");
  assert.equal(st.model, "nomic-embed-text-v1.5-test-tiny");
  assert.equal(st.dim, model.hidden);
  assert.equal(st.fallback, false);
  assert.match(st.engine ?? "", /node-llama-cpp/);
  assert.ok(st.pid && alive(st.pid));
  firstPid = st.pid;

  const res = await fetch(`${base}/v1/models`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { data: { id: string; meta: { n_embd: number; engine: string } }[] };
  assert.equal(body.data[0]!.id, "nomic-embed-text-v1.5-test-tiny");
  assert.equal(body.data[0]!.meta.n_embd, 64);
  // every input is evaluated in one batch: batch = context
  assert.match(body.data[0]!.meta.engine, /ctx 2048, batch 2048/);
  assert.equal((await fetch(`${base}/health`)).status, 200);
});

test("/v1/embeddings: model-sized, unit-length, deterministic, text-dependent vectors", async () => {
  const base = await sup!.ensureHealthy(5_000);
  const q = "search_query: when is my dentist appointment?";
  const d = "search_document: I moved the dentist appointment to friday morning.";
  const r = await post<EmbeddingsBody>(base, "/v1/embeddings", { input: [q, d, q, ""] });
  assert.equal(r.status, 200);
  assert.equal(r.body.model, "nomic-embed-text-v1.5-test-tiny");
  assert.ok(r.body.usage.prompt_tokens > 10);
  const [vq, vd, vq2, vEmpty] = r.body.data.sort((a, b) => a.index - b.index).map((x) => x.embedding);
  for (const v of [vq!, vd!, vEmpty!]) {
    assert.equal(v.length, 64);
    assert.ok(v.every(Number.isFinite));
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `unit length, got ${norm(v)}`);
  }
  assert.deepEqual(vq2, vq, "the same text in one request gives the same vector");
  assert.deepEqual((await embed(base, q))[0], vq, "…and in a separate request");
  assert.ok(cosine(vq!, vd!) < 0.99, `different texts must differ (cosine ${cosine(vq!, vd!)})`);
  assert.ok(cosine(vq!, vEmpty!) < 0.99);
  reference.set(q, vq!);
  reference.set(d, vd!);
});

test("/tokenize uses the GGUF's WordPiece vocabulary", async () => {
  const base = await sup!.ensureHealthy(5_000);
  const r = await post<{ tokens: number[] }>(base, "/tokenize", { content: "search_query: Memos about Coffee" });
  assert.equal(r.status, 200);
  const id = (t: string) => {
    const i = model.vocab.indexOf(t);
    assert.ok(i >= 0, `${t} is in the vocabulary`);
    return i;
  };
  // lowercased, split at punctuation, "memos" = "memo" + "##s"
  assert.deepEqual(r.body.tokens, [
    id("search"),
    id("_"),
    id("query"),
    id(":"),
    id("memo"),
    id("##s"),
    id("about"),
    id("coffee"),
  ]);
  const bad = await post<{ error: { message: string } }>(base, "/tokenize", { text: "x" });
  assert.equal(bad.status, 400);
});

test("long inputs are embedded in a single batch, too-long inputs are refused", async () => {
  const base = await sup!.ensureHealthy(5_000);
  const rep = (w: string, n: number) => Array(n).fill(w).join(" ");
  // Same length (1400 tokens), same last 800 tokens. Evaluated in batches of 512 (node-llama-cpp's default)
  // only the last batch would survive mean pooling and both would give the same vector.
  const tail = rep("memo note", 400);
  const [a, b] = await embed(base, [`${rep("coffee", 600)} ${tail}`, `${rep("phone", 600)} ${tail}`]);
  assert.ok(cosine(a!, b!) < 0.98, `the head of a long input must count (cosine ${cosine(a!, b!)})`);

  const tooLong = await post<EmbeddingsBody>(base, "/v1/embeddings", { input: rep("memo", 2100) });
  assert.equal(tooLong.status, 400);
  assert.match(tooLong.body.error!.message, /2102 tokens/);
  const bad = await post<EmbeddingsBody>(base, "/v1/embeddings", { input: [] });
  assert.equal(bad.status, 400);
});

test("SIGKILL of the server: the supervisor restarts it on a new pid with the same vectors", async () => {
  const s = sup!;
  const before = s.status().restarts;
  assert.equal(s.pid, firstPid);
  const killedAt = Date.now();
  process.kill(firstPid, "SIGKILL");
  await waitFor(() => s.status().restarts > before, 5_000, "a restart");
  const base = await s.ensureHealthy(20_000);
  const recoveredMs = Date.now() - killedAt;
  const st = s.status();
  assert.equal(st.status, "ready");
  assert.ok(st.restarts >= 1);
  assert.ok(st.pid && st.pid !== firstPid, "a new process");
  assert.ok(alive(st.pid));
  assert.equal(alive(firstPid), false, "the killed process is gone");
  assert.match(st.lastError ?? "", /SIGKILL/);
  assert.ok(recoveredMs < 15_000, `recovered in ${recoveredMs} ms`);
  for (const [text, v] of reference) {
    const [again] = await embed(base, text);
    assert.ok(maxAbsDiff(again!, v) < 1e-5, "the restarted server gives the same vector");
  }
});

test("stop() ends the child process", async () => {
  const s = sup!;
  const pid = s.pid;
  assert.ok(pid);
  await s.stop();
  assert.equal(s.pid, null);
  assert.equal(s.status().status, "stopped");
  assert.equal(alive(pid), false);
  // and nothing restarts it behind our back
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(s.pid, null);
  assert.equal(s.status().status, "stopped");
  sup = undefined;
});
