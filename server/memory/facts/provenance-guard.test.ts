/**
 * The provenance guard on a real store: a chat reply that restated a replaced value (its memory was
 * recalled for the reply) cannot teach it again; the person saying it again can; a reply given nothing of
 * it is not suspected; an API exchange (no record of what was recalled) is judged by the person's stored
 * words; a document is not guarded. And applyLearnedFacts calls it: the restated fact is not written.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { appendMessages, createConversation, type RecalledMemory } from "../../chat/conversations";
import { addMemories } from "../store/add";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { TestDimEmbedder } from "../../test/test-dim-embedder";
import { chatParts, saidText } from "../store/chunker";
import { applyLearnedFacts } from "./apply";
import { exchangeProvenance, guardRestatedValues, personSaid, restates } from "./provenance-guard";
import { enqueueFactJob } from "./queue";
import { insertFacts, listFacts } from "./store";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
const MODEL = "test-8d-a";
const DIM = 8;

async function world() {
  const s = openTempStore({ model: MODEL, dim: DIM });
  stores.push(s);
  const db = s.sqlite;
  const memo = { db, embedder: new TestDimEmbedder(MODEL) };
  const exchange = async (user: string, assistant: string) => {
    const said = chatParts(user, assistant);
    const [ids] = await addMemories(memo, [
      { text: saidText(said), said, space: "personal", kind: "chat", timestamp: new Date().toISOString() },
    ]);
    return ids!;
  };
  // The person lived in Ghent, then moved to Valencia: the Ghent fact is replaced.
  const [ghentMemory] = await exchange("I've settled in Ghent, by the river", "Nice!");
  const [ghent] = insertFacts(
    db,
    "personal",
    [{ text: "The user lives in Ghent", sources: [ghentMemory!], origin: "learned" }],
    [axisVector(DIM, 1)],
    MODEL,
  );
  const [valenciaMemory] = await exchange("We moved to Valencia last week", "Congratulations!");
  const [valencia] = insertFacts(
    db,
    "personal",
    [{ text: "The user lives in Valencia", sources: [valenciaMemory!], origin: "learned", replaces: [ghent!] }],
    [axisVector(DIM, 2)],
    MODEL,
  );
  /** A chat reply whose prompt was given `recalled`, stored with its exchange and its learning job. */
  const reply = async (user: string, assistant: string, recalled: string[], sentFacts?: string[]) => {
    const conv = createConversation(db, { space: "personal" });
    const rec = recalled.map((id) => ({ id, content: "", timestamp: "", kind: "chat" }) as unknown as RecalledMemory);
    const [, a] = appendMessages(db, conv.id, [
      { role: "user", content: user },
      { role: "assistant", content: assistant, recalled: rec },
    ]);
    // The Sent to record lists the facts the prompt stated on their own (the facts leg's, the profile's).
    if (sentFacts)
      db.prepare("UPDATE messages SET sent = ? WHERE id = ?").run(JSON.stringify({ facts: sentFacts }), a!.id);
    const ids = await exchange(user, assistant);
    const job = enqueueFactJob(db, {
      spaceId: "personal",
      origin: "chat",
      memoryIds: ids,
      at: new Date().toISOString(),
      messageId: a!.id,
    })!;
    return { job, ids };
  };
  return { db, memo, exchange, reply, ghent: ghent!, valencia: valencia!, ghentMemory: ghentMemory! };
}

const planned = (text: string, replaces: string[] = []) => ({
  text,
  exchange: 0,
  replaces,
  validFrom: new Date().toISOString(),
});

test("restates: the replaced fact's text, or every word of its replaced value; the person said it: its value's words", () => {
  const f = { text: "The user lives in Ghent", successor: "The user lives in Valencia" };
  assert.ok(restates("The user lives in Ghent.", f));
  assert.ok(restates("The user resides in ghent", f));
  assert.ok(!restates("The user lives in Valencia", f));
  assert.ok(!restates("The user's sister lives in Cork", f));
  assert.ok(personSaid("we are back in Ghent!", f));
  assert.ok(!personSaid("where do I live these days?", f));
  // One word of a two-word value is not the value.
  const banjo = { text: "The user is learning the banjo", successor: "The user is taking saxophone lessons" };
  assert.ok(!personSaid("Which language am I learning?", banjo));
  assert.ok(personSaid("I'm learning banjo again", banjo));
  // Nothing differs from the successor (a value that only lost words): the person must say all of it.
  const g = { text: "The user is vegan", successor: "The user is vegan and gluten-free" };
  assert.ok(restates("the user is vegan", g));
  assert.ok(!personSaid("what do I eat?", g));
});

