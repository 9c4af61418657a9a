/**
 * Imported conversations are conversations (issue 55): after a ChatGPT or Claude import each conversation
 * is in the chat list with its own title, original dates and where it came from; conversation search finds
 * it; it opens as it was (both speakers, in order); a new message continues it with memory like any chat;
 * deleting it forgets the memories the import stored from it; re-importing the file adds nothing; the
 * import job links to the conversations. Real store, the bundled embedding model in process, the chat
 * turn against the OpenAI-compatible fixture server (a test double).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../../e2e/support/openai-fixture";
import type { MemoContext } from "../../core/context";
import { checkInvariant } from "../../memory/store";
import { search } from "../../memory/retrieval/search";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { getConversationWithMessages, listConversations } from "../../chat/conversations";
import { deleteChat, deleteChatPreview } from "../../chat/delete-chat";
import { PersistQueue, recoverUnpersisted } from "../../chat/exchange-queue";
import { saveProviderSettings } from "../../chat/providers";
import { runTurn, type TurnEvent } from "../../chat/turn";
import { searchConversations } from "../conversation-extras";
import { importAndWait } from "../../test/import-jobs";

const CHATGPT = path.join(import.meta.dirname, "../../test/fixtures/chatgpt-conversations.json");
const chatgptFile = () => JSON.parse(fs.readFileSync(CHATGPT, "utf8")) as unknown;

/** A small Claude export: one conversation of two exchanges, about a cat. */
const claudeFile = () => [
  {
    uuid: "c0ffee00-0000-4000-8000-000000000001",
    name: "Mochi the cat",
    created_at: "2023-05-02T09:00:00.000Z",
    updated_at: "2023-05-02T09:10:00.000Z",
    chat_messages: [
      {
        uuid: "m1",
        sender: "human",
        text: "My cat Mochi keeps scratching the sofa. What can I do?",
        created_at: "2023-05-02T09:00:00.000Z",
      },
      {
        uuid: "m2",
        sender: "assistant",
        text: "Give Mochi a tall sisal scratching post right next to the sofa.",
        created_at: "2023-05-02T09:00:05.000Z",
      },
      {
        uuid: "m3",
        sender: "human",
        text: "She is three years old, does that matter?",
        created_at: "2023-05-02T09:05:00.000Z",
      },
      {
        uuid: "m4",
        sender: "assistant",
        text: "At three, Mochi can still learn a new habit quickly.",
        created_at: "2023-05-02T09:05:07.000Z",
      },
    ],
  },
];

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
const stores: TempStore[] = [];
before(async () => {
  delete process.env.MEMO_PROVIDER;
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
});
after(async () => {
  await fixture.close();
  stores.forEach((s) => s.close());
});
function ctx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

async function importFile(memo: MemoContext, format: "chatgpt" | "claude", data: unknown) {
  const done = await importAndWait(memo, format, data, "personal");
  assert.equal(done.status, "done", done.error ?? "");
  return done;
}

