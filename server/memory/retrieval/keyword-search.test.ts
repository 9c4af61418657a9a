import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import {
  buildFtsQuery,
  DEFAULT_KEYWORD_OPTIONS,
  keywordSearchScored,
  queryWords,
  quoteFtsTerm,
} from "./keyword-search";
import { insertMemories, matchText, softDeleteMemories } from "../store";

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

const matchRids = (db: Database.Database, expr: string) =>
  matchText(db, "memory", "personal", expr)
    .map((r) => r.rid)
    .sort((a, b) => a - b);

test("terms are quoted and OR-ed, lower-cased, in query order when no store is given", () => {
  assert.equal(buildFtsQuery(null, "personal", "Coffee beans and TEA"), '"coffee" OR "beans" OR "tea"');
  // One term per stem: run / running / runs are the same FTS term (porter).
  assert.equal(buildFtsQuery(null, "personal", "run running runs"), '"run"');
  // Single letters go, single digits and numbers stay.
  assert.equal(buildFtsQuery(null, "personal", "x 5 2024 q"), '"5" OR "2024"');
});

test("quoteFtsTerm doubles quotes; FTS5 accepts the result as one term", () => {
  assert.equal(quoteFtsTerm('say "hi"'), '"say ""hi"""');
  assert.equal(quoteFtsTerm("a*b"), '"a*b"');
  const s = store();
  add(s.sqlite, ['they say "hi" to everyone']);
  assert.deepEqual(matchRids(s.sqlite, quoteFtsTerm('"hi"')), [1]);
});

test("FTS5 syntax in user text: every expression is accepted by a real memory_fts and matches OR-wise", () => {
  const s = store();
  const db = s.sqlite;
  add(db, [
    "quoted words appear here", // 1
    "cats sleep all day", // 2
    "dogs bark at night", // 3
    "alpha centauri is near", // 4
    "apples and pears", // 5
    "the excluded term", // 6
    "the secret content", // 7
    "start of something", // 8
    "Café über alles", // 9
    "東京タワー", // 10
    "my puppy is cute", // 11
  ]);
  const cases: { input: string; expr: string; rids: number[] }[] = [
    { input: 'say "quoted', expr: '"quoted"', rids: [1] },
    { input: 'quot"ed"', expr: '"ed" OR "quot"', rids: [1] }, // rarest first; porter: quoted → quot
    { input: "quoted*", expr: '"quoted"', rids: [1] },
    { input: "cats AND( dogs", expr: '"cats" OR "dogs"', rids: [2, 3] },
    { input: "NEAR(alpha beta)", expr: '"near" OR "alpha" OR "beta"', rids: [4] },
    { input: "apples OR pears", expr: '"apples" OR "pears"', rids: [5] },
    { input: "-excluded term", expr: '"excluded" OR "term"', rids: [6] },
    { input: "content:secret", expr: '"content" OR "secret"', rids: [7] },
    { input: "^start", expr: '"start"', rids: [8] },
    { input: "cafe UBER", expr: '"cafe" OR "uber"', rids: [9] },
    { input: "café über", expr: '"café" OR "über"', rids: [9] },
    { input: "東京タワー", expr: '"東京タワー"', rids: [10] },
    { input: "🐶 puppy 🎉", expr: '"puppy"', rids: [11] },
    { input: "puppy \u0301\u0301", expr: '"puppy" OR "\u0301\u0301"', rids: [11] }, // marks only: FTS5 sees no token
    { input: "(((", expr: "", rids: [] },
  ];
  for (const c of cases) {
    const expr = buildFtsQuery(db, "personal", c.input);
    if (c.expr === "") {
      assert.equal(expr, null, c.input);
      continue;
    }
    // Quoted terms joined by OR (order is rarest first, so compare as sets).
    assert.match(expr!, /^"[^"]+"( OR "[^"]+")*$/, c.input);
    assert.deepEqual(expr!.split(" OR ").sort(), c.expr.split(" OR ").sort(), c.input);
    assert.deepEqual(matchRids(db, expr!), c.rids, c.input);
    assert.deepEqual(
      keywordSearch(db, "personal", c.input, 10)
        .map((h) => h.rid)
        .sort((a, b) => a - b),
      c.rids,
      `keywordSearch(${c.input})`,
    );
  }
  // The same strings passed raw are FTS5 syntax errors: the escaping is what makes them safe.
  for (const raw of ['say "quoted', "cats AND( dogs", "-excluded term", "note:secret", "quoted words)", "*"]) {
    assert.throws(() => matchRids(db, raw), { name: "SqliteError" }, raw);
  }
});

test("words match independently (OR), never as a phrase", () => {
  const s = store();
  add(s.sqlite, ["bananas grow in the tropics", "apples grow in orchards", "nothing relevant"]);
  const hits = keywordSearch(s.sqlite, "personal", "apples bananas", 10);
  assert.deepEqual(hits.map((h) => h.rid).sort(), [1, 2]);
  // As a phrase it would find nothing.
  assert.deepEqual(matchRids(s.sqlite, '"apples bananas"'), []);
});

test("stopwords are dropped; a query of only stopwords has no keyword leg", () => {
  assert.equal(buildFtsQuery(null, "personal", "what is the"), null);
  assert.equal(buildFtsQuery(null, "personal", "The dog and I"), '"dog"');
  assert.equal(buildFtsQuery(null, "personal", "do you remember my dog?"), '"dog"');
  assert.equal(buildFtsQuery(null, "personal", "don't"), null);
  assert.deepEqual(queryWords("Don't STOP—now!"), ["don", "t", "stop", "now"]);
});

