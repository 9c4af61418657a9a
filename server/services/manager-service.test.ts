/**
 * The Manager's services on a real store with the real bundled embedding model: filtered paging, edit with
 * re-embedding (search finds the new wording, not the old), pin, importance, delete, restore, purge, and
 * all-or-nothing bulk actions.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { checkInvariant, getMemory } from "../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../test/temp-store";
import {
  editMemory,
  listMemories,
  purgeMany,
  restoreMany,
  setImportanceMany,
  setPinnedMany,
  softDeleteMany,
} from "./manager-service";
import { search } from "../memory/retrieval/search";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));
function ctx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}
const isServiceError = (status: number, msg?: RegExp) => (e: unknown) =>
  e instanceof ServiceError && e.status === status && (!msg || msg.test(e.message));

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

test("editing re-embeds: search finds the new content, not the old, and the vector is the new text's", async () => {
  const c = ctx();
  const [[id], [other]] = await addMemories(c, [
    { text: "I parked the car on level three of the airport garage" },
    { text: "The dentist appointment moved to Thursday afternoon" },
    { text: "Buy oat milk and coffee beans on the way home" },
  ]);
  const OLD_WORDS = "parked car level three airport garage";
  const before = await search(c, { query: OLD_WORDS, space: "personal" });
  assert.equal(before.results[0]?.id, id);
  assert.equal(before.results[0]?.matchType, "hybrid");
  const similarityBefore = before.results[0]!.scores.similarity!;

  const edited = await editMemory(c, id!, "  My bicycle is locked at the central train station  ");
  assert.equal(edited.changed, true);
  assert.equal(edited.content, "My bicycle is locked at the central train station");
  assert.equal(getMemory(c.db, id!)!.content, "My bicycle is locked at the central train station");
  assert.deepEqual(emb.calls.at(-1), {
    kind: "document",
    texts: ["My bicycle is locked at the central train station"],
  });
  assert.deepEqual(checkInvariant(c.db), []);
  assert.deepEqual(rawCounts(c.db), { memories: 3, vec: 3, fts: 3, trash: 0 }, "same memory, same id: edited in place");

  // The stored vector is the new text's.
  const rid = getMemory(c.db, id!)!.rid;
  const stored = c.db.prepare("SELECT embedding FROM memory_vec WHERE rowid = ?").get(BigInt(rid)) as {
    embedding: Buffer;
  };
  const [expected] = await emb.embedDocuments(["My bicycle is locked at the central train station"]);
  assert.ok(cosine(new Float32Array(stored.embedding.buffer, stored.embedding.byteOffset, 512), expected!) > 0.999);

  const now = await search(c, { query: "where is my bicycle locked at the train station", space: "personal" });
  assert.equal(now.results[0]?.id, id);
  assert.equal(now.results[0]?.matchType, "hybrid");
  const old = await search(c, { query: OLD_WORDS, space: "personal" });
  const oldHit = [...old.results, ...old.dropped].find((r) => r.id === id);
  assert.ok(!oldHit || oldHit.matchType === "vector", "the old words no longer match by keyword");
  assert.ok(
    !oldHit || oldHit.scores.similarity! < similarityBefore - 0.2,
    "and the meaning is far weaker than before the edit",
  );

  // Unchanged content is a no-op; the content of another memory of the space is a 409; unknown id 404; nothing changes.
  const calls = emb.calls.length;
  assert.equal((await editMemory(c, id!, "My bicycle is locked at the central train station")).changed, false);
  assert.equal(emb.calls.length, calls, "nothing embedded for a no-op edit");
  await assert.rejects(
    editMemory(c, id!, "The dentist appointment moved to Thursday afternoon"),
    isServiceError(409, new RegExp(other!)),
  );
  await assert.rejects(editMemory(c, "00000000-0000-4000-8000-000000000000", "x y z"), isServiceError(404));
  await assert.rejects(editMemory(c, id!, "   "), isServiceError(400));
  assert.equal(getMemory(c.db, id!)!.content, "My bicycle is locked at the central train station");
});

test("listing: filters by space, kind, pinned, importance, status, text and date range, with paging", async () => {
  const c = ctx();
  const ids = (
    await addMemories(c, [
      { text: "Alpha note about gardening", timestamp: "2024-01-05T10:00:00.000Z", importance: 2 },
      { text: "Beta note about GARDENING tools", timestamp: "2024-02-10T10:00:00.000Z", kind: "import", importance: 4 },
      { text: "Gamma pinned fact", timestamp: "2024-03-15T10:00:00.000Z", kind: "remember", pinned: true },
      { text: "Delta work item", space: "work", timestamp: "2024-03-20T10:00:00.000Z" },
      { text: "Epsilon deleted note about gardening", timestamp: "2024-04-01T10:00:00.000Z" },
    ])
  ).map((x) => x[0]!);
  softDeleteMany(c.db, [ids[4]!]);
  const contents = (f: Parameters<typeof listMemories>[1]) =>
    listMemories(c.db, f).items.map((m) => m.content.split(" ")[0]);

  assert.deepEqual(contents({}), ["Delta", "Gamma", "Beta", "Alpha"], "live only, newest first by default");
  assert.deepEqual(contents({ space: "personal", order: "asc" }), ["Alpha", "Beta", "Gamma"]);
  assert.deepEqual(contents({ kind: "import" }), ["Beta"]);
  assert.deepEqual(contents({ pinned: true }), ["Gamma"]);
  assert.deepEqual(contents({ importanceMin: 2, importanceMax: 4 }), ["Beta", "Alpha"]);
  assert.deepEqual(contents({ text: "gardening" }), ["Beta", "Alpha"], "case-insensitive substring");
  assert.deepEqual(contents({ text: "gardening", status: "all" }), ["Epsilon", "Beta", "Alpha"]);
  assert.deepEqual(contents({ status: "deleted" }), ["Epsilon"]);
  assert.deepEqual(
    contents({ from: "2024-02-01", to: "2024-03-15" }),
    ["Gamma", "Beta"],
    "a bare `to` date includes that day",
  );
  assert.deepEqual(contents({ sort: "importance" }), ["Gamma", "Beta", "Alpha", "Delta"]);

  const deleted = listMemories(c.db, { status: "deleted" }).items[0]!;
  assert.equal(deleted.softDeleted, true);
  assert.equal(Date.parse(deleted.purgeAt!) - Date.parse(deleted.deletedAt!), 30 * 86_400_000);

  const p1 = listMemories(c.db, { pageSize: 3, order: "asc" });
  const p2 = listMemories(c.db, { pageSize: 3, order: "asc", page: 2 });
  assert.deepEqual([p1.total, p1.pages, p1.items.length, p2.items.length, p2.page], [4, 2, 3, 1, 2]);
  assert.equal(listMemories(c.db, { pageSize: 3, page: 99 }).page, 2, "a page past the end shows the last page");
  assert.throws(() => listMemories(c.db, { importanceMin: 4, importanceMax: 1 }), isServiceError(400));
  assert.throws(
    () => listMemories(c.db, { from: "2024-05-01", to: "2024-01-01" }),
    isServiceError(400, /ends before it starts/),
  );
  assert.throws(() => listMemories(c.db, { from: "not a date" }));
});

test("pin, importance, delete, restore, purge; a bulk action with an unknown id changes nothing", async () => {
  const c = ctx();
  const ids = (
    await addMemories(c, [{ text: "one fact" }, { text: "two facts" }, { text: "three facts", importance: 3 }])
  ).map((x) => x[0]!);
  const get = (id: string) => getMemory(c.db, id)!;

  assert.deepEqual(setPinnedMany(c.db, [ids[0]!, ids[1]!], true), { changed: 2 });
  assert.deepEqual([get(ids[0]!).pinned, get(ids[0]!).importance], [true, 5]);
  assert.deepEqual(
    setImportanceMany(c.db, ids, 2),
    { changed: 1, skippedPinned: 2 },
    "pinned memories keep importance 5",
  );
  assert.equal(get(ids[2]!).importance, 2);
  assert.deepEqual(setPinnedMany(c.db, [ids[1]!], false), { changed: 1 });
  assert.deepEqual([get(ids[1]!).pinned, get(ids[1]!).importance], [false, 5]);

  const ghost = "00000000-0000-4000-8000-000000000000";
  const snapshot = () => ids.map((id) => JSON.stringify(get(id)));
  const before = snapshot();
  assert.throws(() => setPinnedMany(c.db, [ids[2]!, ghost], true), isServiceError(404, /nothing was changed/));
  assert.throws(() => setImportanceMany(c.db, [ids[2]!, ghost], 0), isServiceError(404));
  assert.throws(() => softDeleteMany(c.db, [ids[2]!, ghost]), isServiceError(404));
  assert.throws(() => setImportanceMany(c.db, [ids[2]!], 7), isServiceError(400));
  assert.deepEqual(snapshot(), before);

  assert.deepEqual(softDeleteMany(c.db, [ids[0]!, ids[2]!]).deleted.sort(), [ids[0]!, ids[2]!].sort());
  assert.deepEqual(rawCounts(c.db), { memories: 3, vec: 1, fts: 1, trash: 2 });
  assert.deepEqual(restoreMany(c.db, [ids[0]!]).restored, [ids[0]!]);
  assert.deepEqual(checkInvariant(c.db), []);
  assert.deepEqual(purgeMany(c.db, [ids[2]!]), { purged: 1 });
  assert.deepEqual(rawCounts(c.db), { memories: 2, vec: 2, fts: 2, trash: 0 });
  assert.deepEqual(checkInvariant(c.db), []);
  const found = await search(c, { query: "one fact", space: "personal" });
  assert.equal(found.results[0]?.id, ids[0]);
});
