/**
 * The fact store on a real SQLite file: a fact's row, sources, vector and keyword row written in one
 * transaction; supersede and history; validation that writes nothing; reads person-checked; search.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { runAs } from "../../core/acting";
import { StoreError } from "../../core/errors";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import {
  checkInvariant,
  factWrites,
  factsLiveInSpace,
  indexedRids,
  insertMemories,
  setShare,
  softDeleteMemories,
} from "../store";
import {
  confirmFact,
  deleteFacts,
  factHistory,
  factsOfMemories,
  getFact,
  insertFacts,
  listFacts,
  MAX_FACT_CHARS,
  MAX_FACTS_PER_CALL,
  restoreFacts,
  searchFacts,
  type NewFact,
} from "./store";

const DIM = 8;
const MODEL = "test-model";
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function store(): Database.Database {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  return s.sqlite;
}

function memories(db: Database.Database, texts: string[], spaceId = "personal", timestamp?: string): string[] {
  return insertMemories(
    db,
    texts.map((content) => ({ spaceId, content, timestamp })),
    texts.map((_, i) => axisVector(DIM, i)),
    MODEL,
  );
}

const fact = (text: string, sources: string[], extra: Partial<NewFact> = {}): NewFact => ({
  text,
  sources,
  origin: "import",
  ...extra,
});
const add = (db: Database.Database, items: NewFact[], spaceId = "personal") =>
  insertFacts(
    db,
    spaceId,
    items,
    items.map((_, i) => axisVector(DIM, i + 3)),
    MODEL,
  );
const count = (db: Database.Database, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

test("a fact is written with its sources, one vector and one keyword row, and reads back", () => {
  const db = store();
  const [m1, m2] = memories(
    db,
    ["User: my sister Lena lives in Porto", "User: Lena again"],
    "personal",
    "2024-03-02T10:00:00.000Z",
  );
  const [id] = add(db, [fact("  Mia's sister Lena lives in Porto  ", [m1!, m2!])]);
  const f = getFact(db, id!)!;
  assert.equal(f.text, "Mia's sister Lena lives in Porto", "trimmed");
  assert.deepEqual([...f.sources].sort(), [m1, m2].sort());
  assert.equal(f.validFrom, "2024-03-02T10:00:00.000Z", "no date in the text: the source's time");
  assert.equal(f.origin, "import");
  assert.equal(f.validTo, null);
  assert.equal(f.supersededBy, null);
  assert.equal(f.embeddingModel, MODEL);
  assert.equal(count(db, "fact_vectors"), 1);
  assert.deepEqual(indexedRids(db, "fact", "personal"), [f.rid]);
  assert.equal(factsLiveInSpace(db, "personal"), 1);
  assert.ok(factWrites(db, "personal") >= 1);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(
    listFacts(db, { spaceId: "personal" }).map((x) => x.id),
    [id],
  );
  assert.deepEqual([...factsOfMemories(db, [m1!]).keys()], [m1], "the memory's facts");
});

test("validFrom: given, else a past date the text names (relative to the source), else the source's time; a plan's date is not used", () => {
  const db = store();
  const [m] = memories(db, ["User: we moved to Lisbon last week"], "personal", "2024-06-10T12:00:00.000Z");
  const [given, relative, plan] = add(db, [
    fact("Moved to Lisbon", [m!], { validFrom: "2024-06-01" }),
    fact("Since last week the family lives in Lisbon", [m!]),
    fact("Plans a trip to Tokyo next month", [m!]),
  ]);
  assert.equal(getFact(db, given!)!.validFrom, "2024-06-01T00:00:00.000Z");
  const rel = Date.parse(getFact(db, relative!)!.validFrom);
  assert.ok(rel < Date.parse("2024-06-10T00:00:00.000Z") && rel > Date.parse("2024-05-25T00:00:00.000Z"), String(rel));
  assert.equal(getFact(db, plan!)!.validFrom, "2024-06-10T12:00:00.000Z", "a future date is a plan");
});

test("replaces: the old fact gets validTo and supersededBy in the same write, is kept, and the history shows both with dates", () => {
  const db = store();
  const [m1, m2] = memories(db, ["User: I live in Berlin", "User: we moved to Lisbon"]);
  const [berlin] = add(db, [fact("Lives in Berlin", [m1!], { validFrom: "2024-03-01" })]);
  const writes = factWrites(db, "personal");
  const [lisbon] = add(db, [fact("Lives in Lisbon", [m2!], { validFrom: "2024-06-15", replaces: [berlin!] })]);
  assert.ok(factWrites(db, "personal") >= writes + 2, "insert and supersede count as writes");
  const old = getFact(db, berlin!)!;
  assert.equal(old.supersededBy, lisbon);
  assert.equal(old.validTo, "2024-06-15T00:00:00.000Z");
  assert.deepEqual(
    listFacts(db, { spaceId: "personal" }).map((f) => f.text),
    ["Lives in Lisbon"],
    "current only",
  );
  assert.deepEqual(
    listFacts(db, { spaceId: "personal", history: true }).map((f) => f.text),
    ["Lives in Lisbon", "Lives in Berlin"],
  );
  for (const id of [berlin!, lisbon!]) {
    const h = factHistory(db, id);
    assert.deepEqual(
      h.map((f) => [f.text, f.validFrom, f.validTo]),
      [
        ["Lives in Lisbon", "2024-06-15T00:00:00.000Z", null],
        ["Lives in Berlin", "2024-03-01T00:00:00.000Z", "2024-06-15T00:00:00.000Z"],
      ],
    );
  }
  // A replaced fact stays indexed (history is searchable) but is no longer current: it cannot be replaced again.
  assert.equal(indexedRids(db, "fact", "personal").length, 2);
  assert.throws(() => add(db, [fact("Lives in Rome", [m2!], { replaces: [berlin!] })]), /not a current fact/);
  assert.deepEqual(checkInvariant(db), []);
});

test("bad input fails the whole call with a clear message and writes nothing", () => {
  const db = store();
  const [m] = memories(db, ["User: a live memory"]);
  const [trashed] = memories(db, ["User: a trashed memory"]);
  softDeleteMemories(db, [trashed!]);
  const [other] = memories(db, ["User: in another space"], "work");
  const [current] = add(db, [fact("A current fact", [m!])]);
  const before = ["facts", "fact_sources", "fact_vectors"].map((t) => count(db, t));
  const cases: [NewFact[], RegExp][] = [
    [[fact("   ", [m!])], /items\[0\]\.text must not be empty/],
    [[fact("x".repeat(MAX_FACT_CHARS + 1), [m!])], /at most 500 characters/],
    [[fact("no sources", [])], /at least one memory/],
    [
      [fact("ok", [m!]), fact("missing source", [crypto.randomUUID()])],
      /items\[1\]\.sources: memory .* is not a live memory of this space/,
    ],
    [[fact("trashed source", [trashed!])], /not a live memory of this space/],
    [[fact("source in another space", [other!])], /not a live memory of this space/],
    [[fact("replaces a missing fact", [m!], { replaces: [crypto.randomUUID()] })], /not a current fact of this space/],
    [
      [fact("one", [m!], { replaces: [current!] }), fact("two", [m!], { replaces: [current!] })],
      /replaced by another item too/,
    ],
    [[fact("bad date", [m!], { validFrom: "not a date" })], /validFrom must be an ISO-8601/],
    [[fact("bad origin", [m!], { origin: "guessed" as "learned" })], /origin must be one of/],
    [Array.from({ length: MAX_FACTS_PER_CALL + 1 }, (_, i) => fact(`fact ${i}`, [m!])), /at most 100 facts per call/],
    [[], /must not be empty/],
  ];
  for (const [items, message] of cases) {
    assert.throws(
      () => add(db, items),
      (e: unknown) => e instanceof StoreError && message.test(e.message),
      String(message),
    );
  }
  assert.throws(() => insertFacts(db, "personal", [fact("two vectors short", [m!])], [], MODEL), /one vector per fact/);
  assert.deepEqual(
    ["facts", "fact_sources", "fact_vectors"].map((t) => count(db, t)),
    before,
    "nothing written",
  );
  assert.equal(getFact(db, current!)!.supersededBy, null);
  assert.deepEqual(checkInvariant(db), []);
});

test("the same current text again adds its sources to the existing fact instead of a second fact", () => {
  const db = store();
  const [m1, m2] = memories(db, ["User: Lena lives in Porto", "User: yes, Porto"]);
  const [a] = add(db, [fact("Lena lives in Porto", [m1!])]);
  const [b, c] = add(db, [fact("Lena lives in Porto", [m2!]), fact("Lena lives in Porto", [m1!])]);
  assert.equal(b, a);
  assert.equal(c, a);
  assert.deepEqual([...getFact(db, a!)!.sources].sort(), [m1, m2].sort());
  assert.equal(count(db, "facts"), 1);
  assert.deepEqual(checkInvariant(db), []);
});

test("a person deleting a fact forgets it with its history; restoreFacts brings them back", () => {
  const db = store();
  const [m1, m2] = memories(db, ["User: Berlin", "User: Lisbon"]);
  const [berlin] = add(db, [fact("Lives in Berlin", [m1!])]);
  const [lisbon] = add(db, [fact("Lives in Lisbon", [m2!], { replaces: [berlin!] })]);
  assert.deepEqual(deleteFacts(db, [lisbon!, crypto.randomUUID()]), [lisbon]);
  assert.equal(getFact(db, lisbon!), undefined, "forgotten reads as missing");
  assert.equal(getFact(db, berlin!), undefined, "its earlier version went with it");
  assert.equal(getFact(db, lisbon!, { forgotten: true })!.deletedReason, "person");
  assert.deepEqual(listFacts(db, { spaceId: "personal", history: true }), []);
  assert.deepEqual(indexedRids(db, "fact", "personal"), []);
  assert.equal(count(db, "fact_vectors"), 0);
  assert.equal(count(db, "fact_vector_trash"), 2, "vectors parked for a restore");
  assert.equal(factsLiveInSpace(db, "personal"), 0);
  assert.deepEqual(checkInvariant(db), []);
  assert.deepEqual(deleteFacts(db, [lisbon!]), [], "already forgotten");
  assert.deepEqual(restoreFacts(db, [lisbon!]), [lisbon]);
  assert.deepEqual(
    factHistory(db, lisbon!).map((f) => f.text),
    ["Lives in Lisbon", "Lives in Berlin"],
  );
  assert.equal(count(db, "fact_vector_trash"), 0);
  assert.deepEqual(checkInvariant(db), []);
});

test("confirmFact stamps a live fact; searchFacts ranks by keyword and cosine, current only unless history", () => {
  const db = store();
  const [m] = memories(db, ["User: facts"]);
  const [dog, cat] = add(db, [fact("Has a dog called Rex", [m!]), fact("Works as a nurse in Leeds", [m!])]);
  assert.ok(confirmFact(db, dog!)!.confirmedAt);
  // keyword leg
  const kw = searchFacts(db, "personal", { text: "what is the dog's name" }, 5);
  assert.equal(kw[0]!.fact.id, dog);
  assert.ok(kw[0]!.bm25! < 0);
  assert.equal(kw[0]!.cosine, null, "no vector given");
  // cosine leg: the second fact's vector is axis 4 (add() gives item i axis i + 3)
  const vec = searchFacts(db, "personal", { text: "zzz", vector: axisVector(DIM, 4) }, 5);
  assert.equal(vec[0]!.fact.id, cat);
  assert.ok(Math.abs(vec[0]!.cosine! - 1) < 1e-6);
  assert.equal(vec[0]!.bm25, null);
  // another model's vectors are not compared
  assert.deepEqual(
    searchFacts(db, "personal", { text: "zzz", vector: axisVector(DIM, 4), model: "other-model" }, 5),
    [],
  );
  // history
  const [m2] = memories(db, ["User: new dog"]);
  add(db, [fact("Has a dog called Bo", [m2!], { replaces: [dog!] })]);
  assert.deepEqual(
    searchFacts(db, "personal", { text: "dog" }, 5).map((h) => h.fact.text),
    ["Has a dog called Bo"],
  );
  assert.equal(searchFacts(db, "personal", { text: "dog" }, 5, { history: true }).length, 2);
  assert.deepEqual(searchFacts(db, "no-such-space", { text: "dog" }, 5), []);
  assert.deepEqual(
    listFacts(db, { spaceId: "personal", q: "nurse" }).map((f) => f.id),
    [cat],
    "listFacts' keyword filter",
  );
});

test("facts are the person's: another person's fact id reads and writes as missing; a read-only sharee reads but cannot write", () => {
  const db = store();
  db.prepare("INSERT INTO people (id, name, login) VALUES ('p2', 'P2', 'p2')").run();
  const [m] = memories(db, ["User: owner's memory"]);
  const [[shared]] = [memories(db, ["User: shared memory"], "recipes")];
  const [mine] = add(db, [fact("The owner's fact", [m!])]);
  const [inShared] = add(db, [fact("Sourdough needs a starter", [shared!])], "recipes");
  const p2 = { personId: "p2", admin: false };
  runAs(p2, () => {
    assert.equal(getFact(db, mine!), undefined);
    assert.deepEqual(factHistory(db, mine!), []);
    assert.deepEqual(listFacts(db), []);
    assert.deepEqual(listFacts(db, { spaceId: "personal" }), []);
    assert.equal(factsOfMemories(db, [m!]).size, 0);
    assert.deepEqual(searchFacts(db, "personal", { text: "owner fact" }, 5), []);
    assert.deepEqual(deleteFacts(db, [mine!]), []);
    assert.equal(confirmFact(db, mine!), undefined);
    assert.throws(() => add(db, [fact("p2 writes into the owner's space", [m!])]), /does not exist/);
  });
  assert.ok(getFact(db, mine!), "the owner's fact is intact");
  setShare(db, "recipes", "p2", "read");
  runAs(p2, () => {
    assert.equal(getFact(db, inShared!)!.text, "Sourdough needs a starter");
    assert.equal(listFacts(db, { spaceId: "recipes" }).length, 1);
    assert.equal(listFacts(db).length, 0, "all of p2's own spaces: a shared one only when named");
    assert.deepEqual(deleteFacts(db, [inShared!]), [], "read-only");
    assert.throws(() => add(db, [fact("p2 writes", [shared!])], "recipes"), /read-only/);
  });
  setShare(db, "recipes", "p2", "write");
  runAs(p2, () => {
    const [p2fact] = add(db, [fact("Rye needs more water", [shared!])], "recipes");
    assert.equal(getFact(db, p2fact!)!.writtenBy, "p2");
  });
  assert.deepEqual(checkInvariant(db), []);
});
