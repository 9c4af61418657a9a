/**
 * Crafted files from the security review (issue 33, items 3 and 4), through the real upload → queue →
 * worker parse → chunk → embed → store path. Each must be ingested or refused within seconds while the
 * server's event loop keeps turning (measured with perf_hooks' event-loop delay histogram: a /api/health
 * answer waits exactly that long), and a huge PDF must not grow the process without bound.
 * The embedder is a TEST DOUBLE (hashed vectors, a whitespace tokenizer) that records the longest text
 * sent to the tokenizer in one call.
 */
import assert from "node:assert/strict";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { after, test } from "node:test";
import type { MemoContext } from "../core/context";
import { uploadDocuments } from "../services/document-service";
import { makeManyPagePdf } from "../test/doc-fixtures";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { CHUNK_TOKENS, MAX_CHARS_PER_TOKEN, UNIT_MAX_CHARS } from "./chunk";
import { getDocument } from "./documents";
import { parseOffThread } from "./parse-thread";
import { queueFor } from "./queue";

/** TEST DOUBLE: the hashed test embedder, recording the longest text tokenized, and embedded, in one call. */
class RecordingEmbedder extends TestDimEmbedder {
  longestTokenized = 0;
  longestEmbedded = 0;
  constructor() {
    super("test-8d-crafted");
  }
  override async tokenize(text: string): Promise<number[]> {
    this.longestTokenized = Math.max(this.longestTokenized, text.length);
    return super.tokenize(text);
  }
  override async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    for (const t of texts) this.longestEmbedded = Math.max(this.longestEmbedded, t.length);
    return super.embedDocuments(texts);
  }
}

/** The most characters one chunk may hold (and so one text sent to the embedder). */
const MAX_CHUNK_CHARS = CHUNK_TOKENS * MAX_CHARS_PER_TOKEN;

const stores: TempStore[] = [];
const contexts: MemoContext[] = [];
after(async () => {
  for (const c of contexts) await queueFor(c).stop();
  for (const s of stores) s.close();
});

function ctx(): MemoContext & { embedder: RecordingEmbedder } {
  const store = openTempStore();
  stores.push(store);
  const c = { db: store.sqlite, embedder: new RecordingEmbedder() };
  queueFor(c);
  contexts.push(c);
  return c;
}

/**
 * Upload one file and wait until its document settles, measuring from the upload's acceptance (the
 * upload itself is the multipart reader's concern, and here the test's own FormData body is built in
 * this thread too): the event loop's worst delay (ms), the process's peak RSS growth (bytes, the parsing
 * worker included) and the wall time of ingestion.
 */
async function ingest(c: MemoContext, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), name);
  const req = new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form });
  const [row] = (await uploadDocuments(c, req)).documents;
  assert.ok(row?.id, `upload refused: ${JSON.stringify(row)}`);
  const h = monitorEventLoopDelay({ resolution: 10 });
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  h.enable();
  const t0 = performance.now();
  try {
    await queueFor(c).whenIdle();
    const doc = getDocument(c.db, row.id)!;
    return { doc, ms: performance.now() - t0, maxDelayMs: h.max / 1e6, rssGrowth: peak - rss0 };
  } finally {
    h.disable();
    clearInterval(sample);
  }
}

test("a 100 KB Markdown heading of spaces is ingested in seconds; the event loop keeps turning; no 100K-character tokenizer or embedder call", async () => {
  const c = ctx();
  const r = await ingest(c, "crafted.md", new TextEncoder().encode(`# a${" ".repeat(100_000)}b`));
  assert.equal(r.doc.status, "done", r.doc.error ?? "");
  assert.ok(r.ms < 15_000, `took ${r.ms.toFixed(0)} ms`);
  assert.ok(r.maxDelayMs < 1000, `event loop held for ${r.maxDelayMs.toFixed(0)} ms`);
  assert.ok(c.embedder.longestTokenized <= UNIT_MAX_CHARS, `tokenized ${c.embedder.longestTokenized} chars at once`);
  assert.ok(c.embedder.longestEmbedded <= MAX_CHUNK_CHARS, `embedded ${c.embedder.longestEmbedded} chars at once`);
});

