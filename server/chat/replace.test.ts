/**
 * Regenerate, Retry and Edit on a real store with the real bundled embedding model and the
 * OpenAI-compatible fixture server (test double): the conversation keeps one reply per turn, memory keeps
 * only the new exchange, the replaced answer is not recalled into the new prompt, and a rolled-back
 * write leaves the old exchange's memory in place.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { checkInvariant } from "../memory/store";
import { createConversation, getConversationWithMessages } from "./conversations";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { PersistQueue, persistExchange } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { prepareReplacement } from "./replace";
import { runTurn, type TurnEvent, type TurnInput } from "./turn";

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
const stores: TempStore[] = [];

before(async () => {
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
});
after(async () => {
  await fixture.close();
  stores.forEach((s) => s.close());
});

function setup() {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  saveProviderSettings(s.sqlite, {
    active: "openai",
    openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
    timeoutSec: 5,
  });
  const queue = new PersistQueue(() => memo, { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3, log: () => {} });
  return { memo, queue };
}

async function turn(s: ReturnType<typeof setup>, input: TurnInput) {
  const events: TurnEvent[] = [];
  for await (const ev of runTurn({ memo: s.memo, persist: s.queue }, input)) events.push(ev);
  await s.queue.drain();
  const start = events.find((e) => e.type === "start") as Extract<TurnEvent, { type: "start" }>;
  const recall = events.find((e) => e.type === "recall") as Extract<TurnEvent, { type: "recall" }> | undefined;
  return { conversationId: start.conversation.id, events, recall };
}

const liveChat = (memo: MemoContext, space = "personal") =>
  memo.db
    .prepare("SELECT id, content FROM memories WHERE space_id = ? AND kind = 'chat' AND soft_deleted = 0")
    .all(space) as { id: string; content: string }[];

test("Regenerate answers the last message again: one reply, one memory, and the old answer is not recalled", async () => {
  const s = setup();
  const q = "Pick a colour for the kitchen [fixture:count]";
  const first = await turn(s, { message: q });
  assert.match(liveChat(s.memo)[0]!.content, /Answer number 1/);
  const again = await turn(s, { conversationId: first.conversationId, message: q, replace: { type: "regenerate" } });
  assert.equal(
    again.recall?.memories.length,
    0,
    "the exchange being replaced is not recalled into its own replacement",
  );
  const msgs = getConversationWithMessages(s.memo.db, first.conversationId).messages;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.match(msgs[1]!.content, /Answer number 2/);
  const mem = liveChat(s.memo);
  assert.equal(mem.length, 1);
  assert.match(mem[0]!.content, /Answer number 2/);
  assert.deepEqual(checkInvariant(s.memo.db), []);
});

test("Edit replaces the message and everything after it; memory keeps only the new exchange", async () => {
  const s = setup();
  const a = await turn(s, { message: "We adopted a dog called Pepper" });
  await turn(s, { conversationId: a.conversationId, message: "She likes the beach" });
  assert.equal(liveChat(s.memo).length, 2);
  const firstUser = getConversationWithMessages(s.memo.db, a.conversationId).messages[0]!;
  await turn(s, {
    conversationId: a.conversationId,
    message: "We adopted a cat called Miso",
    replace: { type: "edit", messageId: firstUser.id },
  });
  const msgs = getConversationWithMessages(s.memo.db, a.conversationId).messages;
  assert.deepEqual(
    msgs.map((m) => [m.role, m.content.slice(0, 30)]),
    [
      ["user", "We adopted a cat called Miso"],
      ["assistant", "Fixture reply to: We adopted a"],
    ],
  );
  const mem = liveChat(s.memo);
  assert.equal(mem.length, 1);
  assert.match(mem[0]!.content, /Miso/);
  assert.doesNotMatch(mem[0]!.content, /Pepper|beach/);
});

test("Retry after a provider error: the message is answered again, no duplicate user message", async () => {
  const s = setup();
  const q = "Hello there [fixture:fail-once]";
  const failed = await turn(s, { message: q });
  assert.ok(failed.events.some((e) => e.type === "error"));
  assert.equal(liveChat(s.memo).length, 0);
  await turn(s, { conversationId: failed.conversationId, message: q, replace: { type: "regenerate" } });
  const msgs = getConversationWithMessages(s.memo.db, failed.conversationId).messages;
  assert.deepEqual(
    msgs.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.equal(liveChat(s.memo).length, 1);
});

test("a replacement that fails to write rolls back with the removal: the old exchange's memory stays", async () => {
  const s = setup();
  const first = await turn(s, { message: "The boiler was serviced in March" });
  const [oldMem] = liveChat(s.memo);
  const broken: MemoContext = {
    db: s.memo.db,
    embedder: {
      ...emb,
      embedDocuments: async (texts: string[]) => (await emb.embedDocuments(texts)).map(() => new Float32Array(3)),
    } as typeof emb,
  };
  const msgs = getConversationWithMessages(s.memo.db, first.conversationId).messages;
  const recorded = JSON.parse(
    (s.memo.db.prepare("SELECT memory_ids AS ids FROM messages WHERE id = ?").get(msgs[1]!.id) as { ids: string }).ids,
  ) as string[];
  assert.deepEqual(recorded, [oldMem!.id], "the reply records the memory its exchange became");
  await assert.rejects(
    persistExchange(broken, {
      space: "personal",
      conversationId: first.conversationId,
      user: "The boiler was serviced in May",
      assistant: "Noted.",
      timestamp: new Date().toISOString(),
      source: "test",
      replaces: recorded,
    }),
  );
  assert.deepEqual(
    liveChat(s.memo).map((m) => m.id),
    [oldMem!.id],
    "nothing removed, nothing half-written",
  );
  assert.deepEqual(checkInvariant(s.memo.db), []);
});

test("prepareReplacement refuses what cannot be replaced, and a dry run changes nothing", async () => {
  const s = setup();
  const empty = createConversation(s.memo.db);
  assert.throws(
    () => prepareReplacement(s.memo.db, empty.id, { type: "regenerate" }, "x"),
    /no message to answer again/,
  );
  assert.throws(
    () =>
      prepareReplacement(s.memo.db, empty.id, { type: "edit", messageId: "00000000-0000-4000-8000-000000000002" }, "x"),
    /no user message/,
  );
  const help = await turn(s, { message: "/help" });
  assert.throws(
    () => prepareReplacement(s.memo.db, help.conversationId, { type: "regenerate" }, "x"),
    /memory command cannot be regenerated/,
  );
  const chat = await turn(s, { message: "Plain message" });
  const before = getConversationWithMessages(s.memo.db, chat.conversationId).messages;
  const dry = prepareReplacement(s.memo.db, chat.conversationId, { type: "regenerate" }, "ignored", { dryRun: true });
  assert.equal(dry.message, "Plain message");
  assert.equal(dry.replaces.length, 1);
  assert.equal(dry.memoryIds.length, 1, "the recorded memory of the reply it would replace");
  assert.deepEqual(getConversationWithMessages(s.memo.db, chat.conversationId).messages, before);
});
