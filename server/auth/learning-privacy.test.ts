/**
 * Learning facts in a household (issue 48 finding 1; beside the isolation and side-channel suites): the
 * runner works for everyone, so each job is decided for the person whose space it is and for whoever wrote its
 * memories — their learning switch and their memory sharing — never the owner's choices for a member's
 * memory, nor the other way round. The remote provider is the OpenAI-compatible TEST DOUBLE on loopback,
 * counted as remote through the TEST ONLY MEMO_TREAT_AS_REMOTE; what it received is read back from it.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { isFactsRequest } from "../test/fixture-facts-model";
import { learningStatus, setLearning } from "../chat/fact-model";
import { setSharing } from "../chat/memory-policy";
import { runAs } from "../core/acting";
import { addMemories } from "../memory/store/add";
import { setShare } from "../memory/store/shares";
import { learnableMemories, createRun } from "../memory/facts/runs";
import { addFacts } from "../services/facts-service";
import { countLearning, setProviderLearning, startLearning } from "../services/learning-service";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { createPerson } from "./people";

let h: LearningHarness | undefined;
const savedRemote = process.env.MEMO_TREAT_AS_REMOTE;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (savedRemote === undefined) delete process.env.MEMO_TREAT_AS_REMOTE;
  else process.env.MEMO_TREAT_AS_REMOTE = savedRemote;
});

async function household(): Promise<{ h: LearningHarness; key: string; b: string; asB: <T>(f: () => T) => T }> {
  const x = await learningHarness();
  const host = new URL(x.fixture.url).host;
  process.env.MEMO_TREAT_AS_REMOTE = host;
  const b = createPerson(x.db, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  return { h: x, key: `openai@${host}`, b, asB: (f) => runAs({ personId: b, admin: false }, f) };
}

/** Everything the memo_facts calls carried (instructions, known facts, exchanges), as one text. */
const sentToLearn = (x: LearningHarness) =>
  x.fixture.requests
    .filter((r) => isFactsRequest(r.body))
    .map((r) => JSON.stringify(r.body?.messages ?? []))
    .join("\n");

test("the owner shares with a remote provider and learns there; a member who does not: neither their exchange nor their known facts reach it", async () => {
  let key: string;
  let b: string;
  let asB: <T>(f: () => T) => T;
  ({ h, key, b, asB } = await household());
  setSharing(h.db, key, "on");
  setLearning(h.db, key, true);
  h.fixture.facts.set([{ when: "lithium", facts: [{ text: "B takes lithium every morning." }] }]);
  // B's known fact about their medication, in B's own space.
  const x = h;
  const space = `${b}~personal`;
  const [[src]] = await asB(() => addMemories(x.memo, [{ text: "My doctor changed my lithium dose.", space }]));
  await asB(() => addFacts(x.memo, space, [{ text: "B's lithium dose is 300 mg.", sources: [src!] }], "person"));

  await asB(() => x.chat("I take lithium every morning now."));
  await h.settle();
  assert.equal(h.factCalls(), 0, "B never allowed this provider: no memo_facts call for B's exchange");
  assert.doesNotMatch(sentToLearn(h), /lithium/i);

  // A run queued for B's space (say, started while B still allowed it) is decided by B's choices when it runs.
  createRun(h.db, { kind: "backfill", spaceId: space, memories: learnableMemories(h.db, { spaceId: space }) });
  h.learner.wake();
  await h.settle();
  assert.equal(h.factCalls(), 0, "B's run: nothing sent");
  assert.doesNotMatch(sentToLearn(h), /lithium/i);
  const skipped = h.db
    .prepare("SELECT count(*) AS n FROM fact_jobs WHERE space_id = ? AND status = 'skipped' AND last_error LIKE ?")
    .get(space, "%learning facts is off%") as { n: number };
  assert.ok(skipped.n >= 1, "the jobs say why: B's learning switch");
  // learning.count and learning.start say the same for B.
  const count = asB(() => countLearning(x.memo, { kind: "backfill" }));
  assert.match(count.blocked ?? "", /learning facts is off/);
  assert.throws(() => asB(() => startLearning(x.memo, { kind: "backfill" })), /cannot learn facts now/);

  // The owner's own exchange still learns there: the owner allowed it.
  h.fixture.facts.set([{ when: "tennis", facts: [{ text: "The user plays tennis." }] }]);
  await h.chat("I play tennis on Mondays.");
  await h.settle();
  assert.equal(h.factCalls(), 1);
  assert.deepEqual(h.currentTexts(), ["The user plays tennis."]);
});

