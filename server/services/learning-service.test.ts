/**
 * Opt-in learning over stored memory (server/services/learning-service.ts): a document, a ChatGPT import and
 * "learn from my existing memory" — the calls counted before it starts, the run's progress, Stop, nothing
 * learned twice — and the per-provider overview Settings shows. The model is the fixture (TEST DOUBLE)
 * answering memo_facts from a script.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { FactLearner, setFactLearner } from "../chat/fact-learner";
import { setSharing } from "../chat/memory-policy";
import { updateDocument, insertDocuments, linkDocumentChunks } from "../ingest/documents";
import { addMemories } from "../memory/store/add";
import { listFacts } from "../memory/facts/store";
import type { ServiceError } from "../core/errors";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { importAndWait } from "../test/import-jobs";
import { decideProposals, factProposals } from "./fact-proposals-service";
import {
  countLearning,
  learningOverview,
  learningRunOr404,
  replyLearning,
  setProviderLearning,
  startLearning,
  stopLearning,
} from "./learning-service";

let h: LearningHarness | undefined;
afterEach(async () => {
  setFactLearner(undefined);
  await h?.close();
  h = undefined;
  delete process.env.MEMO_TREAT_AS_REMOTE;
});

const PETS = ["Miso", "Pepper", "Biscuit", "Olive", "Juniper"];

async function withPets(): Promise<LearningHarness> {
  const x = await learningHarness({ learner: { batch: 4 } });
  setFactLearner(x.learner);
  x.fixture.facts.set(PETS.map((p) => ({ when: p, facts: [{ text: `The user has a pet called ${p}.` }] })));
  return x;
}

test("learn from my existing memory: the calls counted first, then the run, its progress, and nothing learned twice", async () => {
  h = await withPets();
  await addMemories(
    h.memo,
    PETS.map((p) => ({ text: `Note: my pet ${p} needs a vet visit.`, kind: "remember" as const })),
  );
  const count = countLearning(h.memo, { kind: "backfill" });
  assert.equal(count.memories, 5);
  assert.equal(count.calls, 2, "five memories in calls of four");
  assert.match(count.provider!, /^OpenAI-compatible \(127\.0\.0\.1:\d+\)$/);
  assert.equal(count.blocked, null);
  const run = startLearning(h.memo, { kind: "backfill" });
  assert.equal(run.total, 5);
  assert.equal(run.calls, 2);
  await h.learner.idle();
  const done = learningRunOr404(h.memo, run.id);
  assert.deepEqual([done.status, done.done, done.pending, done.factsAdded], ["done", 5, 0, 5]);
  assert.equal(h.factCalls(), 2, "the count was right");
  assert.equal(h.currentTexts().length, 5);
  assert.equal(countLearning(h.memo, { kind: "backfill" }).memories, 0, "already learned from: not counted again");
  const again = startLearning(h.memo, { kind: "backfill" });
  assert.equal(again.total, 0);
  await h.learner.idle();
  assert.equal(h.factCalls(), 2, "nothing is asked twice");
});

test("Stop: queued jobs are not asked; the run says stopped", async () => {
  h = await withPets();
  await addMemories(
    h.memo,
    PETS.map((p) => ({ text: `Note about ${p}.`, kind: "remember" as const })),
  );
  const idle = new FactLearner(() => h!.memo, { log: () => undefined });
  await idle.stop(); // a runner that never starts: the run waits in the queue
  setFactLearner(idle);
  const run = startLearning(h.memo, { kind: "backfill" });
  const stopped = stopLearning(h.memo, run.id);
  assert.deepEqual([stopped.status, stopped.done, stopped.pending], ["stopped", 5, 0]);
  const working = new FactLearner(() => h!.memo, { log: () => undefined });
  working.wake();
  await working.idle();
  assert.equal(h.factCalls(), 0);
  assert.equal(countLearning(h.memo, { kind: "backfill" }).memories, 5, "stopped memories may be learned later");
  assert.throws(
    () => stopLearning(h!.memo, crypto.randomUUID()),
    (e: ServiceError) => e.status === 404,
  );
  await working.stop();
});

test("a document: opt-in once it is done, its chunks counted and learned, each fact sourced from its chunk", async () => {
  h = await withPets();
  const [doc] = insertDocuments(h.db, [
    { spaceId: "personal", name: "pets.md", mime: "text/markdown", size: 10, contentHash: "h", status: "queued" },
  ]);
  assert.throws(
    () => countLearning(h!.memo, { kind: "document", target: doc!.id }),
    (e: ServiceError) => e.status === 409,
  );
  const ids = (
    await addMemories(
      h.memo,
      ["Miso", "Pepper"].map((p) => ({ text: `Chapter: ${p} the cat.`, kind: "document" as const })),
    )
  ).flat();
  linkDocumentChunks(
    h.db,
    doc!.id,
    ids.map((memoryId, chunkIndex) => ({ memoryId, chunkIndex })),
  );
  updateDocument(h.db, doc!.id, { status: "done" });
  const count = countLearning(h.memo, { kind: "document", target: doc!.id });
  assert.deepEqual([count.memories, count.calls], [2, 1]);
  const run = startLearning(h.memo, { kind: "document", target: doc!.id });
  await h.learner.idle();
  // Untrusted text proposes; the person decides (issue 54): the document's two facts wait for them.
  assert.equal(learningRunOr404(h.memo, run.id).proposed, 2);
  assert.deepEqual(h.currentTexts(), []);
  assert.equal(h.factCalls(), 1);
  const { proposals } = factProposals(h.memo);
  for (const p of proposals)
    assert.deepEqual(p.sources, [ids[p.text.includes("Miso") ? 0 : 1]], `${p.text} is sourced from its own chunk`);
  await decideProposals(
    h.memo,
    proposals.map((p) => p.id),
    "accept",
  );
  assert.equal(learningRunOr404(h.memo, run.id).currentFacts, 2);
  for (const f of listFacts(h.db, { spaceId: "personal" }))
    assert.deepEqual(f.sources, [ids[f.text.includes("Miso") ? 0 : 1]], `${f.text} is sourced from its own chunk`);
});

test("a ChatGPT import: opt-in after it finished, over exactly the memories it wrote", async () => {
  h = await withPets();
  await addMemories(h.memo, [{ text: "An older note about Olive.", kind: "remember" }]);
  const data = [
    {
      title: "Pets",
      create_time: 1718445600,
      mapping: {
        a: { id: "a", message: null, parent: null, children: ["b"] },
        b: {
          id: "b",
          parent: "a",
          children: ["c"],
          message: {
            author: { role: "user" },
            create_time: 1718445600,
            content: { content_type: "text", parts: ["My dog is Biscuit."] },
          },
        },
        c: {
          id: "c",
          parent: "b",
          children: [],
          message: {
            author: { role: "assistant" },
            create_time: 1718445601,
            content: { content_type: "text", parts: ["Lovely."] },
          },
        },
      },
      current_node: "c",
    },
  ];
  const job = await importAndWait(h.memo, "chatgpt", data, "personal");
  const count = countLearning(h.memo, { kind: "import", target: job.id });
  assert.deepEqual([count.memories, count.calls], [1, 1], "the import's one exchange, not the older note");
  startLearning(h.memo, { kind: "import", target: job.id });
  await h.learner.idle();
  // An import's fact is proposed (issue 54), then current once the person confirms it.
  assert.deepEqual(h.currentTexts(), []);
  const { proposals } = factProposals(h.memo);
  assert.deepEqual(
    proposals.map((p) => [p.text, p.kind]),
    [["The user has a pet called Biscuit.", "import"]],
  );
  await decideProposals(h.memo, [proposals[0]!.id], "accept");
  assert.deepEqual(h.currentTexts(), ["The user has a pet called Biscuit."]);
});

test("a remote provider not allowed to learn: the count says why, Start refuses; Settings shows switch and calls", async () => {
  h = await withPets();
  await addMemories(h.memo, [{ text: "A note about Juniper.", kind: "remember" }]);
  const host = new URL(h.fixture.url).host;
  process.env.MEMO_TREAT_AS_REMOTE = host;
  const count = countLearning(h.memo, { kind: "backfill" });
  assert.equal(count.provider, null);
  assert.match(count.blocked!, /learning facts is off/);
  assert.throws(
    () => startLearning(h!.memo, { kind: "backfill" }),
    (e: ServiceError) => e.status === 409,
  );
  const before = learningOverview(h.memo).providers[0]!;
  assert.deepEqual([before.local, before.on, before.calls], [false, false, null]);
  setSharing(h.db, `openai@${host}`, "on");
  assert.equal(setProviderLearning(h.memo, `openai@${host}`, true).on, true);
  startLearning(h.memo, { kind: "backfill" });
  await h.learner.idle();
  const after = learningOverview(h.memo).providers[0]!;
  assert.deepEqual([after.on, after.calls?.calls, after.calls?.ok], [true, 1, 1]);
  assert.throws(
    () => setProviderLearning(h!.memo, "openai@nowhere:1", true),
    (e: ServiceError) => e.status === 404,
  );
});

test("under a reply: whether its exchange was learned from, and what that sent where", async () => {
  h = await withPets();
  const events = await h.chat("My cat is called Miso.");
  await h.settle();
  const done = events.find((e) => e.type === "done") as { message: { id: string } };
  const reply = replyLearning(h.memo, done.message.id);
  assert.equal(reply!.messageId, done.message.id);
  assert.deepEqual([reply!.status, reply!.factsAdded, reply!.outcome], ["done", 1, "ok"]);
  assert.match(reply!.sent!.provider, /OpenAI-compatible/);
  assert.equal(reply!.sent!.exchanges, 1);
});
