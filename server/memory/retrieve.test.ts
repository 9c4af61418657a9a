/**
 * Hybrid retrieval end to end on a real store with the real bundled embedding model (USE-lite, in process).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { axisVector, openTempStore, type TempStore } from "../test/temp-store";
import { candidatePool } from "./query-builder";
import { denseTexts, retrieve, searchWithVectors } from "./retrieve";
import { parseTimeIntent } from "./time-window";
import { defaultSettingsFor, type RetrievalSettings } from "./settings";
import { getMemory, insertMemories, softDeleteMemories } from "./store";

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
      { ...settings, weights: { vector: 0, fts: 1, anchor: 1 } },
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
      { ...settings, weights: { vector: 1, fts: 0, anchor: 1 } },
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
        { ...defaultSettingsFor("universal-sentence-encoder-lite"), minConfidence: 0 },
        [{ role: "main", text: query }],
        [axisVector(4, 0)],
      );
    const boosted = (r: ReturnType<typeof run>) =>
      r.results.filter((x) => x.moves.some((m) => m.startsWith("date ×"))).map((x) => x.id);
    // California: yesterday is 14 Sep local, which holds the 20:00 note (03:00 UTC on the 15th) only.
    const la = run(-420);
    assert.deepEqual(boosted(la), [yesterday]);
    assert.equal(la.results[0]!.id, yesterday);
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

test("fewer repeats through the pipeline: the same ask made twice keeps one slot above a distinct match", () => {
  const st = openTempStore({ model: "axis", dim: 4 });
  try {
    const [first, again, other] = insertMemories(
      st.sqlite,
      [
        {
          content: "User: How do I pack a suitcase efficiently? Assistant: Roll clothes.",
          timestamp: "2024-01-05T10:00:00Z",
        },
        {
          content: "User: I need to pack a suitcase, where do I start? Assistant: Roll clothes.",
          timestamp: "2024-05-05T10:00:00Z",
        },
        { content: "User: What should I bring on a week away? Assistant: Layers.", timestamp: "2024-09-05T10:00:00Z" },
      ].map((m) => ({ spaceId: "personal", ...m })),
      [axisVector(4, 0), axisVector(4, 0), new Float32Array([Math.SQRT1_2, Math.SQRT1_2, 0, 0])],
      "axis",
    );
    const run = (repeatSimilarity: number) =>
      searchWithVectors(
        st.sqlite,
        { query: "pack a suitcase", spaceId: "personal", k: 3 },
        { ...defaultSettingsFor("universal-sentence-encoder-lite"), repeatSimilarity },
        [{ role: "main", text: "pack a suitcase" }],
        [axisVector(4, 0)],
      ).results;
    const on = run(0.9);
    // Recency among near-duplicates puts the newer copy first; the older one is its repeat.
    assert.deepEqual(
      on.map((r) => r.id),
      [again, other, first],
    );
    assert.ok(
      on[2]!.moves.includes("a repeat of result 1 (moved below the distinct results)"),
      on[2]!.moves.join("; "),
    );
    assert.deepEqual(
      run(1).map((r) => r.id),
      [again, first, other],
      "1 = off",
    );
  } finally {
    st.close();
  }
});

test("a question about someone the space never mentions: lower confidence, and the result says why", () => {
  const st = personalStore([{ content: "User: Anna moved to Lisbon for work. Assistant: Exciting!" }]);
  try {
    const run = (query: string) => firstResult(st.sqlite, query);
    const known = run("Where did Anna move to for work?");
    const unknown = run("Where did Bartholomew move to for work?");
    assert.ok(unknown.scores.confidence < known.scores.confidence);
    assert.equal(unknown.features!.namesKnown, 0);
    assert.ok(unknown.moves.includes("confidence: no memory mentions Bartholomew"), unknown.moves.join("; "));
    assert.ok(!known.moves.some((m) => m.includes("no memory mentions")));
  } finally {
    st.close();
  }
});

test("a question naming someone the person told about is personal for the confidence, without a 'my'", () => {
  const st = personalStore([
    { content: "User: We took Ziggy to the vet today, he needs boosters. Assistant: Poor pup!" },
    { content: "User: Who was Bismarck? Assistant: A Prussian statesman.", axis: 1 },
  ]);
  try {
    const run = (query: string) => firstResult(st.sqlite, query);
    const ziggy = run("When does Ziggy need the boosters?");
    assert.equal(ziggy.features!.personalQuery, 1);
    assert.ok(
      ziggy.moves.includes("confidence: about the person's life (the person has told about Ziggy)"),
      ziggy.moves.join("; "),
    );
    assert.equal(run("When did Bismarck unify Germany?").features!.personalQuery, 0, "named only in a general ask");
  } finally {
    st.close();
  }
});

test("a question about a thing the person told of, in no person: its own confidence feature, and the result says so", () => {
  const st = personalStore([
    { content: "User: My knee is still swollen after the match. Assistant: Ice it and rest." },
    { content: "User: Why is the sky blue? Assistant: Sunlight scatters off the air.", axis: 1 },
  ]);
  try {
    const run = (query: string) => firstResult(st.sqlite, query);
    const knee = run("Is the knee any better?");
    assert.equal(knee.features!.personalQuery, 0, "no sign reads the turn as personal");
    assert.equal(knee.features!.thingToldOf, 1);
    assert.equal(knee.features!.suitsIntent, 1, "the person's own statement suits it");
    assert.ok(knee.moves.includes("confidence: the person has told about the knee"), knee.moves.join("; "));
    // Named only in a question of theirs, or never: not a thing of theirs.
    assert.equal(run("Is the sky any bluer at noon?").features!.thingToldOf, 0);
    const elbow = run("Is the elbow any better?");
    assert.equal(elbow.features!.thingToldOf, 0);
    assert.ok(!elbow.moves.some((m) => m.includes("has told about")));
  } finally {
    st.close();
  }
});

test("a question naming a time the person has memories of is personal for the confidence, without a 'my'", () => {
  const st = personalStore([
    {
      content: "User: Planted peppers and basil in the raised bed. Assistant: Lovely mix!",
      timestamp: "2024-05-12T10:00:00.000Z",
    },
  ]);
  try {
    const run = (query: string) => firstResult(st.sqlite, query, "2024-09-01T12:00:00.000Z");
    const may = run("What happened with the raised bed in May?");
    assert.equal(may.features!.personalQuery, 1);
    assert.ok(
      may.moves.includes("confidence: about the person's life (it names a time of the person's history, “May”)"),
      may.moves.join("; "),
    );
    // A time the space holds nothing of is not the person's history: the same words in March.
    const march = run("What happened with the raised bed in March?");
    assert.equal(march.features!.personalQuery, 0);
    assert.ok(march.scores.confidence < may.scores.confidence);
    assert.ok(!march.moves.some((m) => m.includes("names a time")));
    // Nor is a window around the turn: today's memories are there whatever the person asks.
    addPersonal(st.sqlite, [
      {
        content: "User: Watered the raised bed before work. Assistant: Good start to the day!",
        timestamp: "2024-09-01T07:00:00.000Z",
      },
    ]);
    const today = run("What is a quick dinner to cook today?");
    assert.ok(
      today.moves.some((m) => m.startsWith("date ×")),
      "today's memory is in the window",
    );
    assert.equal(today.features!.personalQuery, 0);
  } finally {
    st.close();
  }
});

test("the dense leg embeds a question as a statement where the model's settings say so, the keyword leg the words as typed", async () => {
  const q = [{ role: "main" as const, text: "When is the tax return due last week?" }];
  const time = parseTimeIntent(q[0]!.text, new Date("2024-06-20T12:00:00Z"));
  const on = { ...base, denseQuestionAsStatement: true };
  assert.deepEqual(denseTexts(s.sqlite, "personal", q, on, time), ["the tax return due"]);
  assert.deepEqual(denseTexts(s.sqlite, "personal", q, { ...on, denseQuestionAsStatement: false }, time), [
    "When is the tax return due?",
  ]);
  const res = await ask("When is my tax return due?", { denseQuestionAsStatement: true });
  assert.deepEqual(res.dense, ["my tax return due"], "the result says what the dense leg embedded");
  assert.equal(res.results[0]!.id, id.tax);
  assert.equal(res.results[0]!.matchType, "hybrid", "the keyword leg still matched the typed words");
});

test("an imported conversation between named people: a question naming a speaker favours that speaker's own statements", () => {
  const st = openTempStore({ model: "axis", dim: 4 });
  try {
    const fillers = [
      "a pottery class",
      "the beach",
      "a concert",
      "the garden",
      "a new recipe",
      "the museum",
      "a film",
      "the gym",
    ];
    const [hers, his] = insertMemories(
      st.sqlite,
      [
        "Caroline: I started volunteering at the animal shelter on Saturdays. Melanie: That's lovely.",
        "Melanie: I started volunteering at the food bank. Caroline: Good for you!",
        ...fillers.map((f) => `Caroline: Did you enjoy ${f}? Melanie: Yes, a lot.`),
      ].map((content, i) => ({
        spaceId: "personal",
        content,
        timestamp: `2023-05-${String(i + 1).padStart(2, "0")}T10:00:00Z`,
      })),
      // Melanie's statement is the closer match; Caroline's own is what the question is about.
      [new Float32Array([0.7, 0.71414, 0, 0]), axisVector(4, 0), ...fillers.map((_, i) => axisVector(4, 2 + (i % 2)))],
      "axis",
    );
    const run = (personalBoost: number) =>
      searchWithVectors(
        st.sqlite,
        { query: "Where does Caroline volunteer?", spaceId: "personal", k: 3 },
        { ...defaultSettingsFor("universal-sentence-encoder-lite"), personalBoost },
        [{ role: "main", text: "Where does Caroline volunteer?" }],
        [axisVector(4, 0)],
      ).results;
    const on = run(2);
    assert.equal(on[0]!.id, hers);
    assert.ok(on[0]!.moves.includes("about Caroline ×3.00"), on[0]!.moves.join("; "));
    assert.ok(!on.find((r) => r.id === his)!.moves.some((m) => m.startsWith("about ")));
    assert.ok(
      on[0]!.moves.includes(
        "confidence: about the person's life (it asks about Caroline, who speaks in these conversations)",
      ),
      on[0]!.moves.join("; "),
    );
    const off = run(0);
    assert.equal(off[0]!.id, his, "0 = off: the closer match first");
    assert.ok(!off.some((r) => r.moves.some((m) => m.startsWith("about Caroline"))), "0 = off");
  } finally {
    st.close();
  }
});
