/**
 * Forgetting stays truthful (issue 42 item 5), through the real paths that remove memories: /forget and its
 * undo, deleting a chat with its memories, the Manager's delete and purge, decay's expiry and purge. A fact
 * whose every source went is forgotten with its history, comes back with a source's restore, and is
 * deleted for good with a purge; a fact with a live source left stays; a fact a person deleted stays deleted.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { deleteChat } from "../../chat/delete-chat";
import { createConversation } from "../../chat/conversations";
import type { MemoContext } from "../../core/context";
import { purgeMany, restoreMany, softDeleteMany } from "../../services/manager-service";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { TestDimEmbedder } from "../../test/test-dim-embedder";
import { forget, restore } from "../lifecycle/forget";
import { runDecay } from "../lifecycle/decay";
import { checkInvariant, indexedRids, insertMemories, type NewMemory } from "../store";
import { deleteFacts, factHistory, getFact, insertFacts, listFacts, restoreFacts, type NewFact } from "./store";

const DIM = 8;
const MODEL = "test-model";
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function ctx(): MemoContext {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  return { db: s.sqlite, embedder: new TestDimEmbedder() };
}

function memory(db: Database.Database, content: string, extra: Partial<NewMemory> = {}): string {
  return insertMemories(db, [{ spaceId: "personal", content, ...extra }], [axisVector(DIM, content.length)], MODEL)[0]!;
}
function addFact(db: Database.Database, text: string, sources: string[], extra: Partial<NewFact> = {}): string {
  return insertFacts(db, "personal", [{ text, sources, origin: "learned", ...extra }], [axisVector(DIM, 5)], MODEL)[0]!;
}
const live = (db: Database.Database, id: string) => getFact(db, id) !== undefined;
const stored = (db: Database.Database, id: string) => getFact(db, id, { forgotten: true }) !== undefined;

test("/forget forgets the facts whose every source went, with their history; a fact with a source left stays; the undo brings them back", () => {
  const c = ctx();
  const berlinM = memory(c.db, "User: I live in Berlin");
  const lisbonM = memory(c.db, "User: we moved to Lisbon, Portugal");
  const otherM = memory(c.db, "User: Lena visits us in Lisbon often");
  const berlin = addFact(c.db, "Lives in Berlin", [berlinM]);
  const lisbon = addFact(c.db, "Lives in Lisbon", [lisbonM], { replaces: [berlin] });
  const lena = addFact(c.db, "Lena visits often", [lisbonM, otherM]);
  const r = forget(c, "moved to Lisbon");
  assert.deepEqual(r.undo.ids, [lisbonM]);
  assert.equal(live(c.db, lisbon), false, "its only source went");
  assert.equal(live(c.db, berlin), false, "its earlier version went with it, although Berlin's own source is live");
  assert.equal(live(c.db, lena), true, "another source is live");
  assert.equal(getFact(c.db, lisbon, { forgotten: true })!.deletedReason, "sources");
  assert.deepEqual(
    listFacts(c.db, { spaceId: "personal", history: true }).map((f) => f.text),
    ["Lena visits often"],
  );
  assert.equal(indexedRids(c.db, "fact", "personal").length, 1, "out of the keyword index");
  assert.deepEqual(checkInvariant(c.db), []);
  restore(c, r.undo.ids);
  assert.equal(live(c.db, lisbon), true);
  assert.deepEqual(
    factHistory(c.db, lisbon).map((f) => f.text),
    ["Lives in Lisbon", "Lives in Berlin"],
    "the undo brought the history back",
  );
  assert.deepEqual(checkInvariant(c.db), []);
});

test("an earlier version brought back with a restore but without a live source of its own is forgotten again", () => {
  const c = ctx();
  const berlinM = memory(c.db, "User: Berlin");
  const lisbonM = memory(c.db, "User: Lisbon now");
  const berlin = addFact(c.db, "Lives in Berlin", [berlinM]);
  const lisbon = addFact(c.db, "Lives in Lisbon", [lisbonM], { replaces: [berlin] });
  softDeleteMany(c.db, [lisbonM]); // both facts go (Lisbon's root)
  softDeleteMany(c.db, [berlinM]); // Berlin was already forgotten
  restoreMany(c.db, [lisbonM]);
  assert.equal(live(c.db, lisbon), true);
  assert.equal(live(c.db, berlin), false, "its own source is still in the trash");
  restoreMany(c.db, [berlinM]);
  assert.equal(live(c.db, berlin), true, "and back with its source");
  assert.deepEqual(checkInvariant(c.db), []);
});

test("a fact a person deleted does not come back when its source is restored", () => {
  const c = ctx();
  const m = memory(c.db, "User: I have a cat");
  const f = addFact(c.db, "Has a cat", [m]);
  deleteFacts(c.db, [f]);
  softDeleteMany(c.db, [m]);
  restoreMany(c.db, [m]);
  assert.equal(live(c.db, f), false);
  assert.equal(getFact(c.db, f, { forgotten: true })!.deletedReason, "person");
  // Its source gone, the person's undo cannot bring it back, and it stays the person's deletion (a later
  // restore of the source does not bring it back either).
  softDeleteMany(c.db, [m]);
  assert.deepEqual(restoreFacts(c.db, [f]), []);
  assert.equal(getFact(c.db, f, { forgotten: true })!.deletedReason, "person");
  restoreMany(c.db, [m]);
  assert.equal(live(c.db, f), false);
  assert.deepEqual(restoreFacts(c.db, [f]), [f], "with its source back, the undo works");
  assert.deepEqual(checkInvariant(c.db), []);
});

test("deleting a chat with its memories forgets their facts; the undo brings them back", () => {
  const c = ctx();
  const conv = createConversation(c.db, { title: "Moving" });
  const m = memory(c.db, "User: we adopted a dog called Rex", { conversationId: conv.id });
  const kept = memory(c.db, "User: a /remember outside the chat");
  const rex = addFact(c.db, "Has a dog called Rex", [m]);
  const other = addFact(c.db, "Remembered note", [kept]);
  const r = deleteChat(c, conv.id, { forget: true });
  assert.equal(r.forgotten!.count, 1);
  assert.equal(live(c.db, rex), false);
  assert.equal(live(c.db, other), true);
  restore(c, r.forgotten!.undo.ids);
  assert.equal(live(c.db, rex), true);
  assert.deepEqual(checkInvariant(c.db), []);
});

test("purging deletes for good the facts left with no source, with their earlier versions; one with a trashed source left is forgotten", () => {
  const c = ctx();
  const a = memory(c.db, "User: source a");
  const b = memory(c.db, "User: source b");
  const d = memory(c.db, "User: source d");
  const old = addFact(c.db, "Old value", [d]);
  const only = addFact(c.db, "Only from a", [a], { replaces: [old] });
  const both = addFact(c.db, "From a and b", [a, b]);
  softDeleteMany(c.db, [b]);
  assert.equal(live(c.db, both), true, "a is live");
  purgeMany(c.db, [a]);
  assert.equal(stored(c.db, only), false, "deleted for good");
  assert.equal(stored(c.db, old), false, "with its earlier version, although d is live");
  assert.equal(live(c.db, both), false, "b is in the trash: forgotten");
  assert.equal(stored(c.db, both), true, "restorable with b");
  restoreMany(c.db, [b]);
  assert.equal(live(c.db, both), true);
  assert.deepEqual(getFact(c.db, both)!.sources, [b], "the purged source is no longer listed");
  const n = (t: string) => (c.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  assert.equal(n("facts"), 1);
  assert.equal(n("fact_sources"), 1);
  assert.equal(n("fact_vectors") + n("fact_vector_trash"), 1);
  assert.deepEqual(checkInvariant(c.db), []);
});

test("decay never touches facts, but its expiry and purge of their sources do what a forget and a purge do", () => {
  const c = ctx();
  const m = memory(c.db, "User: an unimportant aside about tea", { importance: 0 });
  const pinned = memory(c.db, "User: pinned forever", { pinned: true });
  const f = addFact(c.db, "Likes green tea", [m]);
  const lasting = addFact(c.db, "A lasting fact", [pinned]);
  c.db.prepare("UPDATE memories SET zero_importance_since = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(m);
  const rules = { idleDays: 14, zeroDays: 7, retentionDays: 30 };
  const day = (d: number) => () => new Date(Date.parse("2030-01-01T12:00:00.000Z") + d * 86_400_000);
  runDecay(c.db, { ...rules, now: day(8) });
  assert.equal(live(c.db, f), false, "its source expired");
  assert.equal(stored(c.db, f), true);
  runDecay(c.db, { ...rules, now: day(40) });
  assert.equal(stored(c.db, f), false, "purged with its source");
  const kept = getFact(c.db, lasting)!;
  assert.equal(kept.deletedAt, null);
  assert.equal(kept.validTo, null, "no decay by age");
  assert.deepEqual(checkInvariant(c.db), []);
});
