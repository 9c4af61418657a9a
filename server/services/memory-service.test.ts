/**
 * The memory service on a real store file with the real bundled embedding model (in process), and against
 * a misbehaving embedding server over HTTP (test double) for the error paths.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { EmbedderUnavailableError } from "../embedder/supervisor";
import { handle } from "../http/rest";
import { EmbedderResponseError, HttpEmbedClient } from "../embedder/client";
import { checkInvariant, getMemory, spaceExists, vectorTableDim } from "../memory/store";
import { StoreError } from "../core/errors";
import { FakeEmbeddingServer, type FakeEmbedMode } from "../test/fake-embedding-server";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { ftsTable, openTempStore, rawCounts, type TempStore } from "../test/temp-store";
import { reindexDone } from "../memory/index/reindex-job";
import { listRuns } from "../core/job-runner";
import { deleteMemory, health } from "./memory-service";
import { FORGET_UNDO_DAYS, forget, restore } from "../memory/lifecycle/forget";
import { search } from "../memory/retrieval/search";
import { addMemories, remember } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { asServiceError, ServiceError } from "../core/errors";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

function ctx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

const isServiceError = (status: number, msg?: RegExp) => (e: unknown) =>
  e instanceof ServiceError && e.status === status && (!msg || msg.test(e.message));

test("the first add binds the store to the embedder's model and keeps the three tables in step", async () => {
  const c = ctx();
  const [[a], [b]] = await addMemories(c, [
    { text: "I like green tea" },
    { text: "The car needs new tyres", timestamp: "2024-06-15T00:00:00.000Z", kind: "import" },
  ]);
  assert.equal(vectorTableDim(c.db), 512);
  assert.deepEqual(checkInvariant(c.db), []);
  assert.deepEqual(rawCounts(c.db), { memories: 2, vec: 2, fts: 2, trash: 0 });
  assert.equal(getMemory(c.db, a!)!.spaceId, "personal");
  assert.equal(getMemory(c.db, a!)!.embeddingModel, "universal-sentence-encoder-lite");
  assert.deepEqual([getMemory(c.db, b!)!.timestamp, getMemory(c.db, b!)!.kind], ["2024-06-15T00:00:00.000Z", "import"]);
  const h = health(c);
  assert.equal(h.ok, true);
  assert.deepEqual(h.store, {
    memories: 2,
    vectors: 2,
    fts: 2,
    consistent: true,
    model: "universal-sentence-encoder-lite",
    dim: 512,
    problem: null,
  });
});

test("spaces: same content in two spaces, each search sees only its own; a new valid space is created", async () => {
  const c = ctx();
  const [[home]] = await addMemories(c, [{ text: "Dinner with Sam on Friday at the Thai place" }]);
  assert.equal(spaceExists(c.db, "work-2024"), false);
  const [[work]] = await addMemories(c, [{ text: "Dinner with Sam on Friday at the Thai place", space: "work-2024" }]);
  assert.notEqual(home, work);
  assert.equal(spaceExists(c.db, "work-2024"), true);
  const opts = { qualityFilter: false };
  const inWork = await search(c, { query: "dinner with Sam", space: "work-2024", options: opts });
  assert.deepEqual(
    inWork.results.map((r) => r.id),
    [work],
  );
  const inHome = await search(c, { query: "dinner with Sam", options: opts });
  assert.deepEqual(
    inHome.results.map((r) => r.id),
    [home],
  );
  await assert.rejects(
    search(c, { query: "dinner", space: "nope" }),
    isServiceError(404, /space 'nope' does not exist/),
  );
  assert.throws(() => forget(c, "dinner", "nope"), isServiceError(404));
  assert.deepEqual(checkInvariant(c.db), []);
});

test("duplicates: adding the same text again returns the existing id and writes nothing", async () => {
  const c = ctx();
  const [[first]] = await addMemories(c, [{ text: "My passport expires in March 2027" }]);
  emb.calls.length = 0;
  const [[again], [spaced]] = await addMemories(c, [
    { text: "My passport expires in March 2027" },
    { text: "  My passport\n expires in   March 2027 " },
  ]);
  assert.equal(again, first);
  assert.equal(spaced, first);
  assert.deepEqual(emb.calls, [], "nothing was embedded");
  assert.equal(rawCounts(c.db).memories, 1);
  // Within one batch: one row, the same id for both.
  const [[x], [y]] = await addMemories(c, [{ text: "brand new fact" }, { text: "brand new fact" }]);
  assert.equal(x, y);
  assert.equal(rawCounts(c.db).memories, 2);
  // A soft-deleted copy does not count: the text is stored again.
  deleteMemory(c, first!);
  const [[fresh]] = await addMemories(c, [{ text: "My passport expires in March 2027" }]);
  assert.notEqual(fresh, first);
  assert.deepEqual(checkInvariant(c.db), []);
});

test("a 700-word text becomes 3 chunks (300/50), each its own memory with a chunk index", async () => {
  const c = ctx();
  const words = Array.from({ length: 700 }, (_, i) => `word${i}`);
  const [ids] = await addMemories(c, [{ text: words.join(" "), kind: "document" }]);
  assert.equal(ids!.length, 3);
  assert.equal(new Set(ids).size, 3);
  const rows = ids!.map((i) => getMemory(c.db, i)!);
  assert.deepEqual(
    rows.map((r) => r.chunkIndex),
    [0, 1, 2],
  );
  assert.deepEqual(
    rows.map((r) => r.content.split(" ").length),
    [300, 300, 200],
  );
  assert.equal(rows[1]!.content.split(" ")[0], "word250");
  assert.equal(rows[2]!.content.split(" ").at(-1), "word699");
  assert.ok(rows.every((r) => r.kind === "document"));
  assert.deepEqual(checkInvariant(c.db), []);
  // A short text has no chunk index.
  const [[short]] = await addMemories(c, [{ text: "short" }]);
  assert.equal(getMemory(c.db, short!)!.chunkIndex, null);
});

test("the bundled model ranks the related memory first: puppy → dog, IRS → taxes", async () => {
  const c = ctx();
  const [[dog], [tax]] = await addMemories(c, [
    { text: "My dog Rex loves chasing tennis balls in the park" },
    { text: "I need to file my tax return before April 15" },
    { text: "We are painting the kitchen blue this weekend" },
  ]);
  const puppy = await search(c, { query: "my puppy" });
  assert.equal(puppy.results[0]!.id, dog);
  assert.equal(puppy.model, "universal-sentence-encoder-lite");
  const irs = await search(c, { query: "paying the IRS" });
  assert.equal(irs.results[0]!.id, tax);
  // Per-query options override the settings (filter off: everything comes back, still in that order).
  const all = await search(c, { query: "paying the IRS", options: { qualityFilter: false } });
  assert.equal(all.results.length, 3);
  assert.equal(all.results[0]!.id, tax);
});

test("promotion: search with promote bumps retrieval_count and importance (capped at 5); without, nothing changes", async () => {
  const c = ctx();
  const [[a]] = await addMemories(c, [{ text: "The wifi password is on the fridge", importance: 4 }]);
  await search(c, { query: "wifi password" });
  assert.deepEqual([getMemory(c.db, a!)!.retrievalCount, getMemory(c.db, a!)!.importance], [0, 4]);
  await search(c, { query: "wifi password", promote: true });
  assert.deepEqual([getMemory(c.db, a!)!.retrievalCount, getMemory(c.db, a!)!.importance], [1, 5]);
  await search(c, { query: "wifi password", promote: true });
  assert.deepEqual([getMemory(c.db, a!)!.retrievalCount, getMemory(c.db, a!)!.importance], [2, 5]);
});

test("remember: a pinned memory of importance 5; remembering a stored text pins it", async () => {
  const c = ctx();
  const r = await remember(c, "  Allergic to peanuts  ");
  assert.equal(r.ids.length, 1);
  assert.match(r.message, /Remembered \(pinned\): “Allergic to peanuts”/);
  const m = getMemory(c.db, r.ids[0]!)!;
  assert.deepEqual([m.pinned, m.importance, m.kind, m.content], [true, 5, "remember", "Allergic to peanuts"]);
  const [[plain]] = await addMemories(c, [{ text: "Blood type is O negative", importance: 1 }]);
  const again = await remember(c, "Blood type is O negative");
  assert.deepEqual(again.ids, [plain]);
  assert.deepEqual([getMemory(c.db, plain!)!.pinned, getMemory(c.db, plain!)!.importance], [true, 5]);
});

test("forget: case-insensitive literal substring; reports count, items and undo; restore brings them back", async () => {
  const c = ctx();
  const [[lit], [wide], [upper], [other]] = await addMemories(c, [
    { text: "the regex a.*b is literal here" },
    { text: "a fox and a bird" },
    { text: "ANOTHER A.*B MENTION" },
    { text: "something about the garden" },
  ]);
  const t0 = Date.now();
  const res = forget(c, "  a.*b ");
  assert.equal(res.count, 2);
  assert.deepEqual(res.items.map((i) => i.id).sort(), [lit, upper].sort());
  assert.deepEqual(res.undo.ids.sort(), [lit, upper].sort());
  assert.ok(res.items.every((i) => typeof i.content === "string" && i.timestamp));
  const until = Date.parse(res.undo.until) - t0;
  assert.ok(Math.abs(until - FORGET_UNDO_DAYS * 86_400_000) < 60_000, `undo window ${until} ms`);
  assert.match(res.message, /Forgot 2 memories matching “a\.\*b”\. Undo is possible for 7 days\./);
  assert.equal(getMemory(c.db, wide!)!.softDeleted, false);
  assert.equal(getMemory(c.db, other!)!.softDeleted, false);
  assert.deepEqual(checkInvariant(c.db), []);
  const gone = await search(c, { query: "regex literal", options: { qualityFilter: false } });
  assert.ok(!gone.results.some((r) => r.id === lit));

  assert.deepEqual(restore(c, res.undo.ids).restored.sort(), [lit, upper].sort());
  assert.deepEqual(checkInvariant(c.db), []);
  const back = await search(c, { query: "regex literal" });
  assert.equal(back.results[0]!.id, lit);

  const none = forget(c, "zebra crossing");
  assert.deepEqual([none.count, none.items, none.undo.ids], [0, [], []]);
  assert.equal(none.message, "No memory matches “zebra crossing”.");
  assert.equal(forget(c, "GARDEN").count, 1);
});

test("forget refuses a blank or one-character pattern (it would match everything); remember refuses blank text", async () => {
  const c = ctx();
  await addMemories(c, [{ text: "keep this" }, { text: "and this" }]);
  for (const p of ["", "   ", "\n\t", "a", " s "])
    assert.throws(() => forget(c, p), isServiceError(400, /at least 2 characters/), JSON.stringify(p));
  await assert.rejects(remember(c, "  \n "), isServiceError(400, /must not be empty/));
  assert.deepEqual(rawCounts(c.db), { memories: 2, vec: 2, fts: 2, trash: 0 });
});

test("deleteMemory: soft (restorable) or purged; unknown id is 404", async () => {
  const c = ctx();
  const [[a], [b]] = await addMemories(c, [{ text: "soft delete me" }, { text: "purge me" }]);
  assert.deepEqual(deleteMemory(c, a!), { id: a, deleted: "soft" });
  assert.deepEqual(deleteMemory(c, b!, true), { id: b, deleted: "purged" });
  assert.equal(getMemory(c.db, b!), undefined);
  assert.deepEqual(rawCounts(c.db), { memories: 1, vec: 0, fts: 0, trash: 1 });
  assert.deepEqual(checkInvariant(c.db), []);
  assert.throws(() => deleteMemory(c, "00000000-0000-4000-8000-000000000000"), isServiceError(404));
  assert.deepEqual(restore(c, [a!]).restored, [a]);
  assert.deepEqual(checkInvariant(c.db), []);
});

test("health reports an inconsistent store", async () => {
  const c = ctx();
  await addMemories(c, [{ text: "one" }, { text: "two" }]);
  c.db.prepare(`DELETE FROM ${ftsTable(c.db)} WHERE rowid = 1`).run();
  const h = health(c);
  assert.equal(h.ok, false);
  assert.equal(h.store.consistent, false);
  assert.deepEqual([h.store.memories, h.store.vectors, h.store.fts], [2, 2, 1]);
});

// ── Embedding-server failures through the service: mapped to 502/503, nothing written ─────────────

let fake: FakeEmbeddingServer;
before(async () => {
  fake = await FakeEmbeddingServer.start({ model: "fake-embed", dim: 16 });
});
after(() => fake.close());

function httpCtx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: new HttpEmbedClient(async () => fake.url, { timeoutMs: 2000 }) };
}

test("a bad or missing embedding server: ServiceError 502/503 and nothing written", async () => {
  const cases: [FakeEmbedMode, 502 | 503, new (...a: never[]) => Error][] = [
    ["garbage", 502, EmbedderResponseError],
    ["wrong-dim", 502, EmbedderResponseError],
    ["wrong-count", 502, EmbedderResponseError],
    ["nan", 502, EmbedderResponseError],
    ["status-500", 502, EmbedderResponseError],
    ["status-503", 503, EmbedderUnavailableError],
  ];
  for (const [mode, status, cls] of cases) {
    const c = httpCtx();
    fake.mode = mode;
    const err = await addMemories(c, [{ text: "first fact" }, { text: "second fact", space: "fresh-space" }]).then(
      () => assert.fail(`${mode}: add should fail`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof cls, `${mode}: ${String(err)}`);
    const se = asServiceError(err)!;
    assert.equal(se.status, status, mode);
    if (status === 502) assert.match(se.message, /bad answer.*Nothing was written/);
    assert.deepEqual(rawCounts(c.db), { memories: 0, vec: 0, fts: 0, trash: 0 }, mode);
    assert.equal(spaceExists(c.db, "fresh-space"), false, mode);
    // The route layer turns it into that HTTP status with a readable body.
    const res = await handle(() => addMemories(c, [{ text: "third fact" }]).then(() => Response.json({})));
    assert.equal(res.status, status, mode);
    const body = (await res.json()) as { error: { status: number; message: string } };
    assert.equal(body.error.status, status);
    assert.ok(body.error.message.length > 10);
    assert.equal(rawCounts(c.db).memories, 0);
  }
  fake.mode = "ok";
});

test("an embedding server that is down: 503 for writes and searches", async () => {
  const gone = await FakeEmbeddingServer.start();
  const url = gone.url;
  await gone.close();
  const s = openTempStore();
  stores.push(s);
  const c: MemoContext = { db: s.sqlite, embedder: new HttpEmbedClient(async () => url) };
  await assert.rejects(addMemories(c, [{ text: "x y z" }]), (e: unknown) => asServiceError(e)?.status === 503);
  await assert.rejects(search(c, { query: "x" }), (e: unknown) => asServiceError(e)?.status === 503);
  assert.equal(rawCounts(c.db).memories, 0);
});

test("the healthy fake server works end to end, and a later model change re-indexes in the background (docs/architecture.md#models-and-providers)", async () => {
  fake.mode = "ok";
  const c = httpCtx();
  const [[a]] = await addMemories(c, [{ text: "orange juice in the morning" }]);
  assert.equal(vectorTableDim(c.db), 16);
  const res = await search(c, { query: "orange juice" });
  assert.equal(res.results[0]!.id, a);
  // The same store, now served by another model (the in-process USE-lite, 512-d).
  // The write is accepted (its vector goes to the re-index's new table) and nothing is lost at the swap.
  const switched: MemoContext = { db: c.db, embedder: emb };
  const [[b]] = await addMemories(switched, [{ text: "new" }]);
  assert.deepEqual(checkInvariant(c.db), []);
  await reindexDone(c.db); // null when it has already finished
  assert.equal(listRuns(c.db, { job: "reindex" })[0]!.status, "ok");
  assert.equal(vectorTableDim(c.db), 512);
  assert.deepEqual(rawCounts(c.db), { memories: 2, vec: 2, fts: 2, trash: 0 });
  assert.deepEqual(checkInvariant(c.db), []);
  assert.equal((await search(switched, { query: "orange juice" })).results[0]!.id, a);
  assert.ok(getMemory(c.db, b!));
  // The store error that used to answer a model change still maps to 409 for other callers.
  assert.equal(asServiceError(new StoreError("held by another model", "MODEL_MISMATCH"))!.status, 409);
});