test("a 1 MB single-line Markdown heading is ingested in seconds, cut into units for the tokenizer", async () => {
  const c = ctx();
  const words = Array.from({ length: 180_000 }, (_, i) => `w${i % 977}x`).join(" ");
  const line = `# ${words}`.slice(0, 1_000_000);
  assert.equal(line.length, 1_000_000);
  const r = await ingest(c, "one-line.md", new TextEncoder().encode(line));
  assert.equal(r.doc.status, "done", r.doc.error ?? "");
  assert.ok(r.doc.chunksTotal > 100, `only ${r.doc.chunksTotal} chunks`);
  assert.ok(r.ms < 30_000, `took ${r.ms.toFixed(0)} ms`);
  assert.ok(r.maxDelayMs < 1000, `event loop held for ${r.maxDelayMs.toFixed(0)} ms`);
  assert.ok(c.embedder.longestTokenized <= UNIT_MAX_CHARS, `tokenized ${c.embedder.longestTokenized} chars at once`);
  assert.ok(c.embedder.longestEmbedded <= MAX_CHUNK_CHARS, `embedded ${c.embedder.longestEmbedded} chars at once`);
});

for (const pages of [20_000, 100_000]) {
  test(`a PDF of ${pages.toLocaleString("en-US")} one-line pages is refused by the page cap, quickly, with the loop turning and RSS bounded`, async () => {
    const pdf = makeManyPagePdf(pages);
    const c = ctx();
    const r = await ingest(c, `pages-${pages}.pdf`, pdf);
    assert.equal(r.doc.status, "failed");
    assert.match(
      r.doc.error ?? "",
      new RegExp(
        `this PDF has ${pages.toLocaleString("en-US")} pages; Memo reads at most 2,000 pages .*MEMO_INGEST_MAX_PDF_PAGES`,
      ),
    );
    assert.ok(r.ms < 30_000, `took ${r.ms.toFixed(0)} ms`);
    assert.ok(r.maxDelayMs < 1000, `event loop held for ${r.maxDelayMs.toFixed(0)} ms`);
    assert.ok(r.rssGrowth < 1024 ** 3, `RSS grew by ${(r.rssGrowth / 2 ** 20).toFixed(0)} MB`);
  });
}

test("past the page cap, pages are read one at a time and the character cap stops a long PDF part-way", async () => {
  const pdf = makeManyPagePdf(20_000);
  const t0 = performance.now();
  await assert.rejects(
    parseOffThread(pdf, "pages.pdf", { limits: { maxPdfPages: 100_000, maxChars: 5_000 } }),
    (e: Error & { code?: string }) =>
      e.code === "TOO_LARGE" &&
      /more than 5,000 characters of text \(by page [\d,]+ of 20,000\).*MEMO_INGEST_MAX_CHARS/.test(e.message),
  );
  assert.ok(performance.now() - t0 < 30_000);
});

test("a file that runs past the parsing time budget is stopped and fails with the setting's name", async () => {
  await assert.rejects(
    parseOffThread(makeManyPagePdf(20_000), "slow.pdf", { limits: { maxPdfPages: 100_000, timeBudgetMs: 300 } }),
    (e: Error & { code?: string }) => e.code === "PARSE_TIMEOUT" && /MEMO_INGEST_PARSE_SECONDS/.test(e.message),
  );
  // The worker was replaced: the next file parses.
  const ok = await parseOffThread(new TextEncoder().encode("# Title\n\nBody text."), "ok.md");
  assert.equal(ok.sections[0]!.heading, "# Title");
});

test("a file over the character cap is refused before it is split", async () => {
  await assert.rejects(
    parseOffThread(new TextEncoder().encode("x".repeat(2000)), "big.txt", { limits: { maxChars: 1000 } }),
    (e: Error & { code?: string }) => e.code === "TOO_LARGE" && /2,000 characters.*at most 1,000/.test(e.message),
  );
});
