/**
 * Ids in an import are the importer's or nothing (issue 55): a Memo export whose `source.documentId` or
 * `source.conversationId` names another person's document or conversation is imported without it, and no
 * join that reads a document's name reads it outside the memory's own space. Real store, the bundled
 * embedding model in process, real search.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../core/context";
import { runAs } from "../core/acting";
import { createPerson } from "../auth/people";
import { remember } from "../memory/store/add";
import { search } from "../memory/retrieval/search";
import { createConversation } from "../chat/conversations";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { exportMemories, importGroups, planExportImport } from "./transfer-service";
import { listMemories } from "./manager-service";
import { importAndWait } from "../test/import-jobs";
import { importedMemoryIds } from "./import-jobs";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

const SECRET_NAME = "divorce-lawyer-letter.pdf";

async function household() {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  // The owner's document (its row is all the name join reads) and one of the owner's chats.
  s.sqlite
    .prepare(
      "INSERT INTO documents (id, space_id, name, mime, size, content_hash, status, chunks_total, chunks_done) VALUES ('owner-doc', 'personal', ?, 'application/pdf', 10, 'h', 'done', 1, 1)",
    )
    .run(SECRET_NAME);
  const ownerChat = createConversation(s.sqlite, { space: "personal" }).id;
  const bob = createPerson(s.sqlite, { name: "Bob", login: "bob", role: "member", passwordHash: "x" }).id;
  const asBob = <T>(fn: () => T) => runAs({ personId: bob, admin: false }, fn);
  return { memo, ownerChat, bob, asBob };
}

const planted = (documentId: string, conversationId: string) => ({
  format: "memo-export",
  version: 1,
  memories: [
    {
      content: "The allotment gate code is 4471 and the shed key hangs on the left nail.",
      timestamp: "2024-04-01T10:00:00.000Z",
      kind: "document",
      source: { documentId, conversationId, documentName: null, chunkIndex: 0 },
    },
  ],
});

test("a planted documentId of another person's document shows no file name in the importer's search results", async () => {
  const { memo, ownerChat, asBob } = await household();
  const r = await asBob(async () => {
    const plan = planExportImport(planted("owner-doc", ownerChat));
    return importGroups(memo, plan.groups);
  });
  assert.equal(r.imported, 1);
  const row = memo.db.prepare("SELECT document_id, conversation_id FROM memories WHERE id = ?").get(r.ids[0]) as {
    document_id: string | null;
    conversation_id: string | null;
  };
  assert.deepEqual(row, { document_id: null, conversation_id: null }, "another person's ids are dropped");
  const found = await asBob(() => search(memo, { query: "allotment gate code", k: 5 }));
  const hit = found.results.find((x) => x.content.includes("allotment"));
  assert.ok(hit, "the memory itself is imported and found");
  assert.equal(hit.documentName, null);
  assert.deepEqual(hit.documentNames, []);
  assert.ok(!JSON.stringify(found).includes(SECRET_NAME));
  const managed = asBob(() => listMemories(memo.db, {}));
  assert.ok(!JSON.stringify(managed).includes(SECRET_NAME), "nor in the Manager's list");
  assert.ok(!JSON.stringify(asBob(() => exportMemories(memo.db))).includes(SECRET_NAME), "nor in an export");
});

test("a row already pointing at another space's document does not read its name (the join is in the memory's own space)", async () => {
  const { memo, asBob } = await household();
  const [id] = await asBob(async () => (await remember(memo, "The allotment gate code is 4471.")).ids);
  // Written before imports checked their ids: a memory of Bob's that names the owner's document.
  memo.db.prepare("UPDATE memories SET document_id = 'owner-doc' WHERE id = ?").run(id);
  const found = await asBob(() => search(memo, { query: "allotment gate code", k: 5 }));
  assert.ok(found.results.length > 0);
  assert.ok(!JSON.stringify(found).includes(SECRET_NAME));
  assert.ok(!JSON.stringify(asBob(() => listMemories(memo.db, {}))).includes(SECRET_NAME));
  assert.ok(!JSON.stringify(asBob(() => exportMemories(memo.db))).includes(SECRET_NAME));
});

test("the importer's own ids are kept: their document in the memory's space, their conversation, an id naming nothing", async () => {
  const { memo, asBob } = await household();
  const [doc, chat] = asBob(() => {
    const c = createConversation(memo.db, { space: "personal" });
    memo.db
      .prepare(
        "INSERT INTO documents (id, space_id, name, mime, size, content_hash, status, chunks_total, chunks_done) VALUES ('bob-doc', ?, 'seed-catalogue.pdf', 'application/pdf', 10, 'h2', 'done', 1, 1)",
      )
      .run(c.spaceId);
    return ["bob-doc", c.id];
  });
  const r = await asBob(async () => importGroups(memo, planExportImport(planted(doc!, chat!)).groups));
  const row = memo.db.prepare("SELECT document_id, conversation_id FROM memories WHERE id = ?").get(r.ids[0]);
  assert.deepEqual(row, { document_id: doc, conversation_id: chat });
  const found = await asBob(() => search(memo, { query: "allotment gate code", k: 5 }));
  assert.equal(found.results.find((x) => x.content.includes("allotment"))?.documentName, "seed-catalogue.pdf");
  // A restore on another install: ids naming nothing here. A document id must name the memory's own document.
  const file = planted("gone-doc", "chat-from-another-install");
  file.memories[0]!.content = "Seed potatoes go in at Easter.";
  const restored = await asBob(async () => importGroups(memo, planExportImport(file).groups));
  const kept = memo.db.prepare("SELECT document_id, conversation_id FROM memories WHERE id = ?").get(restored.ids[0]);
  assert.deepEqual(kept, { document_id: null, conversation_id: "chat-from-another-install" });
});

test("an import job (the route's path: a received file worked by the import runner) drops planted ids too", async () => {
  const { memo, ownerChat, asBob } = await household();
  const job = await asBob(async () => importAndWait(memo, "memo", planted("owner-doc", ownerChat)));
  assert.equal(job.status, "done", job.error ?? "");
  assert.equal(job.imported, 1);
  const [id] = asBob(() => importedMemoryIds(memo.db, job.id)) ?? [];
  const row = memo.db.prepare("SELECT document_id, conversation_id FROM memories WHERE id = ?").get(id);
  assert.deepEqual(row, { document_id: null, conversation_id: null }, "another person's ids are dropped");
  const found = await asBob(() => search(memo, { query: "allotment gate code", k: 5 }));
  assert.ok(!JSON.stringify(found).includes(SECRET_NAME));
});
