import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { EmbedderUnavailableError } from "./supervisor";
import { FakeEmbeddingServer } from "../test/fake-embedding-server";
import { EmbedderResponseError, HttpEmbedClient, toUnitVector } from "./client";

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

test("toUnitVector scales to unit length and keeps the direction", () => {
  const v = toUnitVector([3, 4], 2);
  assert.ok(v instanceof Float32Array);
  assert.ok(Math.abs(v[0]! - 0.6) < 1e-7 && Math.abs(v[1]! - 0.8) < 1e-7);
  assert.ok(Math.abs(norm(toUnitVector([1e-3, -2e-3, 5e-4], undefined)) - 1) < 1e-6);
  assert.equal(toUnitVector([7], undefined).length, 1);
});

test("toUnitVector rejects wrong dimension, non-finite values, non-arrays, empty and zero vectors", () => {
  const bad: [unknown, number | undefined, RegExp][] = [
    [[1, 2, 3], 4, /3 dimensions; the model has 4/],
    [[1, 2, 3, 4, 5], 4, /5 dimensions/],
    [[1, Number.NaN], 2, /non-finite/],
    [[1, Number.POSITIVE_INFINITY], 2, /non-finite/],
    [[1, null], 2, /non-finite/],
    [[1, "2"], 2, /non-finite/],
    [
      [
        [1, 2],
        [3, 4],
      ],
      2,
      /non-finite/,
    ], // per-token (unpooled) output
    ["1,2", 2, /not a number array/],
    [{ 0: 1, 1: 2, length: 2 }, 2, /not a number array/],
    [null, undefined, /not a number array/],
    [[], undefined, /not a number array/],
    [[0, 0, 0], 3, /zero vector/],
  ];
  for (const [raw, dim, msg] of bad) {
    assert.throws(
      () => toUnitVector(raw, dim),
      (e: unknown) => e instanceof EmbedderResponseError && msg.test(e.message),
      JSON.stringify(raw),
    );
  }
});

let server: FakeEmbeddingServer;
before(async () => {
  server = await FakeEmbeddingServer.start({ model: "/models/nomic-embed-text-v1.5.Q8_0.gguf", dim: 16 });
});
after(() => server.close());

function client(opts: { timeoutMs?: number; onTransportError?: () => void } = {}, url = () => server.url) {
  return new HttpEmbedClient(async () => url(), opts);
}

function reset(mode: FakeEmbeddingServer["mode"] = "ok") {
  server.mode = mode;
  server.requests.length = 0;
  server.shuffle = false;
  server.reportDim = true;
  server.dim = 16;
}

test("info: model id without path and .gguf, dimension from n_embd, asked once until reset()", async () => {
  reset();
  const c = client();
  assert.deepEqual(await c.info(), { model: "nomic-embed-text-v1.5.Q8_0", dim: 16 });
  await c.info();
  assert.equal(server.calls("/v1/models").length, 1);
  c.reset();
  await c.info();
  assert.equal(server.calls("/v1/models").length, 2);
});

test("info: without n_embd the dimension is probed with one embedding", async () => {
  reset();
  server.reportDim = false;
  server.dim = 10;
  assert.deepEqual(await client().info(), { model: "nomic-embed-text-v1.5.Q8_0", dim: 10 });
  assert.equal(server.calls("/v1/embeddings").length, 1);
});

test("embeddings: nomic prefixes, unit vectors, batches of 32, order restored by index", async () => {
  reset();
  server.shuffle = true;
  const c = client();
  const texts = Array.from({ length: 70 }, (_, i) => `text number ${i} word${i}`);
  const docs = await c.embedDocuments(texts);
  assert.equal(docs.length, 70);
  const posts = server.calls("/v1/embeddings");
  assert.deepEqual(
    posts.map((p) => (p.body as { input: string[] }).input.length),
    [32, 32, 6],
  );
  assert.equal((posts[0]!.body as { input: string[] }).input[0], "search_document: text number 0 word0");
  docs.forEach((v, i) => {
    assert.equal(v.length, 16);
    assert.ok(Math.abs(norm(v) - 1) < 1e-6);
    // Same direction as the server's vector for the same (prefixed) text, despite the reversed reply.
    const expected = toUnitVector(server.vectorFor(`search_document: ${texts[i]}`), 16);
    assert.ok(
      v.every((x, j) => Math.abs(x - expected[j]!) < 1e-6),
      `vector ${i} out of order`,
    );
  });
  await c.embedQueries(["where is my dog"]);
  assert.deepEqual((server.calls("/v1/embeddings").at(-1)!.body as { input: string[] }).input, [
    "search_query: where is my dog",
  ]);
});

