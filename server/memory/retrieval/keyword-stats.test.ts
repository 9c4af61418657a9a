/** The keyword leg per space: its statistics (ceiling, document frequencies, known) are the space's own (split from keyword-search.test.ts). */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { bestFirst, buildFtsQuery, cleanDenseQuery, fts5Idf, keywordSearchScored } from "./keyword-search";
import { defaultSettingsFor } from "./settings";
import { insertMemories, matchText } from "../store";

/** The ranked hits alone. */
const keywordSearch = (...a: Parameters<typeof keywordSearchScored>) => keywordSearchScored(...a).hits;

const DIM = 8;
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

function store(): TempStore {
  const s = openTempStore({ model: "test-model", dim: DIM });
  stores.push(s);
  return s;
}

function add(db: Database.Database, contents: string[], spaceId = "personal"): string[] {
  return insertMemories(
    db,
    contents.map((content) => ({ spaceId, content })),
    contents.map((_, i) => axisVector(DIM, i)),
    "test-model",
  );
}

const _matchRids = (db: Database.Database, expr: string) =>
  matchText(db, "memory", "personal", expr)
    .map((r) => r.rid)
    .sort((a, b) => a - b);

test("keywordSearchScored: the ceiling is Σ FTS5 idf of the kept terms, what a memory with each term once at average length scores", () => {
  const s = store();
  // Four memories of three words each; "apple" is in one, "pear" in two.
  add(s.sqlite, ["apple pear fig", "kiwi pear plum", "kiwi lime plum", "kiwi lime date"]);
  const idf = (df: number) => Math.max(1e-6, Math.log((4 - df + 0.5) / (df + 0.5)));
  const { hits, ceiling } = keywordSearchScored(s.sqlite, "personal", "apple pear", 10);
  assert.ok(Math.abs(ceiling - (idf(1) + idf(2))) < 1e-9, `ceiling ${ceiling}`);
  assert.equal(hits[0]!.rid, 1);
  assert.ok(Math.abs(-hits[0]!.bm25 - ceiling) < 1e-9, `bm25 ${hits[0]!.bm25} vs ceiling ${ceiling}`);
  // keywordSearch gives the same hits; no term, no hits and no ceiling.
  assert.deepEqual(keywordSearch(s.sqlite, "personal", "apple pear", 10), hits);
  assert.deepEqual(keywordSearchScored(s.sqlite, "personal", "the of and", 10), {
    hits: [],
    ceiling: 0,
    terms: [],
    match: "",
    known: 0,
    scores: new Map(),
  });
});

test("document frequency is per space: a word common in another space is kept in this one's queries", () => {
  const s = store();
  const db = s.sqlite;
  // "Priya" is in every memory of the work space (its speaker), in one of the 60 personal ones.
  add(
    db,
    Array.from({ length: 200 }, (_, i) => `Priya: standup notes ${i}`),
    "work",
  );
  const personal = Array.from({ length: 60 }, (_, i) => `garden diary ${i}`);
  personal[7] = "dinner with Priya on Friday";
  add(db, personal, "personal");
  // Priya is in 200 of the work space's 200 memories (> 0.4); in the personal space in 1 of 60.
  assert.equal(buildFtsQuery(db, "personal", "Priya"), '"priya"');
  assert.equal(buildFtsQuery(db, "work", "Priya diary"), '"diary"');
  const hits = keywordSearch(db, "personal", "when did I see Priya", 10);
  assert.equal(hits.length, 1);
  // The dense query is cleaned per space too: Priya is a speaker's name in work, a person in personal.
  assert.deepEqual(cleanDenseQuery(db, "personal", "dinner with Priya", 0.08), {
    text: "dinner with Priya",
    dropped: [],
  });
  assert.deepEqual(cleanDenseQuery(db, "work", "notes from Priya", 0.08).dropped, ["notes", "Priya"]);
});

test("the dense query keeps a person's recurring subject and drops the speakers' names (USE-lite default)", () => {
  const s = store();
  const db = s.sqlite;
  // A chat between two named people in which the daughter comes up in 1 exchange of 8 (12%).
  add(
    db,
    Array.from({ length: 80 }, (_, i) =>
      i % 8 === 0
        ? `Caroline: my daughter drew a horse ${i}. Melanie: lovely`
        : `Caroline: garden note ${i}. Melanie: ok`,
    ),
  );
  const { denseMaxDocFraction } = defaultSettingsFor("universal-sentence-encoder-lite");
  const cleaned = cleanDenseQuery(db, "personal", "What did Caroline say her daughter drew?", denseMaxDocFraction);
  assert.deepEqual(cleaned.dropped, ["Caroline"]);
  assert.equal(cleaned.text.includes("daughter"), true);
});

