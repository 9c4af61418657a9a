/**
 * Duplicate facts on a real store: the normalised text that decides what is a duplicate (the measured pairs
 * of docs/jobs.md#duplicate-facts), the pairs found (oldest kept, never across spaces or writers), a merge
 * (sources united, the other one its history) and its undo restoring the rows exactly.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { runAs } from "../../core/acting";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { checkInvariant, insertMemories, purgeMemories, restoreMemories, setShare, softDeleteMemories } from "../store";
import { duplicateKey, findDuplicateFacts, mergeDuplicateFact, unmergeFacts } from "./duplicates";
import { confirmFact, deleteFacts, factHistory, getFact, insertFacts, listFacts, type NewFact } from "./store";

const DIM = 8;
const MODEL = "test-model";
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function store(): Database.Database {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  s.sqlite.prepare("INSERT INTO people (id, name, login) VALUES ('p2', 'P2', 'p2')").run();
  return s.sqlite;
}
const P2 = { personId: "p2", admin: false };

function memory(db: Database.Database, spaceId: string, content: string, timestamp: string): string {
  return insertMemories(db, [{ spaceId, content, timestamp }], [axisVector(DIM, 0)], MODEL)[0]!;
}
function fact(db: Database.Database, spaceId: string, text: string, sources: string[], extra: Partial<NewFact> = {}) {
  return insertFacts(db, spaceId, [{ text, sources, origin: "learned", ...extra }], [axisVector(DIM, 1)], MODEL)[0]!;
}
/** Every column of every fact row and every source row: what an undo must give back exactly. */
const snapshot = (db: Database.Database) => ({
  facts: db.prepare("SELECT * FROM facts ORDER BY rid").all(),
  sources: db.prepare("SELECT * FROM fact_sources ORDER BY fact_id, memory_id").all(),
});

test("duplicateKey: the same statement in other case, punctuation, spacing or articles; nothing that changes what it says", () => {
  // Pairs measured in docs/jobs.md#duplicate-facts: duplicates whose normalised texts are equal ...
  for (const [a, b] of [
    ["Lives in Lisbon", "lives in lisbon"],
    ["Lives in Lisbon", "Lives in Lisbon."],
    ["The user lives in Lisbon", "User lives in Lisbon"],
    ["Is vegetarian", "Is a vegetarian"],
    ["Plays the guitar", "Plays guitar"],
    ["Mia's sister  Lena lives in Porto", "mia’s sister Lena lives in Porto!"],
    ["Ｌｉｖｅｓ in Lisbon", "Lives in Lisbon"],
  ])
    assert.equal(duplicateKey(a!), duplicateKey(b!), `${a} = ${b}`);
  // ... and different facts the embedding model puts at 0.90–0.99 cosine, which must stay apart.
  for (const [a, b] of [
    ["Birthday is on 12 March", "Birthday is on 12 May"],
    ["Has two children", "Has three children"],
    ["Has 2 cats", "Has 3 cats"],
    ["Is vegetarian", "Is not vegetarian"],
    ["Has a car", "Has no car"],
    ["Lena is Mia's sister", "Mia is Lena's sister"],
    ["Tom owes Anna 50 euros", "Anna owes Tom 50 euros"],
    ["Moved to Lisbon after the wedding", "Moved to Lisbon before the wedding"],
    ["Likes tea more than coffee", "Likes coffee more than tea"],
    ["Drives a red Toyota Corolla", "Drives a blue Toyota Corolla"],
    ["Costs 3.5 euros", "Costs 35 euros"],
  ])
    assert.notEqual(duplicateKey(a!), duplicateKey(b!), `${a} ≠ ${b}`);
  assert.equal(duplicateKey(" — the . "), "", "a text of only articles and punctuation has no key");
});

