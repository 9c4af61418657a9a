/**
 * A straight turn (issue 56): the provider configuration resolved once for the reply and its write, learning
 * decided before the write, and the learner reusing the vectors the turn already has.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { FactLearner } from "./fact-learner";
import { EmbeddedTexts } from "./embedded-texts";
import { providerResolutions } from "./providers";
import type { TurnEvent } from "./turn";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { learningHarness, type LearningHarness } from "../test/learning-harness";

let h: LearningHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const replyOf = (events: TurnEvent[]) => {
  const done = events.find((e) => e.type === "done");
  return done?.type === "done" ? done.message.content : "";
};

test("a turn resolves the provider configuration once: its provider, its memory plan, the learning decision of its write", async () => {
  h = await learningHarness();
  await h.learner.stop(); // the runner's own resolution is counted apart, below
  h.fixture.facts.set([{ when: "Aurora", facts: [{ text: "The user's cat is called Aurora." }] }]);
  const before = providerResolutions();
  const events = await h.chat("My cat is called Aurora.");
  assert.ok(events.some((e) => e.type === "done"));
  assert.equal(providerResolutions() - before, 1, "one resolution for the reply and its write");
  // The write queued the learning job from the decision it was handed (nothing resolved inside it).
  const jobs = h.db.prepare("SELECT count(*) AS n FROM fact_jobs").get() as { n: number };
  assert.equal(jobs.n, 1);
  // The runner resolves once for the jobs it claims, not once per job.
  await h.chat("My dog is called Basil.");
  const runner = new FactLearner(() => h!.memo, { quietMs: 0, log: () => undefined });
  const beforeRun = providerResolutions();
  runner.wake();
  await runner.idle();
  await runner.stop();
  assert.equal(providerResolutions() - beforeRun, 1, "one resolution for the claim of two jobs");
  assert.deepEqual(h.currentTexts(), ["The user's cat is called Aurora."]);
});

test("the learner does not embed again what the turn embedded alone: the message its recall asked with, the stored exchange", async () => {
  const embedder = await inProcessEmbedder();
  h = await learningHarness({ embedder });
  h.fixture.facts.set([{ when: "Aurora", facts: [{ text: "The user's cat is called Aurora." }] }]);
  const user = "My cat is called Aurora.";
  const events = await h.chat(user);
  await h.settle();
  assert.deepEqual(h.currentTexts(), ["The user's cat is called Aurora."]);
  const reply = replyOf(events);
  const texts = (kind: "query" | "document") => embedder.calls.filter((c) => c.kind === kind).flatMap((c) => c.texts);
  // The recall's query was the message itself: the learner's look-up for what the person said took its vector.
  assert.deepEqual(
    texts("query").filter((t) => t === user),
    [user],
    "the message is embedded once a turn",
  );
  // The whole exchange is looked up by the text the store embedded (its one chunk, whitespace folded; USE-lite
  // has no task prefixes, so the chunk's vector is the look-up's): only the reply is embedded again.
  const [chunk] = texts("document");
  assert.equal(chunk, h.db.prepare("SELECT content FROM memories WHERE kind = 'chat'").pluck().get());
  assert.deepEqual(texts("query"), [user, reply]);
  assert.equal(texts("document").length, 2, "the exchange's chunk and the learned fact are stored");
});

test("a recorded vector is exactly the one a look-up would get; never a document's for a model with prefixes", async () => {
  const embedder = await inProcessEmbedder();
  const { model } = await embedder.info();
  const record = new EmbeddedTexts();
  const recording = record.recording(embedder);
  const text = "User: my cat is called Aurora\nAssistant: A fine name.";
  await recording.embedDocuments([text]);
  await recording.embedQueries(["what is my cat called", "a batch is not recorded"]);
  const [fresh] = await embedder.embedQueries([text]);
  assert.deepEqual(record.queryVector(model, text), fresh, "bit for bit what embedding it alone gives");
  assert.equal(record.queryVector(model, "a batch is not recorded"), undefined);
  assert.equal(record.queryVector("another-model", text), undefined);
  // nomic-embed-text embeds a query with another prefix than a document: its chunks never stand for queries.
  const nomic = new EmbeddedTexts();
  const prefixed = nomic.recording({
    info: async () => ({ model: "nomic-embed-text-v1.5", dim: 512 }),
    embedQueries: (t) => embedder.embedQueries(t),
    embedDocuments: (t) => embedder.embedDocuments(t),
    tokenize: (t) => embedder.tokenize(t),
  });
  await prefixed.embedDocuments([text]);
  assert.equal(nomic.queryVector("nomic-embed-text-v1.5", text), undefined);
  await prefixed.embedQueries([text]);
  assert.ok(nomic.queryVector("nomic-embed-text-v1.5", text));
});
