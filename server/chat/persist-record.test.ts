/**
 * Persistence is recorded, not guessed (server/chat/persist.ts): the memories' transaction stamps the
 * assistant message (or empties the API outbox row); recovery re-queues only exchanges never recorded, so
 * no edit, forget, delete or purge brings anything back. Real store, real bundled embedding model.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { checkInvariant, getMemory, purgeMemories } from "../memory/store";
import { appendMessages, createConversation, deleteConversation } from "./conversations";
import { editMemory } from "../services/manager-service";
import { forget } from "../memory/lifecycle/forget";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import {
  exchangePersisted,
  PersistQueue,
  persistExchange,
  recoverUnpersisted,
  removeExchangeMemories,
  stripInterruptedNote,
} from "./exchange-queue";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

function setup(embedder: MemoContext["embedder"] = emb) {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder };
  const queue = new PersistQueue(() => memo, { baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 2, log: () => undefined });
  return { memo, queue };
}

/** A user/assistant pair in a conversation, as the chat stores it before persisting. */
function exchange(memo: MemoContext, user: string, assistant: string) {
  const conv = createConversation(memo.db, { space: "personal" });
  const [u, a] = appendMessages(memo.db, conv.id, [
    { role: "user", content: user },
    { role: "assistant", content: assistant, recalled: [] },
  ]);
  return {
    conv,
    u: u!,
    a: a!,
    job: {
      space: "personal",
      conversationId: conv.id,
      user,
      assistant,
      timestamp: u!.createdAt,
      source: "test",
      record: { messageId: a!.id },
    },
  };
}

