/**
 * Hybrid retrieval end to end on a real store with the real bundled embedding model (USE-lite, in process).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { candidatePool } from "./query-builder";
import { denseTexts, retrieve, searchWithVectors } from "./retrieve";
import { parseTimeIntent } from "./time-window";
import { defaultSettingsFor, type RetrievalSettings } from "./settings";
import { getMemory, insertMemories, softDeleteMemories } from "../store";

let s: TempStore;
let emb: InProcessEmbedder;
let model: string;
let base: RetrievalSettings;
const id: Record<string, string> = {};

const CORPUS: Record<string, string> = {
  dog: "My dog Rex loves chasing tennis balls in the park",
  tax: "I need to file my tax return before April 15",
  kitchen: "We are painting the kitchen blue this weekend",
  sister: "Sister Anna lives in Berlin",
};

before(async () => {
  emb = await inProcessEmbedder();
  ({ model } = await emb.info());
  base = defaultSettingsFor(model);
  s = openTempStore({ model, dim: 512 });
  const keys = Object.keys(CORPUS);
  const vectors = await emb.embedDocuments(keys.map((k) => CORPUS[k]!));
  const ids = insertMemories(
    s.sqlite,
    keys.map((k) => ({ spaceId: "personal", content: CORPUS[k]!, timestamp: "2024-06-15T00:00:00.000Z" })),
    vectors,
    model,
  );
  keys.forEach((k, i) => (id[k] = ids[i]!));
  // The same dog memory in another space, which personal searches must never see.
  insertMemories(s.sqlite, [{ spaceId: "work", content: CORPUS.dog! }], [vectors[0]!], model);
});
after(() => s.close());

const ask = (query: string, over: Partial<RetrievalSettings> = {}, req: Partial<Parameters<typeof retrieve>[2]> = {}) =>
  retrieve(s.sqlite, emb, { query, spaceId: "personal", ...req }, { ...base, ...over });

test("a semantically related query ranks its memory first (the real model, no shared words)", async () => {
  const puppy = await ask("my puppy", { qualityFilter: false });
  assert.equal(puppy.results[0]!.id, id.dog);
  assert.equal(puppy.results[0]!.matchType, "vector");
  const irs = await ask("paying the IRS", { qualityFilter: false });
  assert.equal(irs.results[0]!.id, id.tax);
  assert.ok(irs.results.findIndex((r) => r.id === id.tax) < irs.results.findIndex((r) => r.id === id.dog));
});

test("the quality filter keeps the related memory and drops unrelated vector-only ones, saying why", async () => {
  // A floor of 0.35 separates this tiny corpus; the USE-lite default (0.2) is set low for recall.
  const res = await ask("my puppy", { qualityFilter: true, minSimilarity: 0.35 });
  assert.deepEqual(
    res.results.map((r) => r.id),
    [id.dog],
  );
  assert.ok(res.results[0]!.scores.similarity! >= 0.35);
  assert.equal(res.dropped.length, 3);
  for (const d of res.dropped) {
    assert.equal(d.matchType, "vector");
    assert.match(d.reason, /^vector-only, similarity 0\.\d{3} < 0\.35$/);
  }
});

test("a keyword match is found by both legs: hybrid, with its FTS rank and bm25", async () => {
  const res = await ask("tennis balls");
  const top = res.results[0]!;
  assert.equal(top.id, id.dog);
  assert.equal(top.matchType, "hybrid");
  assert.equal(top.scores.ftsRank, 1);
  assert.ok(top.scores.bm25! < 0);
  assert.ok(top.scores.similarity! > 0);
  assert.ok(top.scores.final >= top.scores.fused && top.scores.rrf > 0);
  assert.equal(top.content, CORPUS.dog);
  assert.equal(top.timestamp, "2024-06-15T00:00:00.000Z");
});

test("retrieval stays in its space", async () => {
  const res = await ask("tennis balls", { qualityFilter: false });
  assert.equal(res.results.length, 4);
  assert.ok(res.results.every((r) => Object.values(id).includes(r.id)));
  const work = await retrieve(s.sqlite, emb, { query: "tennis balls", spaceId: "work" }, base);
  assert.equal(work.results.length, 1);
  assert.notEqual(work.results[0]!.id, id.dog);
});

test("k caps the results; the candidate pool follows the formula at the ranking depth", async () => {
  const res = await ask("my weekend plans", { qualityFilter: false }, { k: 2 });
  assert.equal(res.results.length, 2);
  assert.equal(res.pool, candidatePool(10), "k = 2 ranks 10 deep");
  const ten = await ask("my weekend plans", { qualityFilter: false }, { k: 10 });
  assert.deepEqual(
    res.results.map((r) => [r.id, r.scores.final, r.scores.confidence]),
    ten.results.slice(0, 2).map((r) => [r.id, r.scores.final, r.scores.confidence]),
    "the first 2 of one ranking, whatever k ≤ 10 asks",
  );
  assert.equal((await ask("x", {}, { k: 21 })).pool, 100);
  assert.equal((await ask("x", { topN: 3, qualityFilter: false })).results.length, 3);
});

test("queries: context joins the main query, a long message adds the anchor; both are embedded", async () => {
  emb.calls.length = 0;
  const res = await ask(
    "tell me again where my sister Anna lives these days",
    { anchorQuery: true, contextMessages: 3 },
    { context: ["older", "we talked about family"] },
  );
  assert.deepEqual(res.queries, [
    { role: "main", text: "older\nwe talked about family\ntell me again where my sister Anna lives these days" },
    { role: "anchor", text: "tell me again where my" },
  ]);
  assert.deepEqual(emb.calls, [{ kind: "query", texts: res.queries.map((q) => q.text) }]);
  assert.equal(res.results[0]!.id, id.sister);
});

test("promote: only a recall into a prompt bumps retrieval_count and importance", async () => {
  const before = getMemory(s.sqlite, id.kitchen!)!;
  await ask("painting the kitchen", {}, { promote: false });
  assert.deepEqual(
    [getMemory(s.sqlite, id.kitchen!)!.retrievalCount, getMemory(s.sqlite, id.kitchen!)!.importance],
    [before.retrievalCount, before.importance],
  );
  const res = await ask("painting the kitchen", {}, { promote: true });
  assert.equal(res.results[0]!.id, id.kitchen);
  const after1 = getMemory(s.sqlite, id.kitchen!)!;
  assert.equal(after1.retrievalCount, before.retrievalCount + 1);
  assert.equal(after1.importance, Math.min(5, before.importance + 1));
  assert.ok(after1.lastRetrievedAt);
  // Results not returned are not promoted.
  assert.equal(getMemory(s.sqlite, id.tax!)!.retrievalCount, 0);
});

test("soft-deleted memories are never returned", async () => {
  softDeleteMemories(s.sqlite, [id.sister!]);
  const res = await ask("where does Anna live", { qualityFilter: false });
  assert.ok(!res.results.some((r) => r.id === id.sister));
  assert.equal(res.results.length, 3);
});

test("searchWithVectors: a zero weight switches a leg off", () => {
  const st = openTempStore({ model: "axis", dim: 4 });
  try {
    const [a, b] = insertMemories(
      st.sqlite,
      [
        { spaceId: "personal", content: "zebra stripes" },
        { spaceId: "personal", content: "lion mane" },
      ],
      [axisVector(4, 0), axisVector(4, 1)],
      "axis",
    );
    const q = [{ role: "main" as const, text: "zebra" }];
    // Written together, the two are each other's neighbours: neighbour context would bring one back.
    const settings = { ...defaultSettingsFor("axis"), qualityFilter: false, neighbourWeight: 0 };
    const both = searchWithVectors(st.sqlite, { query: "zebra", spaceId: "personal" }, settings, q, [axisVector(4, 0)]);
    assert.deepEqual(
      both.results.map((r) => [r.id, r.matchType]),
      [
        [a, "hybrid"],
        [b, "vector"],
      ],
    );
    const ftsOnly = searchWithVectors(
      st.sqlite,
      { query: "zebra", spaceId: "personal" },
      { ...settings, weights: { ...settings.weights, vector: 0, fts: 1, anchor: 1 } },
      q,
      [axisVector(4, 1)],
    );
    assert.deepEqual(
      ftsOnly.results.map((r) => [r.id, r.matchType]),
      [[a, "fts"]],
    );
    const vecOnly = searchWithVectors(
      st.sqlite,
      { query: "zebra", spaceId: "personal" },
      { ...settings, weights: { ...settings.weights, vector: 1, fts: 0, anchor: 1 } },
      q,
      [axisVector(4, 1)],
    );
    assert.deepEqual(
      vecOnly.results.map((r) => [r.id, r.matchType]),
      [
        [b, "vector"],
        [a, "vector"],
      ],
    );
    // RRF arithmetic through the pipeline (k = 60, weights 1, importance 1 nudged by 0.1 × 1/5).
    const hybrid = both.results[0]!;
    assert.ok(Math.abs(hybrid.scores.rrf - (1 / 61 + 1 / 61)) < 1e-12);
    assert.ok(Math.abs(hybrid.scores.final - hybrid.scores.fused * (1 + 0.1 * (1 / 5))) < 1e-12);
  } finally {
    st.close();
  }
});

test("'yesterday' is the person's yesterday: tzOffsetMinutes reaches the date window", () => {
  const st = openTempStore({ model: "axis", dim: 4 });
  try {
    // 15 Sep 2024, 18:00 in California (UTC-7). Both memories are equally near the question.
    const now = "2024-09-16T01:00:00.000Z";
    const [yesterday, today] = insertMemories(
      st.sqlite,
      [
        {
          spaceId: "personal",
          content: "Garden plans: raised beds by the fence",
          timestamp: "2024-09-15T03:00:00.000Z",
        },
        { spaceId: "personal", content: "Garden plans: a pond in the corner", timestamp: "2024-09-15T20:00:00.000Z" },
      ],
      [axisVector(4, 0), axisVector(4, 0)],
      "axis",
    );
    const query = "What were my garden plans yesterday?";
    const run = (tzOffsetMinutes: number) =>
      searchWithVectors(
        st.sqlite,
        { query, spaceId: "personal", k: 5, now, tzOffsetMinutes },
        // Every window counts here (this store is two notes, both "yesterday" in UTC): the time zone is tested.
        { ...defaultSettingsFor("universal-sentence-encoder-lite"), minConfidence: 0, maxWindowShare: 1 },
        [{ role: "main", text: query }],
        [axisVector(4, 0)],
      );
    const boosted = (r: ReturnType<typeof run>) =>
      r.results.filter((x) => x.moves.some((m) => m.startsWith("date ×"))).map((x) => x.id);
    // California: yesterday is 14 Sep local, which holds the 20:00 note (03:00 UTC on the 15th) only.
    const la = run(-420);
    assert.deepEqual(boosted(la), [yesterday]);
    // In UTC the same instant is the 16th: yesterday is the 15th, which holds both notes.
    assert.deepEqual(boosted(run(0)).sort(), [yesterday, today].sort());
  } finally {
    st.close();
  }
});

/** The first result of a USE-lite search in "personal" whose query vector is axis 0. */
const firstResult = (db: Parameters<typeof searchWithVectors>[0], query: string, now?: string) =>
  searchWithVectors(
    db,
    { query, spaceId: "personal", k: 5, ...(now ? { now, tzOffsetMinutes: 0 } : {}) },
    defaultSettingsFor("universal-sentence-encoder-lite"),
    [{ role: "main", text: query }],
    [axisVector(4, 0)],
  ).results[0]!;

