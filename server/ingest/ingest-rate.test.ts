/**
 * What the Ingest page says before an upload (issue 57): the limits per kind of file, how long a file takes
 * here (measured on this store's finished documents, with the real bundled embedder in process), and that a
 * file too large for the limits is not kept for a Re-ingest that could only fail again.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../core/context";
import { englishText } from "../test/english-text";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { getDocumentOr404, uploadDocuments, uploadLimits } from "../services/document-service";
import { recordIngestRate, ingestRates } from "./ingest-rate";
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
  const store = openTempStore();
  stores.push(store);
  const c = { db: store.sqlite, embedder: emb };
  queueFor(c, { ingest: { maxTokens: 128 } });
  return c;
}

async function upload(c: MemoContext, name: string, text: string) {
  const form = new FormData();
  form.append("file", new Blob([new TextEncoder().encode(text)], { type: "text/plain" }), name);
  const req = new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form });
  const [row] = (await uploadDocuments(c, req)).documents;
  await queueFor(c).whenIdle();
  return getDocumentOr404(c, row!.id);
}

test("the limits per kind of file; no speed until a document was ingested here, then its measured seconds per MB", async () => {
  const c = ctx();
  const before = uploadLimits(c);
  assert.deepEqual([before.maxChars, before.maxPdfPages], [5_000_000, 2000]);
  assert.deepEqual(before.rates, { text: null, pdf: null }, "nothing measured yet: the page says so");
  const t0 = performance.now();
  const doc = await upload(c, "notes.txt", englishText(24_000, "rate"));
  const took = (performance.now() - t0) / 1000;
  assert.equal(doc.status, "done");
  const { rates } = uploadLimits(c);
  assert.equal(rates.pdf, null, "a text file says nothing about a PDF's speed");
  assert.equal(rates.text?.documents, 1);
  // The document's own time (reading, counting, embedding), per MB of its bytes: no more than the whole upload took.
  const mb = doc.size / 1048576;
  assert.ok(rates.text!.secondsPerMB > 0 && rates.text!.secondsPerMB * mb <= took, JSON.stringify(rates));
  // The same file again adds nothing (its chunks are stored already): a skipped run would look fast.
  await upload(c, "notes-again.txt", englishText(24_000, "rate"));
  assert.equal(uploadLimits(c).rates.text?.documents, 1);
});

test("the measured rate is per embedding model; recent documents weigh more; tiny files are not measured", () => {
  const c = ctx();
  recordIngestRate(c.db, { model: "m1", kind: "markdown", bytes: 1048576, ms: 100_000 });
  recordIngestRate(c.db, { model: "m1", kind: "text", bytes: 2 * 1048576, ms: 100_000 });
  recordIngestRate(c.db, { model: "m1", kind: "text", bytes: 100, ms: 60_000 });
  assert.deepEqual(ingestRates(c.db, "m1"), { text: { secondsPerMB: 75, documents: 2 }, pdf: null });
  assert.deepEqual(ingestRates(c.db, "m2"), { text: null, pdf: null }, "another model is another speed");
  recordIngestRate(c.db, { model: "m2", kind: "pdf", bytes: 1048576, ms: 4000 });
  assert.deepEqual(ingestRates(c.db, "m2"), { text: null, pdf: { secondsPerMB: 4, documents: 1 } });
});

test("a text file over the character limit fails with the limit named, and its row offers no Re-ingest", async () => {
  const c = ctx();
  process.env.MEMO_INGEST_MAX_CHARS = "3000";
  try {
    const doc = await upload(c, "long.txt", englishText(6000, "too-long"));
    assert.equal(doc.status, "failed");
    assert.match(doc.error ?? "", /Memo reads at most 3,000 per file \(MEMO_INGEST_MAX_CHARS\)/);
    assert.equal(doc.canReingest, false, "re-ingesting it could only fail again");
    assert.equal(uploadLimits(c).maxChars, 3000, "the page says the limit in force");
  } finally {
    delete process.env.MEMO_INGEST_MAX_CHARS;
  }
});
