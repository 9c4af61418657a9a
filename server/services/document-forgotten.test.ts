/**
 * A document whose passages were forgotten (issue 50): its view says how many are live and when the rest
 * were forgotten, Restore brings them back, and uploading the same file again restores it rather than
 * answering "already stored" while nothing of it can be found.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { forget } from "../memory/lifecycle/forget";
import { purgeMemories } from "../memory/store";
import { search } from "../memory/retrieval/search";
import type { MemoContext } from "../core/context";
import { documentMemoryIds } from "../ingest/documents";
import { queueFor } from "../ingest/queue";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { addDocument, getDocumentOr404, restoreDocument } from "./document-service";
import { ServiceError } from "../core/errors";

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

const WIFI = Buffer.from("The guest wifi password is heron-lantern-42, printed under the router.\n");

async function ingestedAndForgotten(memo: MemoContext) {
  const doc = await addDocument(memo, "wifi.txt", WIFI);
  await queueFor(memo).whenIdle();
  assert.equal(getDocumentOr404(memo, doc.id).memories, 1);
  const forgotten = forget(memo, "heron-lantern");
  assert.equal(forgotten.count, 1, "/forget of its phrase soft-deletes the one chunk");
  return doc;
}

async function finds(memo: MemoContext, q: string): Promise<boolean> {
  const r = await search(memo, { query: q, space: "personal", k: 5 });
  return r.results.some((h) => h.content.includes("heron-lantern-42"));
}

test("a forgotten document's view says 0 live, 1 forgotten and when; Restore brings it back to search", async () => {
  const memo = ctx();
  const doc = await ingestedAndForgotten(memo);
  const view = getDocumentOr404(memo, doc.id);
  assert.equal(view.status, "done");
  assert.equal(view.memories, 0);
  assert.equal(view.forgotten, 1);
  assert.ok(view.forgottenAt && !Number.isNaN(Date.parse(view.forgottenAt)), "forgottenAt is a date");
  assert.equal(await finds(memo, "guest wifi password"), false);

  const back = restoreDocument(memo, doc.id);
  assert.equal(back.restored, 1);
  assert.equal(back.memories, 1);
  assert.equal(back.forgotten, 0);
  assert.equal(back.forgottenAt, null);
  assert.equal(await finds(memo, "guest wifi password"), true);
  assert.throws(
    () => restoreDocument(memo, doc.id),
    (e: unknown) => e instanceof ServiceError && e.status === 409,
  );
});

test("uploading a forgotten file again restores it and says so (not 'nothing new was added')", async () => {
  const memo = ctx();
  const doc = await ingestedAndForgotten(memo);
  const again = await addDocument(memo, "wifi.txt", WIFI);
  assert.equal(again.duplicateOf, doc.id);
  assert.equal(again.restored, 1);
  assert.equal(getDocumentOr404(memo, doc.id).memories, 1);
  assert.equal(await finds(memo, "guest wifi password"), true);

  const thrice = await addDocument(memo, "wifi.txt", WIFI);
  assert.equal(thrice.duplicateOf, doc.id);
  assert.equal(thrice.restored, undefined, "a live document is just a duplicate");
  assert.equal(thrice.requeued, undefined);
});

test("uploading a file whose forgotten chunks were purged meanwhile queues its kept file again and writes them anew", async () => {
  const memo = ctx();
  const doc = await ingestedAndForgotten(memo);
  purgeMemories(memo.db, documentMemoryIds(memo.db, doc.id));
  const purged = getDocumentOr404(memo, doc.id);
  assert.equal(purged.memories, 0);
  assert.equal(purged.forgotten, 0);
  const again = await addDocument(memo, "wifi.txt", WIFI);
  assert.equal(again.duplicateOf, doc.id);
  assert.equal(again.requeued, true);
  assert.equal(again.status, "queued");
  await queueFor(memo).whenIdle();
  const view = getDocumentOr404(memo, doc.id);
  assert.equal(view.status, "done");
  assert.equal(view.memories, 1);
  assert.equal(await finds(memo, "guest wifi password"), true);
});
