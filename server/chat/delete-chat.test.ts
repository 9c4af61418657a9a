/**
 * Deleting a chat offers to forget what Memo remembered from it (issue 34, item 3): forgotten memories
 * go to the trash with /forget's 7-day undo; kept ones stay recallable; a /remember stays either way.
 * Real store, real bundled embedding model, real retrieval (searchMemories).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../core/context";
import type { ServiceError } from "../core/errors";
import { restore } from "../memory/lifecycle/forget";
import { checkInvariant } from "../memory/store";
import { remember } from "../memory/store/add";
import { search } from "../memory/retrieval/search";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { appendMessages, createConversation, getConversation } from "./conversations";
import { chatMemoryIds, deleteChat, deleteChatPreview } from "./delete-chat";
import { persistExchange } from "./exchange-queue";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

function setup(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

async function chatAbout(memo: MemoContext, user: string, assistant: string) {
  const conv = createConversation(memo.db, { space: "personal" });
  const [u, a] = appendMessages(memo.db, conv.id, [
    { role: "user", content: user },
    { role: "assistant", content: assistant, recalled: [] },
  ]);
  await persistExchange(memo, {
    space: "personal",
    conversationId: conv.id,
    user,
    assistant,
    timestamp: u!.createdAt,
    source: "test",
    record: { messageId: a!.id },
  });
  return conv;
}

const recalls = async (memo: MemoContext, query: string, needle: string) =>
  (await search(memo, { query, space: "personal", k: 10 })).results.some((r) => r.content.includes(needle));

test("delete with forgetting: the chat's memories go to the trash (not recalled), undo brings them back; a /remember stays", async () => {
  const memo = setup();
  const conv = await chatAbout(memo, "My daughter's toy is a purple elephant called Jumbo.", "Jumbo sounds lovely.");
  await remember(memo, "The spare key is under the blue flowerpot.", "personal");
  assert.deepEqual(deleteChatPreview(memo.db, conv.id), {
    id: conv.id,
    title: "My daughter's toy is a purple elephant called Jumbo.",
    memories: 1,
  });
  assert.equal(await recalls(memo, "what is the purple elephant called?", "Jumbo"), true);

  const r = deleteChat(memo, conv.id, { forget: true });
  assert.equal(r.messages, 2);
  assert.equal(r.forgotten?.count, 1);
  assert.match(r.message, /forgot 1 memory from it\. Undo is possible for 7 days/);
  const days = (Date.parse(r.forgotten!.undo.until) - Date.now()) / 86_400_000;
  assert.ok(days > 6.99 && days <= 7, `undo for 7 days (${days})`);
  assert.equal(getConversation(memo.db, conv.id), undefined);
  assert.deepEqual(chatMemoryIds(memo.db, conv.id), []);
  assert.equal(await recalls(memo, "what is the purple elephant called?", "Jumbo"), false);
  assert.equal(await recalls(memo, "where is the spare key?", "flowerpot"), true, "a /remember is not the chat's");

  assert.deepEqual(restore(memo, r.forgotten!.undo.ids).restored, r.forgotten!.undo.ids);
  assert.equal(await recalls(memo, "what is the purple elephant called?", "Jumbo"), true, "undo brings it back");
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("delete without forgetting keeps the chat's memories recallable", async () => {
  const memo = setup();
  const conv = await chatAbout(memo, "Our purple elephant lamp broke yesterday.", "Sorry about the lamp.");
  const r = deleteChat(memo, conv.id, { forget: false });
  assert.equal(r.forgotten, null);
  assert.match(r.message, /is kept/);
  assert.equal(await recalls(memo, "what happened to the purple elephant lamp?", "lamp broke"), true);
});

test("deleting an unknown conversation is a 404 and forgets nothing", async () => {
  const memo = setup();
  const conv = await chatAbout(memo, "The purple elephant parade is in June.", "Noted.");
  assert.throws(
    () => deleteChat(memo, "00000000-0000-4000-8000-000000000000", { forget: true }),
    (e: ServiceError) => e.status === 404,
  );
  assert.equal(chatMemoryIds(memo.db, conv.id).length, 1);
});
