/**
 * Shared chunks are shared (document_chunks): a chunk another document already holds is linked to both;
 * deleting one document removes only the chunks no other document links; the Manager and search show
 * every source. The migration moves existing data into the link table. Real store, real embedding model.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { checkInvariant, getMemory } from "../memory/store";
import { addDocument, deleteDocument, getDocumentOr404 } from "../services/document-service";
import { getManagedMemory } from "../services/manager-service";
import { search } from "../memory/retrieval/search";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { englishText } from "../test/english-text";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { documentMemoryIds } from "./documents";
import { queueFor } from "./queue";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(async () => {
  for (const s of stores) {
    await queueFor({ db: s.sqlite, embedder: emb }).stop();
    s.close();
  }
});

function ctx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

const shared = `# Shared section\n\n${englishText(6000, "dc-shared")}`;
const doc = (tail: string) => Buffer.from(`${shared}\n\n# Only ${tail}\n\n${englishText(600, `dc-${tail}`)}`);

test("a chunk held by two documents is linked to both; deleting either keeps it for the other; the last delete removes it", async () => {
  const memo = ctx();
  const one = await addDocument(memo, "one.md", doc("one"));
  await queueFor(memo).whenIdle();
  const two = await addDocument(memo, "two.md", doc("two"));
  await queueFor(memo).whenIdle();
  const ids1 = new Set(documentMemoryIds(memo.db, one.id));
  const ids2 = new Set(documentMemoryIds(memo.db, two.id));
  const common = [...ids1].filter((id) => ids2.has(id));
  assert.ok(common.length >= 1, "the shared section's chunks are linked to both");
  const v1 = getDocumentOr404(memo, one.id);
  const v2 = getDocumentOr404(memo, two.id);
  assert.equal(v1.memories, v1.chunksTotal, "every chunk of one.md counts for it");
  assert.equal(v2.memories, v2.chunksTotal, "two.md counts the chunks it shares too");

  // Every source is shown: Manager and search.
  const m = getManagedMemory(memo.db, common[0]!);
  assert.deepEqual(m.documentNames, ["one.md", "two.md"]);
  const r = await search(memo, { query: getMemory(memo.db, common[0]!)!.content.slice(0, 200), k: 20 });
  const hit = r.results.find((x) => x.id === common[0]);
  assert.ok(hit, "found by search");
  assert.deepEqual(hit.documentNames, ["one.md", "two.md"]);

  // Deleting the first document: its own chunks go, the shared ones stay with the second.
  const del = await deleteDocument(memo, one.id);
  assert.equal(del.memories, ids1.size - common.length);
  for (const id of common) {
    const s = getMemory(memo.db, id)!;
    assert.equal(s.softDeleted, false);
    assert.equal(s.documentId, two.id, "handed to the remaining document");
  }
  for (const id of ids1) if (!ids2.has(id)) assert.equal(getMemory(memo.db, id), undefined);
  assert.equal(getDocumentOr404(memo, two.id).memories, v2.chunksTotal, "two.md is still complete");
  assert.deepEqual(getManagedMemory(memo.db, common[0]!).documentNames, ["two.md"]);
  assert.deepEqual(checkInvariant(memo.db), []);

  await deleteDocument(memo, two.id);
  for (const id of ids2) assert.equal(getMemory(memo.db, id), undefined);
  assert.equal((memo.db.prepare("SELECT count(*) AS n FROM document_chunks").get() as { n: number }).n, 0);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("a chat memory that holds the same text as a chunk is linked, not owned: deleting the document keeps it", async () => {
  const memo = ctx();
  const text = "The staff parking permit must be renewed every January at the front desk.";
  const [[chatId]] = await addMemories(memo, [{ text, kind: "chat" }]);
  const d = await addDocument(memo, "permit.txt", Buffer.from(text));
  await queueFor(memo).whenIdle();
  assert.deepEqual(documentMemoryIds(memo.db, d.id), [chatId]);
  await deleteDocument(memo, d.id);
  assert.equal(getMemory(memo.db, chatId!)!.softDeleted, false);
});

test("migration 0005 moves existing document memories into document_chunks, marks old exchanges as persisted, and ChatGPT imports as imports", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-mig-"));
  try {
    const db = new Database(path.join(dir, "m.db"));
    sqliteVec.load(db);
    const journal = JSON.parse(fs.readFileSync("drizzle/meta/_journal.json", "utf8")) as {
      entries: { idx: number; tag: string }[];
    };
    const apply = (tag: string) => {
      for (const st of fs.readFileSync(path.join("drizzle", `${tag}.sql`), "utf8").split("--> statement-breakpoint"))
        if (st.trim()) db.exec(st);
    };
    for (const e of journal.entries.filter((e) => e.idx < 5)) apply(e.tag);
    // A store as the previous version left it.
    db.exec(`INSERT INTO documents (id, space_id, name, mime, size, content_hash, status) VALUES ('d1', 'personal', 'a.md', 'text/markdown', 10, 'h', 'done');
      INSERT INTO memories (id, rid, space_id, content, timestamp, kind, document_id, chunk_index, content_hash, embedding_model)
        VALUES ('m1', 1, 'personal', 'chunk', '2030-01-01T00:00:00.000Z', 'document', 'd1', 0, 'x', 'e'),
               ('m2', 2, 'personal', 'chat', '2030-01-01T00:00:00.000Z', 'chat', NULL, NULL, 'y', 'e');
      INSERT INTO memories (id, rid, space_id, content, timestamp, kind, conversation_id, content_hash, embedding_model)
        VALUES ('m3', 3, 'personal', 'imported', '2024-01-01T00:00:00.000Z', 'chat', 'chatgpt:abc', 'z', 'e');
      INSERT INTO conversations (id, space_id) VALUES ('c1', 'personal');
      INSERT INTO messages (id, conversation_id, role, content) VALUES ('u1', 'c1', 'user', 'hi'), ('a1', 'c1', 'assistant', 'hello');`);
    apply("0005_trust");
    assert.deepEqual(db.prepare("SELECT document_id, memory_id, chunk_index FROM document_chunks").all(), [
      { document_id: "d1", memory_id: "m1", chunk_index: 0 },
    ]);
    assert.ok(
      (db.prepare("SELECT persisted_at FROM messages WHERE id = 'a1'").get() as { persisted_at: string | null })
        .persisted_at,
    );
    assert.equal(
      (db.prepare("SELECT persisted_at FROM messages WHERE id = 'u1'").get() as { persisted_at: string | null })
        .persisted_at,
      null,
    );
    assert.equal(
      (db.prepare("SELECT updated_at FROM memories WHERE id = 'm2'").get() as { updated_at: string | null }).updated_at,
      null,
    );
    assert.deepEqual(
      db.prepare("SELECT id, kind FROM memories ORDER BY id").all(),
      [
        { id: "m1", kind: "document" },
        { id: "m2", kind: "chat" },
        { id: "m3", kind: "import" },
      ],
      "ChatGPT imports become kind import",
    );
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