test("embeddings for a model without prefixes send the text as is", async () => {
  const other = await FakeEmbeddingServer.start({ model: "universal-sentence-encoder-lite", dim: 8 });
  try {
    await new HttpEmbedClient(async () => other.url).embedQueries(["plain"]);
    assert.deepEqual((other.calls("/v1/embeddings")[0]!.body as { input: string[] }).input, ["plain"]);
  } finally {
    await other.close();
  }
});

test("bad answers are EmbedderResponseError; 503 and transport failures are EmbedderUnavailableError", async () => {
  const cases: [FakeEmbeddingServer["mode"], new (...a: never[]) => Error, RegExp, boolean][] = [
    ["garbage", EmbedderResponseError, /not JSON/, false],
    ["wrong-dim", EmbedderResponseError, /15 dimensions; the model has 16/, false],
    ["wrong-count", EmbedderResponseError, /returned 1 vectors for 2 inputs/, false],
    ["nan", EmbedderResponseError, /non-finite/, false],
    ["zero", EmbedderResponseError, /zero vector/, false],
    ["status-400", EmbedderResponseError, /answered 400: input is too long/, false],
    ["status-500", EmbedderResponseError, /answered 500: model crashed/, true],
    ["status-503", EmbedderUnavailableError, /answered 503: Loading model/, true],
  ];
  for (const [mode, cls, msg, transport] of cases) {
    reset(mode);
    let failures = 0;
    const c = client({ onTransportError: () => failures++ });
    await assert.rejects(
      c.embedDocuments(["one text", "two text"]),
      (e: unknown) => e instanceof cls && msg.test((e as Error).message),
      mode,
    );
    // a 503 is tried once more (after baseUrl(), i.e. after the supervisor's wait); a 500 is not
    assert.equal(failures, transport ? (mode === "status-503" ? 2 : 1) : 0, `${mode}: onTransportError calls`);
  }
});

test("a server that does not answer in time is unavailable", async () => {
  reset("hang");
  let failures = 0;
  const c = client({ timeoutMs: 150, onTransportError: () => failures++ });
  await assert.rejects(
    c.embedQueries(["anything"]),
    (e: unknown) => e instanceof EmbedderUnavailableError && /did not answer/.test((e as Error).message),
  );
  assert.equal(failures, 1);
});

test("a closed port is unavailable", async () => {
  const gone = await FakeEmbeddingServer.start();
  const url = gone.url;
  await gone.close();
  let failures = 0;
  const c = new HttpEmbedClient(async () => url, { onTransportError: () => failures++ });
  await assert.rejects(c.info(), EmbedderUnavailableError);
  assert.equal(failures, 2, "tried twice");
});

test("a request that finds the server gone is sent once more, to the URL baseUrl() gives then (a restarted server)", async () => {
  reset();
  const gone = await FakeEmbeddingServer.start();
  const deadUrl = gone.url;
  await gone.close();
  const urls = [deadUrl, server.url];
  let failures = 0;
  const c = new HttpEmbedClient(async () => urls.shift() ?? server.url, { onTransportError: () => failures++ });
  const [v] = await c.embedDocuments(["after a restart"]);
  assert.equal(v!.length, 16);
  assert.equal(failures, 1);
  assert.equal(urls.length, 0, "asked for the URL again before the second attempt");
});

test("a server listing no model, or answering 404, is a bad answer", async () => {
  reset();
  server.noModels = true;
  try {
    await assert.rejects(
      client().info(),
      (e: unknown) => e instanceof EmbedderResponseError && /lists no model/.test((e as Error).message),
    );
  } finally {
    server.noModels = false;
  }
  const wrongBase = client({}, () => `${server.url}/nothing-here`);
  await assert.rejects(
    wrongBase.info(),
    (e: unknown) => e instanceof EmbedderResponseError && /answered 404: not found/.test((e as Error).message),
  );
});

test("tokenize accepts plain ids and {id, piece} objects", async () => {
  reset();
  assert.deepEqual(await client().tokenize("abc"), [97, 98, 99]);
});