test("a memory written just after a search: a document frequency can be ahead of the count, and the idf stays a number", () => {
  assert.equal(fts5Idf(2, 3), 1e-6, "df above the cached count reads as a term in every document");
  assert.ok(Math.abs(fts5Idf(10, 1) - Math.log(9.5 / 1.5)) < 1e-12);
  const s = store();
  add(s.sqlite, ["the shed roof leaks", "the shed key hangs by the door"]);
  keywordSearchScored(s.sqlite, "personal", "shed roof", 10); // caches the document frequencies
  add(s.sqlite, ["the shed roof was mended"]);
  const after = keywordSearchScored(s.sqlite, "personal", "shed roof", 10);
  assert.equal(after.hits.length, 3);
  assert.ok(Number.isFinite(after.ceiling) && after.ceiling > 0, String(after.ceiling));
  assert.ok(
    after.terms.every((t) => Number.isFinite(t.idf) && t.idf > 0),
    JSON.stringify(after.terms),
  );
});

test("one statement gives the hits and every match's −bm25, ranked as FTS5 ranks them", () => {
  const s = store();
  const db = s.sqlite;
  // Equal scores on purpose (same length, one matching word each): the tie order must be the SQL one's.
  add(
    db,
    Array.from({ length: 120 }, (_, i) => `${i % 3 ? "meadow" : "river"} stone ${i % 7} walk ${i}`),
  );
  const all = keywordSearchScored(db, "personal", "river walk", 10);
  assert.equal(all.match, '"river"');
  const every = matchText(db, "memory", "personal", all.match);
  const ranked = [...every].sort((a, b) => a.bm25 - b.bm25).slice(0, 10);
  assert.deepEqual(all.hits, ranked);
  assert.equal(all.scores.size, every.length);
  for (const r of every) assert.equal(all.scores.get(r.rid), -r.bm25);
});

test("another space's memories never move this space's statistics: the same hits, scores, terms and known, bit for bit", () => {
  const personal = Array.from({ length: 120 }, (_, i) => `${i % 3 ? "meadow" : "river"} stone ${i % 7} walk ${i}`);
  const alone = store().sqlite;
  add(alone, personal);
  const crowded = store().sqlite;
  add(crowded, personal);
  // Another space (another person's, in a household) full of this space's words, rare and common.
  add(
    crowded,
    Array.from({ length: 300 }, (_, i) => `river ${i} walk stone meadow ${i % 2 ? "quince" : ""}`),
    "work",
  );
  for (const q of ["river walk", "stone meadow", "quince river", "walk"]) {
    const a = keywordSearchScored(alone, "personal", q, 10);
    const b = keywordSearchScored(crowded, "personal", q, 10);
    assert.deepEqual(b, a, q);
    assert.deepEqual(cleanDenseQuery(crowded, "personal", q, 0.3), cleanDenseQuery(alone, "personal", q, 0.3), q);
  }
});

test("known: the share of the query's words the space holds at all, whatever their pruning", () => {
  const s = store();
  add(s.sqlite, ["kiwi pear plum", "kiwi lime plum"]);
  add(s.sqlite, ["mango papaya"], "other");
  assert.equal(keywordSearchScored(s.sqlite, "personal", "kiwi and plum", 10).known, 1);
  // "mango" is only in another space: unknown here, as a word never said.
  assert.equal(keywordSearchScored(s.sqlite, "personal", "kiwi mango quince plum", 10).known, 0.5);
  assert.equal(keywordSearchScored(s.sqlite, "personal", "quince", 10).known, 0);
});

test("a cached document frequency is read again once the writes since could have moved it by a tenth", () => {
  const s = store();
  const fillers = Array.from({ length: 50 }, (_, i) => `filler note ${i}`);
  add(s.sqlite, [...fillers, ...Array.from({ length: 10 }, (_, i) => `the shed holds tool ${i}`)]);
  const idfOf = () => keywordSearchScored(s.sqlite, "personal", "shed", 10).terms[0]!.idf;
  assert.equal(idfOf(), fts5Idf(60, 10));
  add(s.sqlite, ["the shed again"]); // one write: df can have moved by 1 of 10, the cached 10 stands
  assert.equal(idfOf(), fts5Idf(61, 10));
  add(s.sqlite, ["and the shed once more"]); // two writes since it was read: read again
  assert.equal(idfOf(), fts5Idf(62, 12));
  // A word no memory held is read again after any write: a document just ingested is known at once.
  assert.equal(keywordSearchScored(s.sqlite, "personal", "quince", 10).known, 0);
  add(s.sqlite, ["a quince tree by the shed"]);
  assert.equal(keywordSearchScored(s.sqlite, "personal", "quince", 10).known, 1);
});

test("bestFirst: the first m of a stable sort by bm25, ties in the rows' order, without sorting all", () => {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const random = Array.from({ length: 40 }, () => [
    1 + Math.floor(rand() * 400),
    1 + Math.floor(rand() * 120),
    1 + Math.floor(rand() * 30),
  ]);
  for (const [n, m, levels] of [
    [500, 100, 20],
    [500, 100, 3],
    [50, 100, 5],
    [300, 1, 4],
    [300, 300, 10],
    [1, 1, 1],
    ...random,
  ]) {
    const rows = Array.from({ length: n! }, (_, i) => ({ rid: i + 1, bm25: -Math.floor(rand() * levels!) }));
    const stable = [...rows].sort((a, b) => a.bm25 - b.bm25).slice(0, m);
    assert.deepEqual(
      bestFirst(rows, m).map((r) => r.rid),
      stable.map((r) => r.rid),
      `n=${n} m=${m} levels=${levels}`,
    );
  }
});
