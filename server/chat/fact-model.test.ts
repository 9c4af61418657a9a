/**
 * Which model learns facts, and the privacy rules (server/chat/fact-model.ts): the local chat model first;
 * else the conversation's provider; learning on by default on this machine and off for a remote provider;
 * never without memory sharing "on"; temporary chats and turns with memory off teach nothing. The remote
 * rules run against the OpenAI-compatible TEST DOUBLE on loopback, counted as remote through the TEST ONLY
 * MEMO_TREAT_AS_REMOTE, and are checked against what it received.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, test } from "node:test";
import { queueCounts } from "../memory/facts/queue";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { FactLearner } from "./fact-learner";
import { chooseFactModel, learningStatus, setLearning } from "./fact-model";
import { setSharing } from "./memory-policy";
import { saveProviderSettings } from "./providers";
import { setConversationMemory } from "./temporary-chats";
import type { TurnEvent } from "./turn";

let h: LearningHarness | undefined;
const savedRemote = process.env.MEMO_TREAT_AS_REMOTE;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (savedRemote === undefined) delete process.env.MEMO_TREAT_AS_REMOTE;
  else process.env.MEMO_TREAT_AS_REMOTE = savedRemote;
});

const doneOf = (events: TurnEvent[]) => events.find((e) => e.type === "done") as Extract<TurnEvent, { type: "done" }>;

async function remoteHarness(): Promise<{ h: LearningHarness; key: string }> {
  const x = await learningHarness();
  const host = new URL(x.fixture.url).host;
  process.env.MEMO_TREAT_AS_REMOTE = host;
  x.fixture.facts.set([{ when: "tennis", facts: [{ text: "The user plays tennis." }] }]);
  return { h: x, key: `openai@${host}` };
}

test("the provider on this machine learns by default; the local chat model is preferred when there is one", async () => {
  h = await learningHarness();
  const choice = chooseFactModel(h.db, "openai", ["owner"]);
  assert.ok(choice.ok);
  assert.equal(choice.provider.id, "openai");
  assert.deepEqual(
    learningStatus(h.db).map((p) => [p.provider, p.on, p.isDefault, p.blocked]),
    [["openai", true, true, null]],
  );
  const gguf = path.join(h.store.dir, "chat.gguf");
  fs.writeFileSync(gguf, "GGUF"); // only its existence is read until a call is made
  saveProviderSettings(h.db, { llama: { modelPath: gguf } });
  const local = chooseFactModel(h.db, "openai", ["owner"]);
  assert.ok(local.ok);
  assert.equal(local.provider.id, "llama", "the local chat model first");
  assert.equal(local.endpoint.key, "llama@local");
  setLearning(h.db, "llama@local", false);
  const fallback = chooseFactModel(h.db, "openai", ["owner"]);
  assert.ok(fallback.ok);
  assert.equal(fallback.provider.id, "openai", "learning off for the local model: the conversation's provider");
});

test("a remote provider: off by default — no job, no call; on but memory sharing not 'on' — still none", async () => {
  let key: string;
  ({ h, key } = await remoteHarness());
  setSharing(h.db, key, "on");
  const first = chooseFactModel(h.db, "openai", ["owner"]);
  assert.equal(first.ok, false);
  assert.match(!first.ok ? first.reason : "", /learning facts is off for OpenAI-compatible/);
  await h.chat("I play tennis on Mondays.");
  await h.settle();
  assert.equal(queueCounts(h.db).queued + queueCounts(h.db).done, 0, "no job");
  assert.equal(h.factCalls(), 0, "no call");

  setLearning(h.db, key, true);
  for (const mode of ["off", "pinned", null] as const) {
    setSharing(h.db, key, mode);
    const c = chooseFactModel(h.db, "openai", ["owner"]);
    assert.equal(c.ok, false, `sharing ${mode ?? "ask"}`);
    assert.match(!c.ok ? c.reason : "", /memory sharing with OpenAI-compatible/);
    await h.chat(`I play tennis with sharing ${mode ?? "undecided"}.`, { conversationId: undefined });
  }
  await h.settle();
  assert.equal(h.factCalls(), 0);
  assert.equal(learningStatus(h.db)[0]!.blocked !== null, true, "Settings says why it would not learn");

  setSharing(h.db, key, "on");
  await h.chat("I play tennis on Fridays now.");
  await h.settle();
  assert.equal(h.factCalls(), 1, "learning on and memory shared: one call");
  assert.deepEqual(h.currentTexts(), ["The user plays tennis."]);
});

test("learning turned off after a job was queued: the job is skipped with the reason, nothing is sent", async () => {
  let key: string;
  ({ h, key } = await remoteHarness());
  setSharing(h.db, key, "on");
  setLearning(h.db, key, true);
  await h.learner.stop();
  await h.chat("I play tennis at the club.");
  assert.equal(queueCounts(h.db).queued, 1);
  setLearning(h.db, key, false);
  const learner = new FactLearner(() => h!.memo, { log: () => undefined });
  learner.wake();
  await learner.idle();
  assert.equal(h.factCalls(), 0);
  const job = h.db.prepare("SELECT status, last_error AS e FROM fact_jobs").get() as { status: string; e: string };
  assert.equal(job.status, "skipped");
  assert.match(job.e, /learning facts is off/);
  await learner.stop();
});

test("temporary chats and conversations whose memory switch is off teach nothing: no job", async () => {
  h = await learningHarness();
  h.fixture.facts.set([{ when: "pottery", facts: [{ text: "The user does pottery." }] }]);
  const temp = doneOf(await h.chat("I do pottery.", { temporary: true }));
  assert.ok(temp);
  const normal = doneOf(await h.chat("Hello there."));
  setConversationMemory(h.db, normal.message.conversationId, { store: false });
  assert.ok(doneOf(await h.chat("I do pottery on weekends.", { conversationId: normal.message.conversationId })));
  await h.settle();
  const jobs = h.db.prepare("SELECT count(*) AS n FROM fact_jobs").get() as { n: number };
  assert.equal(jobs.n, 1, "only the ordinary exchange ('Hello there.') was queued");
  assert.equal(h.factCalls(), 1);
  assert.deepEqual(h.currentTexts(), []);
});