test("duplicates are found per space and per writer, the oldest kept; a merge unites the sources and keeps the other as history", () => {
  const db = store();
  const m1 = memory(db, "personal", "User: I moved to Lisbon", "2024-03-01T10:00:00.000Z");
  const m2 = memory(db, "personal", "User: Lisbon is home now", "2024-06-01T10:00:00.000Z");
  const m3 = memory(db, "personal", "User: living in lisbon", "2024-09-01T10:00:00.000Z");
  const other = memory(db, "work", "User: the office is in Lisbon", "2024-01-01T10:00:00.000Z");
  const old = fact(db, "personal", "Lives in Lisbon", [m1]);
  const newer = fact(db, "personal", "Lives in Lisbon.", [m2, m1]);
  const newest = fact(db, "personal", "lives in lisbon", [m3]);
  const inWork = fact(db, "work", "Lives in Lisbon", [other]);
  fact(db, "personal", "Lives in Porto", [m3]);

  const found = findDuplicateFacts(db, "personal");
  assert.equal(found.compared, 4);
  assert.deepEqual(
    found.duplicates.map((d) => [d.keep.id, d.merge.id]),
    [
      [old, newer],
      [old, newest],
    ],
  );
  assert.deepEqual(findDuplicateFacts(db, "work").duplicates, [], "one fact alone in its space: nothing to merge");

  confirmFact(db, newest, "2024-10-01T00:00:00.000Z");
  const before = snapshot(db);
  const records = found.duplicates.map((d) => mergeDuplicateFact(db, d)!);
  assert.deepEqual(
    records.map((r) => [r.keep, r.merged, r.addedSources, r.confirmedAt]),
    [
      [old, newer, [m2]],
      [old, newest, [m3], "2024-10-01T00:00:00.000Z"],
    ].map(([k, m, s, c]) => [k, m, s, c ?? null]),
  );
  const kept = getFact(db, old)!;
  assert.deepEqual(kept.sources, [m1, m2, m3].sort());
  assert.equal(kept.validFrom, "2024-03-01T10:00:00.000Z", "the older fact keeps its date");
  assert.equal(kept.confirmedAt, "2024-10-01T00:00:00.000Z", "a confirmation of a duplicate carries over");
  assert.deepEqual(
    listFacts(db, { spaceId: "personal" }).map((f) => f.text),
    ["Lives in Porto", "Lives in Lisbon"],
  );
  const history = factHistory(db, old);
  assert.deepEqual(
    history.map((f) => [f.id, f.supersededBy, f.validTo === f.validFrom]),
    [
      [newest, old, true],
      [newer, old, true],
      [old, null, false],
    ],
  );
  assert.equal(getFact(db, inWork)!.supersededBy, null, "never across spaces");
  assert.deepEqual(findDuplicateFacts(db, "personal").duplicates, [], "nothing left to merge");
  assert.equal(mergeDuplicateFact(db, found.duplicates[0]!), null, "a merge already done writes nothing");
  assert.deepEqual(checkInvariant(db), []);

  // A duplicate's sources keep the kept fact alive: m1 and m2 going leaves it m3.
  softDeleteMemories(db, [m1, m2]);
  assert.ok(getFact(db, old));
  assert.deepEqual(checkInvariant(db), []);
  restoreMemories(db, [m1, m2]);

  assert.deepEqual(unmergeFacts(db, records), { restored: 2, missing: [] });
  assert.deepEqual(snapshot(db), before, "the undo gives back every row exactly");
  assert.deepEqual(checkInvariant(db), []);
});

