/**
 * When learning goes wrong, nothing is lost (server/chat/fact-learner.ts): every kind of bad model output
 * and a provider error leave the exchange stored, are recorded as attempts, are retried with back-off and
 * end `failed` with their reason — and health stays green. The fixture model (a TEST DOUBLE answering
 * memo_facts from a script) answers badly on demand.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { checkInvariant } from "../memory/store";
import { attemptsOf, callsPerProvider, type FactJob, getFactJob, jobOfMessage } from "../memory/facts/queue";
import { listFacts } from "../memory/facts/store";
import { health } from "../services/memory-service";
import type { FactsBadOutput } from "../test/fixture-facts-model";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { FactLearner } from "./fact-learner";
import type { TurnEvent } from "./turn";

let h: LearningHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const doneOf = (events: TurnEvent[]) => events.find((e) => e.type === "done") as Extract<TurnEvent, { type: "done" }>;
const liveMemories = (x: LearningHarness) =>
  (x.db.prepare("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0").get() as { n: number }).n;

/** Jump past a job's back-off and let the runner try again. */
async function retry(x: LearningHarness, jobId: number): Promise<void> {
  const job = getFactJob(x.db, jobId)!;
  x.clock.ahead = Math.max(x.clock.ahead, Date.parse(job.nextAt) - Date.now() + 1);
  x.learner.wake();
  await x.learner.idle();
}

for (const bad of ["not_json", "empty", "wrong_shape", "huge"] as FactsBadOutput[]) {
  test(`bad output (${bad}): recorded, retried once, then failed; the exchange stays and health stays green`, async () => {
    h = await learningHarness();
    h.fixture.facts.set([{ when: "kayak", bad, facts: [{ text: "The user owns a kayak." }] }]);
    const done = doneOf(await h.chat("I bought a kayak."));
    await h.settle();
    const job = jobOfMessage(h.db, done.message.id)!;
    assert.equal(job.status, "queued", "waiting for its retry");
    assert.ok(Date.parse(job.nextAt) > Date.now(), "after a back-off");
    assert.match(job.lastError!, new RegExp(`bad model output: ${bad}`));
    await retry(h, job.id);
    const after = getFactJob(h.db, job.id)!;
    assert.equal(after.status, "failed");
    assert.match(after.lastError!, /after 2 attempts/);
    const attempts = attemptsOf(h.db, job.id);
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ["bad_output", "bad_output"],
    );
    assert.match(attempts[0]!.detail!, new RegExp(`^${bad}: `));
    assert.deepEqual(listFacts(h.db, { spaceId: "personal" }), [], "nothing was learned from it");
    assert.equal(liveMemories(h), 1, "the exchange is still a memory");
    assert.deepEqual(checkInvariant(h.db), []);
    const hl = health(h.memo, h.learner);
    assert.equal(hl.ok, true, "health stays green on bad model output");
    assert.equal(hl.facts.failed, 1);
    assert.equal(callsPerProvider(h.db)[0]!.badOutput, 2);
  });
}

test("an unknown id in replaces is dropped, never trusted: the fact is kept as standing alone and nothing is superseded", async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "Berlin", facts: [{ text: "The user lives in Berlin." }] },
    { when: "piano", bad: "unknown_id", facts: [{ text: "The user plays the piano." }] },
  ]);
  await h.chat("I live in Berlin.");
  const done = doneOf(await h.chat("I play the piano."));
  await h.settle();
  assert.deepEqual(h.currentTexts(), ["The user lives in Berlin.", "The user plays the piano."]);
  const [attempt] = attemptsOf(h.db, jobOfMessage(h.db, done.message.id)!.id);
  assert.equal(attempt!.outcome, "ok");
  assert.match(attempt!.detail!, /1 unknown fact id\(s\) dropped/);
});

test("a provider error: recorded, retried with doubling back-off, learned once the provider answers", async () => {
  h = await learningHarness();
  h.fixture.facts.set([
    { when: "marathon", bad: "status_500", times: 2, facts: [{ text: "The user ran a marathon." }] },
  ]);
  const done = doneOf(await h.chat("I ran a marathon."));
  await h.settle();
  const id = jobOfMessage(h.db, done.message.id)!.id;
  const waits: number[] = [];
  for (let i = 0; i < 2; i++) {
    const j: FactJob = getFactJob(h.db, id)!;
    assert.equal(j.status, "queued");
    assert.match(j.lastError!, /provider error: .*HTTP 500/);
    const last = attemptsOf(h.db, id).at(-1)!;
    waits.push(Math.round((Date.parse(j.nextAt) - Date.parse(last.at)) / 100) * 100);
    await retry(h, id);
  }
  assert.deepEqual(waits, [1000, 2000], "1 s, then 2 s (baseDelayMs 1000, doubling)");
  assert.equal(getFactJob(h.db, id)!.status, "done");
  assert.deepEqual(
    attemptsOf(h.db, id).map((a) => a.outcome),
    ["provider_error", "provider_error", "ok"],
  );
  assert.deepEqual(h.currentTexts(), ["The user ran a marathon."]);
  const [calls] = callsPerProvider(h.db);
  assert.deepEqual([calls!.calls, calls!.ok, calls!.providerErrors], [3, 1, 2]);
  assert.equal(health(h.memo, h.learner).ok, true);
});

test("a provider that keeps failing: the job fails after its attempts, the exchange stays", async () => {
  h = await learningHarness({ learner: { maxAttempts: 2 } });
  h.fixture.facts.set([{ when: "chess", bad: "status_500" }]);
  const done = doneOf(await h.chat("I play chess on Sundays."));
  await h.settle();
  const id = jobOfMessage(h.db, done.message.id)!.id;
  await retry(h, id);
  assert.equal(getFactJob(h.db, id)!.status, "failed");
  assert.equal(liveMemories(h), 1);
});

test("a fact whose exchange was forgotten before the runner got to it is not learned (the job is skipped)", async () => {
  h = await learningHarness();
  h.fixture.facts.set([{ when: "secret", facts: [{ text: "The user has a secret." }] }]);
  await h.learner.stop();
  const done = doneOf(await h.chat("My secret plan."));
  h.db.prepare("UPDATE memories SET soft_deleted = 1, deleted_at = ?").run(new Date().toISOString());
  const learner = new FactLearner(() => h!.memo, { log: () => undefined });
  learner.wake();
  await learner.idle();
  const job = jobOfMessage(h.db, done.message.id)!;
  assert.equal(job.status, "skipped");
  assert.equal(h.factCalls(), 0, "nothing was sent");
  await learner.stop();
});