const memoryCount = (memo: MemoContext) =>
  (memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n;
const recorded = (memo: MemoContext, id: string) =>
  memo.db.prepare("SELECT persisted_at AS at, memory_ids AS ids FROM messages WHERE id = ?").get(id) as {
    at: string | null;
    ids: string | null;
  };

test("the memories and the message's record are written in one transaction; a second write of the same exchange writes nothing", async () => {
  const { memo } = setup();
  const e = exchange(memo, "Where did I park?", "On level 3, spot 41.");
  const ids = await persistExchange(memo, e.job);
  assert.equal(ids.length, 1);
  const r = recorded(memo, e.a.id);
  assert.ok(r.at);
  assert.deepEqual(JSON.parse(r.ids!), ids);
  assert.deepEqual(await persistExchange(memo, e.job), ids, "already recorded: the recorded ids, nothing new");
  assert.equal(memoryCount(memo), 1);
  // Who said what is stored with the memory: the user's words and the reply, as spans of its content.
  const m = getMemory(memo.db, ids[0]!)!;
  assert.deepEqual(
    m.speakers!.map((s) => [s.role, m.content.slice(s.start, s.end)]),
    [
      ["user", "Where did I park?"],
      ["assistant", "On level 3, spot 41."],
    ],
  );

  // If recording fails, the memories roll back with it.
  const f = exchange(memo, "What is the wifi password?", "It is on the router sticker.");
  memo.db.exec(
    "CREATE TRIGGER fail_mark BEFORE UPDATE OF persisted_at ON messages BEGIN SELECT RAISE(ABORT, 'recording failed'); END;",
  );
  await assert.rejects(persistExchange(memo, f.job), /recording failed/);
  memo.db.exec("DROP TRIGGER fail_mark");
  assert.equal(memoryCount(memo), 1, "no memory without its record");
  assert.equal(recorded(memo, f.a.id).at, null);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("recovery re-queues only exchanges never persisted: edited, forgotten and purged memories stay as the user left them", async () => {
  const { memo, queue } = setup();
  const edited = exchange(memo, "My dentist is Dr Alvarez.", "Noted: Dr Alvarez.");
  const forgotten = exchange(memo, "The gym locker code is 5512.", "Locker 5512, got it.");
  const purged = exchange(memo, "My passport expires in 2031.", "2031, noted.");
  const pending = exchange(memo, "The plumber comes on Friday.", "Friday it is.");
  const [eId] = await persistExchange(memo, edited.job);
  const [fId] = await persistExchange(memo, forgotten.job);
  const [pId] = await persistExchange(memo, purged.job);
  await editMemory(memo, eId!, "My dentist is Dr Okafor now.");
  forget(memo, "locker code");
  purgeMemories(memo.db, [pId!]);

  assert.equal(recoverUnpersisted(memo, queue), 1, "only the exchange that never became a memory");
  await queue.drain();
  assert.ok(exchangePersisted(memo.db, pending.a.id));
  assert.equal(getMemory(memo.db, eId!)!.content, "My dentist is Dr Okafor now.");
  assert.equal(getMemory(memo.db, eId!)!.speakers, null, "an edit moves the words: the stored spans no longer hold");
  assert.equal(getMemory(memo.db, fId!)!.speakers?.length, 2, "an unedited exchange keeps its speakers");
  assert.equal(getMemory(memo.db, fId!)!.softDeleted, true);
  assert.equal(getMemory(memo.db, pId!), undefined);
  const texts = (memo.db.prepare("SELECT content FROM memories").all() as { content: string }[]).map((r) => r.content);
  assert.ok(!texts.some((t) => t.includes("Dr Alvarez")), "the pre-edit text did not come back");
  assert.ok(!texts.some((t) => t.includes("2031")), "the purged exchange did not come back");
  assert.equal(texts.filter((t) => t.includes("5512")).length, 1, "the forgotten one was not stored again");
  assert.equal(recoverUnpersisted(memo, queue), 0, "nothing left");
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("an exchange whose conversation was deleted before its write is not written", async () => {
  const { memo } = setup();
  const e = exchange(memo, "Remind me of the boiler code.", "It is 7-7-3.");
  deleteConversation(memo.db, e.conv.id);
  assert.deepEqual(await persistExchange(memo, e.job), []);
  assert.equal(memoryCount(memo), 0);
});

test("an OpenAI-compatible API exchange waits in the outbox until written; recovery finishes it after every retry failed", async () => {
  // The real embedder, with document embedding failing (the embedding server down for writes).
  const down: MemoContext["embedder"] = Object.assign(Object.create(emb) as InProcessEmbedder, {
    embedDocuments: () => Promise.reject(new Error("embedding server is down")),
  });
  const { memo, queue } = setup(down);
  assert.equal(
    await queue.enqueueApiExchange({
      space: "api",
      user: "My bike is a Gazelle.",
      assistant: "A Gazelle, nice.",
      timestamp: new Date().toISOString(),
      source: "OpenAI-compatible API",
    }),
    null,
  );
  assert.equal(
    (memo.db.prepare("SELECT count(*) AS n FROM pending_exchanges").get() as { n: number }).n,
    1,
    "kept in the outbox",
  );
  const healthy: MemoContext = { db: memo.db, embedder: emb };
  const q2 = new PersistQueue(() => healthy, { log: () => undefined });
  assert.equal(recoverUnpersisted(healthy, q2), 1);
  await q2.drain();
  assert.equal(
    (memo.db.prepare("SELECT count(*) AS n FROM pending_exchanges").get() as { n: number }).n,
    0,
    "removed with the write",
  );
  assert.match(
    (memo.db.prepare("SELECT content FROM memories").get() as { content: string }).content,
    /^User: My bike is a Gazelle\. Assistant: A Gazelle, nice\.$/,
  );
  assert.equal(recoverUnpersisted(healthy, q2), 0);
});

test("an interrupted reply becomes a memory without the note (the note stays on the message)", async () => {
  const { memo, queue } = setup();
  const note = "\n\n[interrupted: the reply was stopped before it finished]";
  assert.equal(stripInterruptedNote(`Half an answer${note}`), "Half an answer");
  const e = exchange(memo, "Tell me about the trip.", `We went to Porto and${note}`);
  assert.equal(recoverUnpersisted(memo, queue), 1);
  await queue.drain();
  const [id] = JSON.parse(recorded(memo, e.a.id).ids!) as string[];
  assert.equal(getMemory(memo.db, id!)!.content, "User: Tell me about the trip. Assistant: We went to Porto and");
  assert.ok(
    (memo.db.prepare("SELECT content FROM messages WHERE id = ?").get(e.a.id) as { content: string }).content.endsWith(
      note,
    ),
  );
});

test("removeExchangeMemories removes what an exchange was persisted as (for regenerate and edit), and recovery does not redo it", async () => {
  const { memo, queue } = setup();
  const e = exchange(memo, "Our anniversary is on 12 May.", "12 May, noted.");
  const ids = await persistExchange(memo, e.job);
  assert.equal(removeExchangeMemories(memo.db, e.a.id), 1);
  assert.equal(getMemory(memo.db, ids[0]!), undefined);
  assert.deepEqual(JSON.parse(recorded(memo, e.a.id).ids!), []);
  assert.equal(recoverUnpersisted(memo, queue), 0);
  assert.deepEqual(checkInvariant(memo.db), []);
});
