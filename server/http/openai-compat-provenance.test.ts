/**
 * Exchanges stored through the OpenAI-compatible endpoint feed the learner the way chat's do (issue 47):
 * the person's words are the evidence, and an assistant that echoes a replaced value back cannot re-teach
 * it — even to a NAIVE facts double that learns from the whole exchange (server/test/fixture-facts-model.ts,
 * a TEST DOUBLE; the chat model is the echoing TEST DOUBLE of server/test/assistant-doubles.ts). MCP stores
 * no exchanges: its `remember` keeps the text it is given as a pinned memory and queues no learning.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL } from "../../e2e/support/openai-fixture";
import { exchangeProvenance } from "../memory/facts/provenance-guard";
import { remember } from "../memory/store/add";
import { updateRetrievalSettings } from "../services/retrieval-settings-service";
import { echoingReply } from "../test/assistant-doubles";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { completeNonStreaming, prepareCompletion } from "./openai-compat";

let h: LearningHarness;
before(async () => {
  h = await learningHarness({ embedder: await inProcessEmbedder() });
  // What is tested is what is learned from a recalled old value, not the confidence (which keeps nothing in
  // a store this young: the recall side of issue 47).
  await updateRetrievalSettings(h.memo, { minConfidence: 0 });
  h.fixture.replyWith = echoingReply;
  h.fixture.facts.readsWholeExchange = true;
  h.fixture.facts.set([
    { when: "I've settled in Ghent, in a flat by the river", facts: [{ text: "The user lives in Ghent" }] },
    {
      when: "We packed up and moved to Valencia last week",
      facts: [{ text: "The user lives in Valencia", replaces: ["The user lives in Ghent"] }],
    },
  ]);
});
after(() => h.close());

/** One completion through /v1, its exchange stored and learned from. */
async function complete(content: string): Promise<string> {
  const body = { model: `openai:${FIXTURE_MODEL}`, messages: [{ role: "user" as const, content }] };
  const req = new Request("http://memo.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const p = await prepareCompletion(h.memo, req, body);
  const res = await completeNonStreaming(h.memo, p, AbortSignal.timeout(10_000), h.queue);
  const json = (await res.json()) as { choices: { message: { content: string } }[] };
  await h.settle();
  return json.choices[0]!.message.content;
}

test("/v1: a reply echoing the replaced value does not make it current again; the person's words are the job's evidence", async () => {
  await complete("I've settled in Ghent, in a flat by the river");
  await complete("We packed up and moved to Valencia last week");
  assert.deepEqual(h.currentTexts(), ["The user lives in Valencia"]);
  for (const q of ["Which town is home for me at the moment?", "Remind me where I'm based right now?"]) {
    const reply = await complete(q);
    assert.ok(reply.includes("I've settled in Ghent"), `the echo carries the old statement:\n${reply}`);
  }
  assert.deepEqual(h.currentTexts(), ["The user lives in Valencia"], "Ghent is not current again");
  const jobs = h.db.prepare("SELECT id, origin, status FROM fact_jobs ORDER BY id").all() as {
    id: number;
    origin: string;
    status: string;
  }[];
  assert.equal(jobs.length, 4);
  assert.ok(jobs.every((j) => j.origin === "api" && j.status === "done"));
  const last = exchangeProvenance(h.db, jobs.at(-1)!.id);
  assert.equal(last.personWords, "Remind me where I'm based right now?");
  assert.equal(last.given, null, "the API keeps no record of what was recalled: taken as given everything");
});

test("MCP's remember stores the given text as a pinned memory and queues no learning from it", async () => {
  const before = (h.db.prepare("SELECT count(*) AS n FROM fact_jobs").get() as { n: number }).n;
  await remember(h.memo, "Note from a tool: the user lives in Ghent", "personal");
  const after = (h.db.prepare("SELECT count(*) AS n FROM fact_jobs").get() as { n: number }).n;
  assert.equal(after, before);
});