test("never across people: a read-write sharee's fact in the owner's space is not merged with the owner's", () => {
  const db = store();
  setShare(db, "personal", "p2", "write");
  const m1 = memory(db, "personal", "User: I play the cello", "2024-03-01T10:00:00.000Z");
  const mine = fact(db, "personal", "Plays the cello", [m1]);
  // p2's fact from p2's own words in the owner's space (a learned fact is its sources' writer's: issue 54).
  const said = runAs(P2, () => memory(db, "personal", "User: I play the cello as well", "2024-03-01T11:00:00.000Z"));
  const theirs = runAs(P2, () => fact(db, "personal", "Plays the cello.", [said]));
  assert.equal(getFact(db, theirs)!.writtenBy, "p2");
  // And p2's own space with the same statement: another space, another person.
  const m2 = memory(db, "p2~personal", "User: I play the cello too", "2024-03-02T10:00:00.000Z");
  const own = fact(db, "p2~personal", "Plays the cello", [m2]);
  assert.deepEqual(findDuplicateFacts(db, "personal").duplicates, []);
  assert.deepEqual(findDuplicateFacts(db, "p2~personal").duplicates, []);
  // A forged pair across writers is refused at write time too.
  const forged = {
    spaceId: "personal",
    keep: {
      id: mine,
      text: "Plays the cello",
      validFrom: getFact(db, mine)!.validFrom,
      contentHash: getFact(db, mine)!.contentHash,
    },
    merge: { id: theirs, text: "Plays the cello.", validFrom: "", contentHash: getFact(db, theirs)!.contentHash },
  };
  assert.equal(mergeDuplicateFact(db, forged), null);
  assert.equal(getFact(db, theirs)!.supersededBy, null);
  assert.equal(getFact(db, own)!.supersededBy, null);
});

test("a merge checks the facts again: changed, replaced or deleted since it was found writes nothing", () => {
  const db = store();
  const m = memory(db, "personal", "User: I am vegetarian", "2024-03-01T10:00:00.000Z");
  const a = fact(db, "personal", "Is vegetarian", [m]);
  const b = fact(db, "personal", "Is a vegetarian", [m]);
  const [d] = findDuplicateFacts(db, "personal").duplicates;
  deleteFacts(db, [b]);
  assert.equal(mergeDuplicateFact(db, d!), null);
  assert.equal(getFact(db, a)!.supersededBy, null);
});

test("undo after the merged fact was deleted leaves that merge; a kept fact left with no stored source goes", () => {
  const db = store();
  const m1 = memory(db, "personal", "User: I am vegetarian", "2024-03-01T10:00:00.000Z");
  const m2 = memory(db, "personal", "User: still vegetarian", "2024-04-01T10:00:00.000Z");
  const a = fact(db, "personal", "Is vegetarian", [m1]);
  const b = fact(db, "personal", "Is a vegetarian", [m2]);
  const [d] = findDuplicateFacts(db, "personal").duplicates;
  const rec = mergeDuplicateFact(db, d!)!;
  // The kept fact's own source is purged meanwhile: it lives on the duplicate's source alone.
  purgeMemories(db, [m1]);
  assert.deepEqual(getFact(db, a)!.sources, [m2]);
  assert.deepEqual(unmergeFacts(db, [rec]), { restored: 1, missing: [] });
  assert.equal(
    getFact(db, a, { forgotten: true }),
    undefined,
    "with no source left it is deleted, as a purge would have",
  );
  assert.equal(getFact(db, b)!.supersededBy, null, "the duplicate is current again");
  assert.deepEqual(checkInvariant(db), []);

  // Merged again, then the person deletes the kept fact (its history, the duplicate, goes with it).
  const m3 = memory(db, "personal", "User: vegetarian for years", "2024-05-01T10:00:00.000Z");
  const c = fact(db, "personal", "is vegetarian", [m3]);
  const [d2] = findDuplicateFacts(db, "personal").duplicates;
  assert.deepEqual([d2!.keep.id, d2!.merge.id], [b, c]);
  const rec2 = mergeDuplicateFact(db, d2!)!;
  deleteFacts(db, [b]);
  assert.deepEqual(unmergeFacts(db, [rec2]), { restored: 0, missing: [c] });
  assert.equal(getFact(db, c), undefined, "still forgotten with the fact it was merged into");
  assert.deepEqual(checkInvariant(db), []);
});
