/**
 * Facts follow their space: a rename carries them (rows, vectors, keyword table, parked vectors of forgotten
 * ones, live counts), deleting a space removes every trace of them, and removing a person removes theirs and
 * nothing of anyone else's.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { removePersonData } from "../../services/people-service";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import {
  checkInvariant,
  deleteSpace,
  factsLiveInSpace,
  indexedRids,
  insertMemories,
  renameSpace,
  softDeleteMemories,
  restoreMemories,
} from "../store";
import { getFact, insertFacts, searchFacts } from "./store";

const DIM = 8;
const MODEL = "test-model";
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function store(): Database.Database {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  return s.sqlite;
}
const n = (db: Database.Database, sql: string, ...p: unknown[]) => (db.prepare(sql).get(...p) as { n: number }).n;

function seed(db: Database.Database, spaceId: string) {
  const [m1, m2] = insertMemories(
    db,
    [
      { spaceId, content: "User: my bike is a red Gazelle" },
      { spaceId, content: "User: I play the cello" },
    ],
    [axisVector(DIM, 0), axisVector(DIM, 1)],
    MODEL,
  );
  const [bike, cello] = insertFacts(
    db,
    spaceId,
    [
      { text: "Rides a red Gazelle bike", sources: [m1!], origin: "learned" },
      { text: "Plays the cello", sources: [m2!], origin: "learned" },
    ],
    [axisVector(DIM, 2), axisVector(DIM, 3)],
    MODEL,
  );
  softDeleteMemories(db, [m2!]); // the cello fact is forgotten: its vector parked
  return { m1: m1!, m2: m2!, bike: bike!, cello: cello! };
}

test("renaming a space carries its facts: rows, vectors, keyword rows, parked vectors and counts", () => {
  const db = store();
  const s = seed(db, "home");
  const r = renameSpace(db, "home", "family");
  assert.equal(r.moved.facts, 2);
  assert.equal(r.moved.fact_vectors, 1);
  assert.equal(getFact(db, s.bike)!.spaceId, "family");
  assert.equal(searchFacts(db, "family", { text: "gazelle", vector: axisVector(DIM, 2) }, 5)[0]?.fact.id, s.bike);
  assert.deepEqual(searchFacts(db, "home", { text: "gazelle" }, 5), []);
  assert.equal(indexedRids(db, "fact", "family").length, 1);
  assert.equal(factsLiveInSpace(db, "family"), 1);
  assert.equal(factsLiveInSpace(db, "home"), 0);
  assert.deepEqual(checkInvariant(db), []);
  restoreMemories(db, [s.m2]);
  assert.equal(getFact(db, s.cello)!.spaceId, "family", "a forgotten fact comes back in the renamed space");
  assert.equal(indexedRids(db, "fact", "family").length, 2);
  assert.deepEqual(checkInvariant(db), []);
});

test("deleting a space removes its facts from every table and leaves other spaces' facts", () => {
  const db = store();
  seed(db, "home");
  const w = seed(db, "work");
  const r = deleteSpace(db, "home");
  assert.equal(r.removed.facts, 2);
  const inHome = "(SELECT rid FROM facts WHERE space_id = 'work')";
  assert.equal(n(db, "SELECT count(*) AS n FROM facts"), 2);
  assert.equal(n(db, `SELECT count(*) AS n FROM fact_vectors WHERE rid NOT IN ${inHome}`), 0);
  assert.equal(n(db, `SELECT count(*) AS n FROM fact_vector_trash WHERE rid NOT IN ${inHome}`), 0);
  assert.equal(n(db, "SELECT count(*) AS n FROM fact_sources WHERE fact_id NOT IN (SELECT id FROM facts)"), 0);
  assert.equal(getFact(db, w.bike)!.text, "Rides a red Gazelle bike");
  assert.deepEqual(checkInvariant(db), []);
});

test("removing a person removes their facts and nothing of the owner's", () => {
  const db = store();
  db.prepare("INSERT INTO people (id, name, login) VALUES ('p2', 'P2', 'p2')").run();
  const owner = seed(db, "personal");
  seed(db, "p2~personal");
  removePersonData(db, "p2");
  assert.equal(n(db, "SELECT count(*) AS n FROM facts WHERE space_id LIKE 'p2~%'"), 0);
  assert.equal(n(db, "SELECT count(*) AS n FROM facts"), 2);
  assert.equal(
    n(db, "SELECT count(*) AS n FROM fact_vectors") + n(db, "SELECT count(*) AS n FROM fact_vector_trash"),
    2,
  );
  assert.ok(getFact(db, owner.bike));
  assert.deepEqual(checkInvariant(db), []);
});