test("a ChatGPT import's conversations are in the chat list with their titles, original dates and source; the job links to them", async () => {
  const memo = ctx();
  const job = await importFile(memo, "chatgpt", chatgptFile());
  const list = listConversations(memo.db);
  assert.deepEqual(
    list.map((c) => [c.title, c.importedFrom]),
    [
      // Most recently active first, by their original times.
      ["Bread technique", "chatgpt"],
      ["Plant photo", "chatgpt"],
      ["Trip to Lisbon", "chatgpt"],
      ["Sourdough starter", "chatgpt"],
    ],
  );
  const sourdough = list.find((c) => c.title === "Sourdough starter")!;
  assert.equal(sourdough.createdAt, "2024-06-15T10:00:00.200Z");
  assert.ok(sourdough.updatedAt.startsWith("2024-06-15T10:"), sourdough.updatedAt);
  assert.equal(sourdough.spaceId, "personal");
  assert.deepEqual(job.conversations, {
    total: 4,
    created: 4,
    first: ["Sourdough starter", "Trip to Lisbon", "Plant photo", "Bread technique"].map((title) => ({
      id: list.find((c) => c.title === title)!.id,
      title,
    })),
  });
  // Opened as it was: both speakers, in order, the branch the person saw.
  const { messages } = getConversationWithMessages(memo.db, sourdough.id);
  assert.deepEqual(
    messages.map((m) => [m.role, m.content.slice(0, 40)]),
    [
      ["user", "How often should I feed my sourdough sta"],
      ["assistant", "Feed it once a day at room temperature, "],
      ["user", "And what flour ratio do you recommend?"],
      ["assistant", "Use a 1:1:1 ratio of starter, flour and "],
    ],
  );
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("conversation search finds an imported chat by its words; it opens with both speakers in order", async () => {
  const memo = ctx();
  await importFile(memo, "claude", claudeFile());
  const found = searchConversations(memo.db, "Mochi");
  assert.equal(found.length, 1);
  assert.equal(found[0]!.title, "Mochi the cat");
  assert.equal(found[0]!.importedFrom, "claude");
  const { conversation, messages } = getConversationWithMessages(memo.db, found[0]!.id);
  assert.equal(conversation.createdAt, "2023-05-02T09:00:00.000Z");
  assert.equal(conversation.updatedAt, "2023-05-02T09:05:07.000Z");
  assert.deepEqual(
    messages.map((m) => [m.role, m.createdAt]),
    [
      ["user", "2023-05-02T09:00:00.000Z"],
      ["assistant", "2023-05-02T09:00:05.000Z"],
      ["user", "2023-05-02T09:05:00.000Z"],
      ["assistant", "2023-05-02T09:05:07.000Z"],
    ],
  );
  // Each reply is linked to the memory its exchange became, as a chat's replies are; nothing is left to recover.
  const linked = messages.filter((m) => m.role === "assistant").map((m) => m.id);
  const rows = memo.db
    .prepare("SELECT memory_ids FROM messages WHERE id IN (?, ?) ORDER BY created_at")
    .all(...linked) as { memory_ids: string }[];
  const ids = rows.map((r) => JSON.parse(r.memory_ids) as string[]);
  assert.deepEqual(
    ids.map((x) => x.length),
    [1, 1],
  );
  const mem = memo.db.prepare("SELECT conversation_id, timestamp FROM memories WHERE id = ?").get(ids[0]![0]) as {
    conversation_id: string;
    timestamp: string;
  };
  assert.deepEqual(mem, {
    conversation_id: "claude:c0ffee00-0000-4000-8000-000000000001",
    timestamp: "2023-05-02T09:00:00.000Z",
  });
  const queue = new PersistQueue(() => memo, { log: () => {} });
  assert.equal(recoverUnpersisted(memo, queue, 100_000), 0, "imported replies are settled exchanges");
});

test("an imported conversation continues: a new message appends a live turn that recalls and stores memory", async () => {
  const memo = ctx();
  saveProviderSettings(memo.db, {
    active: "openai",
    openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
    timeoutSec: 5,
  });
  const queue = new PersistQueue(() => memo, { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3, log: () => {} });
  await importFile(memo, "claude", claudeFile());
  const conv = listConversations(memo.db)[0]!;
  const events: TurnEvent[] = [];
  for await (const ev of runTurn(
    { memo, persist: queue },
    { conversationId: conv.id, message: "What should I do about Mochi and the sofa?" },
  ))
    events.push(ev);
  const start = events.find((e) => e.type === "start") as Extract<TurnEvent, { type: "start" }>;
  assert.equal(start.conversation.id, conv.id, "the same conversation, not a new one");
  const recall = events.find((e) => e.type === "recall") as Extract<TurnEvent, { type: "recall" }>;
  assert.ok(
    recall.memories.some((m) => m.content.includes("sisal scratching post")),
    "the imported exchange is recalled",
  );
  // The provider got the imported dialogue as the conversation so far.
  const sent = fixture.requests.at(-1)!.body!.messages!.map((m) => [m.role, String(m.content).slice(0, 30)]);
  assert.deepEqual(sent.slice(1), [
    ["user", "My cat Mochi keeps scratching "],
    ["assistant", "Give Mochi a tall sisal scratc"],
    ["user", "She is three years old, does t"],
    ["assistant", "At three, Mochi can still lear"],
    ["user", "What should I do about Mochi a"],
  ]);
  await queue.drain();
  const { conversation, messages } = getConversationWithMessages(memo.db, conv.id);
  assert.equal(messages.length, 6);
  assert.deepEqual(
    messages.slice(4).map((m) => m.role),
    ["user", "assistant"],
  );
  assert.ok(conversation.updatedAt > "2026", "continuing moves it to now");
  const stored = memo.db
    .prepare("SELECT content FROM memories WHERE conversation_id = ? AND kind = 'chat'")
    .all(conv.id) as { content: string }[];
  assert.equal(stored.length, 1, "the live exchange became a memory of this conversation");
  assert.match(stored[0]!.content, /What should I do about Mochi and the sofa\?/);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("deleting an imported conversation forgets the memories its import stored (and those of its continuation)", async () => {
  const memo = ctx();
  await importFile(memo, "claude", claudeFile());
  await importFile(memo, "chatgpt", chatgptFile());
  const mochi = searchConversations(memo.db, "Mochi")[0]!;
  assert.equal(deleteChatPreview(memo.db, mochi.id).memories, 2);
  const recalls = async (q: string, needle: string) =>
    (await search(memo, { query: q, space: "personal", k: 10 })).results.some((r) => r.content.includes(needle));
  assert.equal(await recalls("how do I stop my cat scratching the sofa", "sisal"), true);
  const r = deleteChat(memo, mochi.id, { forget: true });
  assert.equal(r.forgotten?.count, 2);
  assert.equal(r.messages, 4);
  assert.equal(await recalls("how do I stop my cat scratching the sofa", "sisal"), false);
  assert.equal(await recalls("how often should I feed my sourdough starter", "sourdough"), true, "another chat's stay");
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("re-importing the same file adds no conversation, no message and no memory", async () => {
  const memo = ctx();
  await importFile(memo, "chatgpt", chatgptFile());
  const count = () =>
    memo.db
      .prepare(
        "SELECT (SELECT count(*) FROM conversations) AS c, (SELECT count(*) FROM messages) AS m, (SELECT count(*) FROM memories) AS k",
      )
      .get();
  const before = count();
  const again = await importFile(memo, "chatgpt", chatgptFile());
  assert.deepEqual(count(), before);
  assert.equal(again.imported, 0);
  assert.equal(again.conversations?.total, 4);
  assert.equal(again.conversations?.created, 0);
});