test("a member who allowed learning learns although the owner's learning is off (and the owner's memory stays unsent)", async () => {
  let key: string;
  let b: string;
  let asB: <T>(f: () => T) => T;
  ({ h, key, b, asB } = await household());
  setSharing(h.db, key, "off"); // the owner: learning off (the default for remote) and sharing off
  asB(() => {
    setSharing(h!.db, key, "on");
    setLearning(h!.db, key, true);
  });
  h.fixture.facts.set([{ when: "kayak", facts: [{ text: "B paddles a kayak on Sundays." }] }]);
  const x = h;
  await asB(() => x.chat("I kayak every Sunday."));
  await h.settle();
  assert.equal(h.factCalls(), 1, "B's choice decides B's exchange");
  assert.deepEqual(h.currentTexts(`${b}~personal`), ["B paddles a kayak on Sundays."]);
  assert.equal(asB(() => countLearning(x.memo, { kind: "backfill" })).blocked, null, "learning.count: B may");

  h.fixture.facts.set([{ when: "kayak", facts: [{ text: "The owner kayaks too." }] }]);
  await h.chat("I kayak as well.");
  await h.settle();
  assert.equal(h.factCalls(), 1, "the owner's exchange: not sent");
  assert.deepEqual(h.currentTexts(), []);
});

test("a memory a member wrote into the owner's shared space is learned from only where that member allows it too", async () => {
  let key: string;
  let b: string;
  let asB: <T>(f: () => T) => T;
  ({ h, key, b, asB } = await household());
  setSharing(h.db, key, "on");
  setLearning(h.db, key, true);
  const x = h;
  await addMemories(x.memo, [{ text: "The family car is a blue estate.", space: "family" }]);
  setShare(h.db, "family", b, "write");
  await asB(() => addMemories(x.memo, [{ text: "B's insulin pen lives in the family fridge.", space: "family" }]));
  h.fixture.facts.set([
    { when: "estate", facts: [{ text: "The family car is a blue estate." }] },
    { when: "insulin", facts: [{ text: "B uses insulin." }] },
  ]);
  createRun(h.db, { kind: "backfill", spaceId: "family", memories: learnableMemories(h.db, { spaceId: "family" }) });
  h.learner.wake();
  await h.settle();
  assert.equal(h.factCalls(), 1, "the owner's memory is learned from");
  assert.doesNotMatch(sentToLearn(h), /insulin/i, "B wrote it and never allowed this provider");
  assert.deepEqual(h.currentTexts("family"), ["The family car is a blue estate."]);
});

test("learning.setProvider is each person's own: a member turning learning on or off changes nobody else's (finding 3)", async () => {
  let key: string;
  let asB: <T>(f: () => T) => T;
  ({ h, key, asB } = await household());
  const x = h;
  setLearning(h.db, key, true);
  asB(() => setProviderLearning(x.memo, key, false));
  assert.equal(learningStatus(h.db)[0]!.on, true, "the owner's switch stays on");
  assert.equal(asB(() => learningStatus(x.db))[0]!.on, false, "B's is off");
  setLearning(h.db, key, null);
  asB(() => setProviderLearning(x.memo, key, true));
  assert.equal(learningStatus(h.db)[0]!.on, false, "B turning it on does not turn it on for the owner");
});
