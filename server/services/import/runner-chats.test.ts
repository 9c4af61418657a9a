/**
 * The import runner writes each conversation of a ChatGPT/Claude export as a chat (issue 55, i55a's writer on
 * i55b's batches): in the batch that stores its last exchange, whole and linked to its memories, even when its
 * exchanges span batches and the job is resumed after a stop mid-conversation; the job's `conversations`
 * summary comes from the store; a cancel that forgets deletes the chats the job created. Real store and
 * runner; a 4-dimension test embedder (server/test).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, test } from "node:test";
import { runAs } from "../../core/acting";
import type { MemoContext } from "../../core/context";
import { setAppContext } from "../../context";
import { checkInvariant } from "../../memory/store";
import { writeExport } from "../../test/export-generator";
import { queueImportFile, tempImportPath } from "../../test/import-jobs";
import { PacedEmbedder } from "../../test/paced-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { TEST_MODEL_A, TestDimEmbedder } from "../../test/test-dim-embedder";
import { cancelImport, getImportJob, importRunner } from "../import-jobs";
import { insertImportJob } from "./job-rows";
import { ImportRunner } from "./runner";

const stores: TempStore[] = [];
after(async () => {
  await importRunner().stop();
  setAppContext(undefined);
  for (const s of stores) s.close();
});

const OWNER = { personId: "owner", admin: true };

async function store(embedder: MemoContext["embedder"]) {
  await importRunner().whenIdle();
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const ctx: MemoContext = { db: s.sqlite, embedder };
  setAppContext(ctx);
  return { ctx, db: s.sqlite };
}

/** Each imported chat of `space`: its message count and how many of its replies link to no memory. */
function chats(db: MemoContext["db"], space: string) {
  return db
    .prepare(
      `SELECT c.id, c.title, count(m.id) AS messages,
         sum(m.role = 'assistant' AND (m.memory_ids IS NULL OR m.memory_ids = '[]')) AS unlinked
       FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id
       WHERE c.space_id = ? AND c.import_source IS NOT NULL GROUP BY c.id ORDER BY c.title`,
    )
    .all(space) as { id: string; title: string; messages: number; unlinked: number }[];
}

test("a conversation spanning batches, resumed after a stop mid-conversation, is one chat with every message linked", async () => {
  // Stops the first runner while its second batch embeds: that batch commits, then the process "ends".
  let calls = 0;
  let first: ImportRunner | null = null;
  const inner = new TestDimEmbedder();
  const embedder = Object.assign(Object.create(inner) as TestDimEmbedder, {
    embedDocuments: async (texts: string[]) => {
      if (++calls === 2 && first) void first.stop();
      return inner.embedDocuments(texts);
    },
  });
  const { ctx, db } = await store(embedder);
  const file = tempImportPath("chats-resume");
  // 8 conversations of 5 exchanges, batches of 3: every conversation spans batches.
  writeExport(file, "chatgpt", { exchanges: 40, perConversation: 5, from: 700_000 });
  const id = "3f0e2a52-0000-4000-8000-0000000000c1";
  insertImportJob(db, {
    id,
    personId: "owner",
    admin: true,
    kind: "chatgpt",
    label: "conversations.json",
    space: "chats",
    file,
    bytesTotal: fs.statSync(file).size,
    queuedAt: new Date().toISOString(),
  });
  const planWhole = async () => assert.fail("a ChatGPT file is streamed");
  first = new ImportRunner({ context: () => ctx, planWhole, batchSize: 3 });
  first.wake();
  await first.whenIdle();
  const mid = db.prepare("SELECT status, next_item AS item, next_group AS grp FROM import_jobs WHERE id = ?").get(id);
  assert.deepEqual(mid, { status: "running", item: 1, grp: 1 }, "stopped inside the second conversation");
  assert.deepEqual(
    chats(db, "chats").map((c) => [c.title, c.messages, c.unlinked]),
    [["Conversation 0", 10, 0]],
    "only the conversation whose last exchange is stored is a chat, whole",
  );
  const second = new ImportRunner({ context: () => ctx, planWhole, batchSize: 3 });
  second.wake();
  await second.whenIdle();
  const done = runAs(OWNER, () => getImportJob(db, id))!;
  assert.equal(done.status, "done", done.error ?? "");
  const all = chats(db, "chats");
  assert.equal(all.length, 8, "one chat per conversation, none twice");
  for (const c of all) assert.deepEqual([c.messages, c.unlinked], [10, 0], c.title);
  assert.equal(done.conversations?.total, 8);
  assert.equal(done.conversations?.created, 8);
  assert.equal(done.conversations?.first[0]?.title, "Conversation 0");
  assert.deepEqual(checkInvariant(db), []);
});

test("a cancel that forgets deletes the chats the import created; one that keeps leaves them", async () => {
  const { ctx, db } = await store(new PacedEmbedder(new TestDimEmbedder(), 10));
  for (const forget of [false, true]) {
    const space = forget ? "chats-forget" : "chats-keep";
    const file = tempImportPath(space);
    writeExport(file, "claude", { exchanges: 3000, perConversation: 2, from: forget ? 800_000 : 900_000 });
    const job = runAs(OWNER, () => queueImportFile(ctx, "claude", file, space));
    const t0 = Date.now();
    while ((runAs(OWNER, () => getImportJob(db, job.id))?.conversations?.total ?? 0) < 3) {
      if (Date.now() - t0 > 30_000) assert.fail("no chat written");
      await new Promise((r) => setTimeout(r, 10));
    }
    runAs(OWNER, () => cancelImport(db, job.id, forget));
    await importRunner().whenIdle();
    const after = runAs(OWNER, () => getImportJob(db, job.id))!;
    const total = after.conversations?.total ?? 0;
    assert.ok(total >= 3);
    if (forget) {
      assert.equal(chats(db, space).length, 0, "its chats are gone with its memories");
      assert.deepEqual(after.conversations?.first, []);
    } else assert.equal(chats(db, space).length, total, "its chats stay with its memories");
  }
  assert.deepEqual(checkInvariant(db), []);
});
