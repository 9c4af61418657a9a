/**
 * The facts a prompt stated are recorded with its reply (issue 47): the facts leg's and the profile's facts
 * reach "[What I know]" with no memory of theirs packed, so the reply's recalled memories cannot name them;
 * its Sent to record (messages.sent) lists them, a reload shows them, and the provenance that "remember this
 * anyway" and start-up recovery read from the stored reply includes them. Real turn path, real bundled model
 * (USE-lite); the provider is the e2e OpenAI TEST DOUBLE (e2e/support/openai-fixture.ts), on loopback.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import type { MemoContext } from "../core/context";
import { insertFacts } from "../memory/facts/store";
import { addMemories } from "../memory/store/add";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { getConversationWithMessages } from "./conversations";
import { parseRecalledList, parseSentFacts, provenanceOfRecalled } from "./exchange-provenance";
import { PersistQueue } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { runTurn, type TurnEvent } from "./turn";

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
const stores: TempStore[] = [];
const saved = { provider: process.env.MEMO_PROVIDER, remote: process.env.MEMO_TREAT_AS_REMOTE };
before(async () => {
  delete process.env.MEMO_PROVIDER;
  delete process.env.MEMO_TREAT_AS_REMOTE;
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
});
after(async () => {
  await fixture.close();
  stores.forEach((s) => s.close());
  for (const [k, v] of [
    ["MEMO_PROVIDER", saved.provider],
    ["MEMO_TREAT_AS_REMOTE", saved.remote],
  ] as const)
    if (v !== undefined) process.env[k] = v;
});

test("the profile's facts in a prompt are recorded with the reply: Sent to lists them after a reload, and the stored reply's provenance has them", async () => {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  saveProviderSettings(s.sqlite, {
    active: "openai",
    openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
    timeoutSec: 5,
  });
  const [[veg]] = await addMemories(memo, [
    { text: "I stopped eating meat and fish two years ago.", space: "personal" },
    { text: "The boiler service is booked for the first week of March.", space: "personal" },
  ]);
  const { model } = await emb.info();
  const text = "The user is vegetarian";
  const [fact] = insertFacts(
    s.sqlite,
    "personal",
    [{ text, sources: [veg!], origin: "learned" }],
    await emb.embedDocuments([text]),
    model,
  );

  const queue = new PersistQueue(() => memo, { baseDelayMs: 10, maxAttempts: 2, log: () => undefined });
  const events: TurnEvent[] = [];
  const before = fixture.requests.length;
  for await (const ev of runTurn({ memo, persist: queue, canAsk: true }, { message: "When is the boiler serviced?" }))
    events.push(ev);
  await queue.drain();
  const of = <T extends TurnEvent["type"]>(t: T) =>
    events.find((e) => e.type === t) as Extract<TurnEvent, { type: T }> | undefined;
  const received = fixture.requests.slice(before).filter((r) => r.path === "/v1/chat/completions");
  const sent = of("sent")!.sent;
  assert.ok(sent.block.includes(text), "the profile carried the fact into the prompt");
  const system = received[0]!.body!.messages!.find((m) => m.role === "system")!.content;
  assert.ok(typeof system === "string" && system.includes(sent.block), "the provider received it");
  assert.ok(!sent.ids.includes(veg!), "no memory of the fact's was packed: only the facts list can name it");
  assert.deepEqual(sent.facts, [fact]);

  // After a reload: the stored reply's Sent to record lists the fact, and its provenance (what "remember this
  // anyway" and recovery give the exchange) includes it.
  const stored = getConversationWithMessages(s.sqlite, of("start")!.conversation.id).messages[1]!;
  assert.deepEqual(stored.sent?.facts, [fact]);
  assert.deepEqual(provenanceOfRecalled(stored.recalled, stored.sent).facts, [fact]);
  const row = s.sqlite.prepare("SELECT recalled, sent FROM messages WHERE id = ?").get(stored.id) as {
    recalled: string | null;
    sent: string | null;
  };
  assert.deepEqual(provenanceOfRecalled(parseRecalledList(row.recalled), parseSentFacts(row.sent)).facts, [fact]);
  // The exchange the turn stored recorded the fact it was given.
  const derived = s.sqlite.prepare("SELECT derived_from AS d FROM memories WHERE derived_from IS NOT NULL").all() as {
    d: string;
  }[];
  assert.ok(derived.some((r) => (JSON.parse(r.d) as { facts: string[] }).facts.includes(fact!)));
});
