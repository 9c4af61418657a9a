/**
 * Learning facts through the real path (server/chat/fact-learner.ts): a chat turn stores its exchange, the
 * exchange's transaction queues a job, the runner asks the fixture model (a TEST DOUBLE answering memo_facts
 * from a script) ONE structured call, and the checked answer becomes facts sourced from the exchange's
 * memories. Batched catch-up, supersede through `replaces`, a restart mid-queue, and what "Sent to" records.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { openDb } from "../db";
import { beginRequest } from "../ops/inflight";
import {
  attemptsOf,
  callsPerProvider,
  claimDueJobs,
  jobOfMessage,
  queueCounts,
  recoverInterrupted,
} from "../memory/facts/queue";
import { factHistory, listFacts } from "../memory/facts/store";
import { chatParts, saidText } from "../memory/store/chunker";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { waitUntil } from "../test/wait-until";
import { FactLearner, type LearningSent } from "./fact-learner";
import type { TurnEvent } from "./turn";

let h: LearningHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const doneOf = (events: TurnEvent[]) => events.find((e) => e.type === "done") as Extract<TurnEvent, { type: "done" }>;
const factsRequests = (x: LearningHarness) =>
  x.fixture.requests.filter((r) => r.body?.response_format?.json_schema?.name === "memo_facts");

test("one exchange, one structured call: the exchange verbatim last, the answer stored as facts of its memories", async () => {
  h = await learningHarness();
  h.fixture.facts.set([{ when: "Berlin", facts: [{ text: "The user lives in Berlin." }] }]);
  const events = await h.chat("I live in Berlin with my cat.");
  const done = doneOf(events);
  assert.ok(done, "the reply finished");
  await h.settle();
  assert.equal(h.factCalls(), 1, "one call for one exchange");
  const [req] = factsRequests(h);
  assert.equal(req!.body!.response_format!.type, "json_schema");
  const last = req!.body!.messages!.at(-1)!;
  assert.equal(last.role, "user");
  assert.equal(last.content, saidText(chatParts("I live in Berlin with my cat.", done.message.content)));
  const facts = listFacts(h.db, { spaceId: "personal" });
  assert.deepEqual(
    facts.map((f) => [f.text, f.origin]),
    [["The user lives in Berlin.", "learned"]],
  );
  const job = jobOfMessage(h.db, done.message.id)!;
  assert.equal(job.status, "done");
  assert.equal(job.factsAdded, 1);
  const memIds = JSON.parse(
    (h.db.prepare("SELECT memory_ids AS m FROM messages WHERE id = ?").get(done.message.id) as { m: string }).m,
  ) as string[];
  assert.deepEqual(facts[0]!.sources, memIds, "the fact's sources are the exchange's memories");
  assert.equal(facts[0]!.validFrom, job.at, "dated from the exchange");
  const [attempt] = attemptsOf(h.db, job.id);
  assert.equal(attempt!.outcome, "ok");
  const sent = attempt!.sent as LearningSent;
  assert.match(sent.provider, /OpenAI-compatible \(127\.0\.0\.1:\d+\)/);
  assert.equal(sent.local, true);
  assert.equal(sent.exchanges, 1);
  assert.equal(sent.block, req!.body!.messages![1]!.content, "Sent to records the known-facts message exactly");
  assert.deepEqual(
    callsPerProvider(h.db).map((c) => [c.calls, c.ok]),
    [[1, 1]],
  );
});

test("a changed value supersedes through replaces: the listed fact's id, the old one kept as history with its end", async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "Berlin", facts: [{ text: "The user lives in Berlin." }] },
    { when: "Lisbon", facts: [{ text: "The user lives in Lisbon.", replaces: ["lives in Berlin"] }] },
  ]);
  await h.chat("I live in Berlin.");
  await h.settle();
  const berlin = listFacts(h.db, { spaceId: "personal" })[0]!;
  await h.chat("We moved to Lisbon last month.");
  await h.settle();
  const second = factsRequests(h)[1]!;
  assert.match(
    String(second.body!.messages![1]!.content),
    new RegExp(`^\\[${berlin.id}\\] The user lives in Berlin\\.$`, "m"),
    "the similar current fact was listed with its id",
  );
  assert.deepEqual(h.currentTexts(), ["The user lives in Lisbon."]);
  const lisbon = listFacts(h.db, { spaceId: "personal" })[0]!;
  const history = factHistory(h.db, lisbon.id);
  assert.deepEqual(
    history.map((f) => f.text),
    ["The user lives in Lisbon.", "The user lives in Berlin."],
  );
  assert.equal(history[1]!.id, berlin.id);
  assert.equal(history[1]!.supersededBy, lisbon.id);
  assert.ok(history[1]!.validTo, "the old value says until when it held");
});

test("catching up: queued exchanges go in batches (one call per batch), each fact sourced from its own exchange", async () => {
  h = await learningHarness({ learner: { batch: 4 } });
  const pets = ["Miso", "Pepper", "Biscuit", "Olive", "Juniper"];
  h.fixture.facts.set(pets.map((p) => ({ when: p, facts: [{ text: `The user has a pet called ${p}.` }] })));
  // The learner is not woken while the exchanges are stored: the backlog of a Memo that was busy or offline.
  await h.learner.stop();
  const learner = new FactLearner(() => h!.memo, { log: () => undefined, now: () => h!.clock.now() });
  for (const p of pets) await h.chat(`My pet is called ${p}.`);
  assert.equal(queueCounts(h.db).queued, 5);
  assert.equal(h.factCalls(), 0);
  learner.wake();
  await learner.idle();
  assert.equal(h.factCalls(), 2, "5 exchanges in calls of at most 4");
  assert.deepEqual(
    factsRequests(h).map(
      (r) => (String(r.body!.messages!.at(-1)!.content).match(/^--- exchange \d+ ---$/gm) ?? []).length,
    ),
    [4, 0],
    "the first call carries four exchanges after their markers, the second one alone",
  );
  assert.equal(queueCounts(h.db).done, 5);
  const facts = listFacts(h.db, { spaceId: "personal" });
  assert.equal(facts.length, 5);
  for (const f of facts) {
    const pet = pets.find((p) => f.text.includes(p))!;
    const src = h.db.prepare("SELECT content FROM memories WHERE id = ?").get(f.sources[0]!) as { content: string };
    assert.match(src.content, new RegExp(pet), `${f.text} comes from the exchange that said it`);
  }
  await learner.stop();
});

test("a value that changed twice while catching up: in one batch, the later exchange replaces the earlier one's fact", async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "Berlin", facts: [{ text: "The user lives in Berlin." }] },
    { when: "Madrid", facts: [{ text: "The user lives in Madrid.", replaces: ["lives in Berlin"] }] },
    { when: "Oslo", facts: [{ text: "The user lives in Oslo.", replaces: ["lives in Berlin"] }] },
  ]);
  await h.chat("I live in Berlin.");
  await h.settle();
  await h.learner.stop();
  await h.chat("I moved to Madrid.");
  await h.chat("Now I moved to Oslo.");
  const learner = new FactLearner(() => h!.memo, { log: () => undefined });
  learner.wake();
  await learner.idle();
  assert.equal(h.factCalls(), 2, "the two new exchanges in one call");
  assert.deepEqual(h.currentTexts(), ["The user lives in Oslo."]);
  const oslo = listFacts(h.db, { spaceId: "personal" })[0]!;
  assert.deepEqual(
    factHistory(h.db, oslo.id).map((f) => f.text),
    ["The user lives in Oslo.", "The user lives in Madrid.", "The user lives in Berlin."],
  );
  await learner.stop();
});

test("a restart mid-queue: a job left running resumes at the next start, and nothing is learned twice", async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "violin", facts: [{ text: "The user plays the violin." }] },
    { when: "Porto", facts: [{ text: "The user's sister Lena lives in Porto." }] },
  ]);
  await h.learner.stop(); // the process that dies mid-queue: it took a job and never finished it
  await h.chat("I play the violin.");
  await h.chat("My sister Lena lives in Porto.");
  const taken = claimDueJobs(h.db, 1);
  assert.equal(taken.length, 1);
  const file = h.db.name;
  h.db.close();
  // The next start: a new connection, interrupted jobs queued again, a new runner.
  const reopened = openDb(file);
  const memo = { db: reopened.sqlite, embedder: h.memo.embedder };
  h.memo.db = reopened.sqlite;
  h.db = reopened.sqlite;
  h.store.sqlite = reopened.sqlite;
  assert.equal(queueCounts(reopened.sqlite).running, 1);
  assert.equal(recoverInterrupted(reopened.sqlite), 1);
  const learner = new FactLearner(() => memo, { log: () => undefined });
  learner.wake();
  await learner.idle();
  assert.deepEqual(h.currentTexts(), ["The user plays the violin.", "The user's sister Lena lives in Porto."]);
  const calls = h.factCalls();
  // Another start: nothing is left to learn, and nothing is learned again.
  assert.equal(recoverInterrupted(reopened.sqlite), 0);
  learner.wake();
  await learner.idle();
  assert.equal(h.factCalls(), calls);
  assert.equal(listFacts(reopened.sqlite, { spaceId: "personal" }).length, 2);
  assert.equal(queueCounts(reopened.sqlite).done, 2);
  await learner.stop();
});

test("learning yields to replies: no call while a chat turn is in flight, nor until it has been quiet for quietMs", async () => {
  h = await learningHarness({ learner: { quietMs: 150 } });
  h.fixture.facts.set([{ when: "Berlin", facts: [{ text: "The user lives in Berlin." }] }]);
  const reply = beginRequest(); // what the chat route does around a turn (server/ops/inflight.ts)
  await h.chat("I live in Berlin.");
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.factCalls(), 0, "nothing is asked while a reply is in flight");
  assert.equal(queueCounts(h.db).queued, 1);
  const ended = Date.now();
  reply.end();
  await h.learner.idle();
  assert.ok(Date.now() - ended >= 140, "it waited for the quiet moment");
  assert.equal(h.factCalls(), 1);
  assert.deepEqual(h.currentTexts(), ["The user lives in Berlin."]);
});

test("a reply that begins while the runner looks up known facts: no call starts, the job is asked once it is quiet again", async () => {
  h = await learningHarness({ learner: { quietMs: 150 } });
  h.fixture.facts.set([{ when: "Lisbon", facts: [{ text: "The user lives in Lisbon." }] }]);
  const first = beginRequest(); // the turn that stores the exchange (the runner waits for it)
  await h.chat("I live in Lisbon.");
  // The runner's look-up of similar facts awaits the embedder; the next chat turn begins during that await.
  const embedder = h.memo.embedder;
  const embedQueries = embedder.embedQueries.bind(embedder);
  let reply: ReturnType<typeof beginRequest> | undefined;
  embedder.embedQueries = async (texts) => {
    reply ??= beginRequest();
    return embedQueries(texts);
  };
  first.end();
  await waitUntil(() => ({ reply: reply !== undefined, ...queueCounts(h!.db) }), {
    what: "the runner's look-up to meet the reply and give the job back",
    done: (c) => c.reply && c.running === 0,
  });
  assert.ok(reply, "the runner looked its known facts up");
  assert.equal(h.learner.status().calls, 0, "no call started while the reply was in flight");
  assert.equal(h.factCalls(), 0);
  assert.equal(queueCounts(h.db).queued, 1, "the job went back untried");
  const job = h.db.prepare("SELECT id, attempts FROM fact_jobs").get() as { id: number; attempts: number };
  assert.equal(job.attempts, 0, "its attempt was not counted");
  assert.equal(attemptsOf(h.db, job.id).length, 0, "no attempt was recorded");
  reply!.end();
  await h.learner.idle();
  assert.equal(h.factCalls(), 1);
  assert.deepEqual(h.currentTexts(), ["The user lives in Lisbon."]);
});

test("a reply that begins during the look-up waits for one text's embedding at most: the rest are not embedded", async () => {
  h = await learningHarness({ learner: { quietMs: 150 } });
  h.fixture.facts.set([{ when: "Porto", facts: [{ text: "The user's sister lives in Porto." }] }]);
  const first = beginRequest();
  // An exchange stored in two chunks (over 300 words): its whole-exchange look-up has no stored vector to take,
  // so the look-up has texts left to embed when the next turn begins during the first.
  const message = `My sister lives in Porto. ${"Here is more about my week and my plans. ".repeat(40)}`.trim();
  await h.chat(message);
  // The exchange is looked up whole and per speaker (three texts); the next turn begins during the first.
  const embedder = h.memo.embedder;
  const embedQueries = embedder.embedQueries.bind(embedder);
  const lookups: string[][] = [];
  let reply: ReturnType<typeof beginRequest> | undefined;
  embedder.embedQueries = async (texts) => {
    lookups.push(texts);
    reply ??= beginRequest();
    return embedQueries(texts);
  };
  first.end();
  await waitUntil(() => ({ reply: reply !== undefined, ...queueCounts(h!.db) }), {
    what: "the runner's look-up to meet the reply and give the job back",
    done: (c) => c.reply && c.running === 0,
  });
  assert.ok(reply, "the runner began its look-up");
  assert.deepEqual(
    lookups.map((t) => t.length),
    [1],
    "one text was embedded; the look-up stopped when the reply began",
  );
  assert.equal(h.factCalls(), 0, "no call started while the reply was in flight");
  assert.equal(queueCounts(h.db).queued, 1, "the job went back untried");
  reply!.end();
  await h.learner.idle();
  assert.equal(h.factCalls(), 1);
  // Asked again once quiet: every text looked up, the whole exchange first (the message too, unless the turn's
  // recall asked with exactly its text: embedded-texts.ts), the reply last.
  const again = lookups
    .slice(1)
    .flat()
    .map((t) =>
      t.startsWith("User: ") ? "whole" : t === message ? "message" : t.startsWith("Fixture reply") ? "reply" : t,
    );
  assert.deepEqual(
    again.filter((t) => t !== "message"),
    ["whole", "reply"],
    "asked again once quiet: every text looked up",
  );
  assert.deepEqual(h.currentTexts(), ["The user's sister lives in Porto."]);
});

test("the reply never waits for learning: a model that never answers the extraction leaves the turn unchanged", async () => {
  h = await learningHarness();
  h.fixture.facts.set([{ when: "garden", bad: "hang" }]);
  const t0 = performance.now();
  const events = await h.chat("I have a garden with tomatoes.");
  assert.ok(doneOf(events), "the reply finished");
  assert.ok(performance.now() - t0 < 5000);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(h.factCalls(), 1, "the extraction was asked meanwhile, and is still unanswered");
  assert.equal(queueCounts(h.db).running, 1);
});