test("over-common terms (> maxDocFraction of ≥ 50 memories) are dropped, rarest first", () => {
  const s = store();
  const docs: string[] = [];
  for (let i = 0; i < 60; i++) {
    const parts = [`coffee note${i}`];
    if (i < 30) parts.push("milk"); // 30/60 = 0.5 > 0.4: too common
    if (i < 20) parts.push("tea"); // 20/60 ≈ 0.33: kept
    if (i === 0) parts.push("zebra"); // 1/60
    docs.push(parts.join(" "));
  }
  add(s.sqlite, docs);
  assert.equal(buildFtsQuery(s.sqlite, "personal", "coffee milk tea zebra"), '"zebra" OR "tea"');
  // Only common words: the rarest one is kept rather than nothing.
  assert.equal(buildFtsQuery(s.sqlite, "personal", "coffee"), '"coffee"');
  assert.equal(buildFtsQuery(s.sqlite, "personal", "coffee milk"), '"milk"');
  // A looser threshold keeps milk (0.5 ≤ 0.6) but still not coffee (1.0).
  assert.equal(
    buildFtsQuery(s.sqlite, "personal", "coffee milk tea", { maxDocFraction: 0.6, maxTerms: 12 }),
    '"tea" OR "milk"',
  );
  // keywordSearch uses the filtered expression: "coffee zebra" finds only the zebra memory.
  assert.deepEqual(
    keywordSearch(s.sqlite, "personal", "coffee zebra", 100).map((h) => h.rid),
    [1],
  );
});

test("under 50 memories nothing is dropped as too common", () => {
  const s = store();
  add(
    s.sqlite,
    Array.from({ length: 49 }, (_, i) => `coffee item${i}`),
  );
  assert.equal(buildFtsQuery(s.sqlite, "personal", "coffee item3"), '"item3" OR "coffee"');
});

test("at most maxTerms terms, the rarest kept", () => {
  const s = store();
  // word k appears in k memories.
  const docs = Array.from({ length: 10 }, (_, d) =>
    Array.from({ length: 10 }, (_, k) => (d < k + 1 ? `term${k}` : ""))
      .join(" ")
      .trim(),
  );
  add(s.sqlite, docs);
  const q = Array.from({ length: 10 }, (_, k) => `term${9 - k}`).join(" ");
  assert.equal(
    buildFtsQuery(s.sqlite, "personal", q, { maxDocFraction: 1, maxTerms: 3 }),
    '"term0" OR "term1" OR "term2"',
  );
  assert.equal(buildFtsQuery(s.sqlite, "personal", q, DEFAULT_KEYWORD_OPTIONS)!.split(" OR ").length, 10);
});

test("keywordSearch stays in its space, honours the limit, ranks by bm25, skips soft-deleted memories", () => {
  const s = store();
  const db = s.sqlite;
  const [, dense] = add(db, [
    "giraffe facts: tall animals with long legs and many other words here",
    "giraffe giraffe giraffe",
  ]);
  add(db, ["giraffe in another space"], "work");
  const hits = keywordSearch(db, "personal", "giraffe", 10);
  assert.deepEqual(
    hits.map((h) => h.rid),
    [2, 1],
  );
  assert.ok(hits[0]!.bm25 < hits[1]!.bm25 && hits[1]!.bm25 < 0, "bm25 is negative, best (lowest) first");
  assert.deepEqual(
    keywordSearch(db, "work", "giraffe", 10).map((h) => h.rid),
    [3],
  );
  assert.equal(keywordSearch(db, "personal", "giraffe", 1).length, 1);
  assert.deepEqual(keywordSearch(db, "nowhere", "giraffe", 10), []);
  // bm25 from the space's own table: the work space's hit scores as a one-memory space's only match.
  assert.equal(keywordSearchScored(db, "work", "giraffe", 10).scores.size, 1);
  softDeleteMemories(db, [dense!]);
  assert.deepEqual(
    keywordSearch(db, "personal", "giraffe", 10).map((h) => h.rid),
    [1],
  );
  assert.deepEqual(keywordSearch(db, "personal", "the of and", 10), []);
});

test("fuzz: any mix of FTS5 syntax, quotes, unicode and words yields an expression FTS5 accepts", () => {
  const s = store();
  add(s.sqlite, ["alpha beta gamma", "café 東京 near", "quoted stuff here"]);
  const parts = [
    '"',
    "'",
    "*",
    "(",
    ")",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(",
    "-",
    "+",
    ":",
    "^",
    "{",
    "}",
    "[",
    "]",
    "\\",
    "%",
    "_",
    ",",
    "alpha",
    "gamma",
    "café",
    "É",
    "ü",
    "東京",
    "🐶",
    "\u0301",
    "0",
    "42",
    "content:",
    "col:x",
    " ",
    "\t",
    "\n",
    "\u0000",
    "\uFFFD",
  ];
  let seed = 12345;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % n);
  for (let i = 0; i < 500; i++) {
    const q = Array.from({ length: 1 + rnd(8) }, () => parts[rnd(parts.length)]).join(rnd(2) ? " " : "");
    const expr = buildFtsQuery(s.sqlite, "personal", q);
    if (expr === null) continue;
    assert.match(expr, /^"(?:[^"]|"")+"(?: OR "(?:[^"]|"")+")*$/, q);
    assert.doesNotThrow(() => matchRids(s.sqlite, expr), `MATCH ${expr} (from ${JSON.stringify(q)})`);
    assert.doesNotThrow(() => keywordSearch(s.sqlite, "personal", q, 10), JSON.stringify(q));
  }
});