test("a reply that restated a replaced value from recall does not teach it again; the person saying it does", async () => {
  const w = await world();
  const echo = await w.reply(
    "Which town is home for me at the moment?",
    "You told me: I've settled in Ghent, by the river",
    [w.ghentMemory],
  );
  assert.deepEqual(exchangeProvenance(w.db, echo.job).personWords, "Which town is home for me at the moment?");
  const r = guardRestatedValues(w.db, "personal", echo.job, [
    planned("The user lives in Ghent"),
    planned("The user likes rivers"),
  ]);
  assert.deepEqual(r.keep, [1]);
  assert.deepEqual(r.dropped, [{ index: 0, restates: w.ghent }]);

  const back = await w.reply("We moved back to Ghent after all", "Welcome back!", [w.ghentMemory]);
  assert.deepEqual(guardRestatedValues(w.db, "personal", back.job, [planned("The user lives in Ghent")]).keep, [0]);

  // A reply given nothing of the Ghent fact cannot have restated it from recall.
  const blind = await w.reply("Tell me about Belgian towns", "Ghent has canals.", []);
  assert.deepEqual(guardRestatedValues(w.db, "personal", blind.job, [planned("The user lives in Ghent")]).keep, [0]);
});

test("a reply whose prompt stated the replaced fact on its own (the profile, the facts leg: its Sent to record) is guarded too", async () => {
  const w = await world();
  // No memory of Ghent was recalled; the fact was stated while it was still current (the change not learned yet).
  const profiled = await w.reply("What's new?", "From what I know: The user lives in Ghent", [], [w.ghent]);
  assert.deepEqual(guardRestatedValues(w.db, "personal", profiled.job, [planned("The user lives in Ghent")]).keep, []);
  // Without the record, nothing says the reply was given it.
  const bare = await w.reply("What's new?", "From what I know: The user lives in Ghent", []);
  assert.deepEqual(guardRestatedValues(w.db, "personal", bare.job, [planned("The user lives in Ghent")]).keep, [0]);
});

test("a copy of a copy: a reply that restated an earlier stored reply, which restated the replaced value, is guarded too", async () => {
  const w = await world();
  const first = await w.reply("Where's home?", "You told me: I've settled in Ghent, by the river", [w.ghentMemory]);
  // The store persists an exchange's memories and records them on its reply (messages.memory_ids).
  const conv = w.db
    .prepare("SELECT conversation_id AS c FROM fact_jobs j JOIN messages a ON a.id = j.message_id WHERE j.id = ?")
    .get(first.job) as { c: string };
  w.db.prepare("UPDATE memories SET conversation_id = ? WHERE id = ?").run(conv.c, first.ids[0]);
  w.db
    .prepare("UPDATE messages SET memory_ids = ? WHERE conversation_id = ? AND role = 'assistant'")
    .run(JSON.stringify(first.ids), conv.c);
  const second = await w.reply("Remind me where I'm based", "You told me: Ghent, by the river", [first.ids[0]!]);
  assert.deepEqual(guardRestatedValues(w.db, "personal", second.job, [planned("The user lives in Ghent")]).keep, []);
});

test("applyLearnedFacts: a naive answer that restates the replaced value writes nothing of it, the rest is learned", async () => {
  const w = await world();
  const echo = await w.reply(
    "Remind me where I'm based right now?",
    "Everything I was given: the user said: “I've settled in Ghent, by the river”",
    [w.ghentMemory],
  );
  const facts = [planned("The user lives in Ghent", [w.valencia]), planned("The user has a river view")];
  const counts = applyLearnedFacts(
    w.db,
    "personal",
    [{ jobId: echo.job, sources: echo.ids }],
    facts,
    [axisVector(DIM, 3), axisVector(DIM, 4)],
    MODEL,
  );
  assert.equal(counts.restated.get(echo.job), 1);
  assert.equal(counts.added.get(echo.job), 1);
  const current = listFacts(w.db, { spaceId: "personal" }).map((f) => f.text);
  assert.ok(current.includes("The user lives in Valencia"), "the current value stays current");
  assert.ok(!current.includes("The user lives in Ghent"), "the replaced value is not current again");
  assert.ok(current.includes("The user has a river view"));
});

test("an API exchange (nothing recorded of its recall) is judged by the person's stored words; a document is not guarded", async () => {
  const w = await world();
  const ids = await w.exchange("Where do I live?", "You live in Ghent.");
  const job = enqueueFactJob(w.db, {
    spaceId: "personal",
    origin: "api",
    memoryIds: ids,
    at: new Date().toISOString(),
  })!;
  const prov = exchangeProvenance(w.db, job);
  assert.equal(prov.personWords, "Where do I live?");
  assert.equal(prov.given, null);
  assert.deepEqual(guardRestatedValues(w.db, "personal", job, [planned("The user lives in Ghent")]).keep, []);

  const doc = enqueueFactJob(w.db, {
    spaceId: "personal",
    origin: "document",
    memoryIds: [w.ghentMemory],
    at: new Date().toISOString(),
  })!;
  assert.deepEqual(guardRestatedValues(w.db, "personal", doc, [planned("The user lives in Ghent")]).keep, [0]);
});