/** A 4-d axis store whose "personal" space holds these memories, each on its axis (default 0). */
function personalStore(memories: { content: string; timestamp?: string; axis?: number }[]) {
  const st = openTempStore({ model: "axis", dim: 4 });
  addPersonal(st.sqlite, memories);
  return st;
}
function addPersonal(
  db: Parameters<typeof insertMemories>[0],
  memories: { content: string; timestamp?: string; axis?: number }[],
) {
  insertMemories(
    db,
    memories.map(({ content, timestamp }) => ({ spaceId: "personal", content, ...(timestamp ? { timestamp } : {}) })),
    memories.map((m) => axisVector(4, m.axis ?? 0)),
    "axis",
  );
}

test("confidence is made of the result's own evidence, and the result says what it was made of", () => {
  const st = personalStore([
    { content: "User: The zeppelin tickets are in the blue drawer. Assistant: Noted." },
    ...Array.from({ length: 12 }, (_, i) => ({
      content: `User: note ${i} about groceries. Assistant: Ok.`,
      axis: 1 + (i % 3),
    })),
  ]);
  try {
    const hit = firstResult(st.sqlite, "Where are the zeppelin tickets?");
    // The same vector, no word of the memory: only the similarity speaks for it.
    const vectorOnly = firstResult(st.sqlite, "What is the capital of France?");
    assert.equal(hit.id, vectorOnly.id);
    assert.ok(hit.features!.termShare > 0.9 && vectorOnly.features!.termShare === 0);
    assert.ok(hit.scores.confidence > vectorOnly.scores.confidence);
    assert.ok(
      hit.moves.some((m) => m.startsWith("confidence: ")),
      hit.moves.join("; "),
    );
  } finally {
    st.close();
  }
});

test("the dense leg embeds the question without the date words chrono-node read; the keyword leg reads them as typed", () => {
  const q = [{ role: "main" as const, text: "What did I plant last week?" }];
  const time = parseTimeIntent(q[0]!.text, new Date("2024-06-20T12:00:00Z"));
  assert.deepEqual(denseTexts(s.sqlite, "personal", q, base, time), ["What did I plant?"]);
});
