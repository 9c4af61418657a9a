/**
 * Document ingestion end to end below HTTP: multipart upload → validation → queue → parse → token
 * chunking → dedup → embedding with the real bundled model (in process) → one transaction per batch, on a
 * real store file. Failure, cancellation and restart paths wrap the real embedder to fail or slow down.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import { EmbedderUnavailableError } from "../embedder/supervisor";
import type { Embedder } from "../core/context";
import { checkInvariant, softDeleteMemories } from "../memory/store";
import { makeCorruptPdf, makeImageOnlyPdf, makePng, makeTextPdf } from "../test/doc-fixtures";
import { englishText } from "../test/english-text";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../test/temp-store";
import {
  addDocument,
  cancelDocument,
  deleteDocument,
  getDocumentOr404,
  listDocuments,
  reingestDocument,
  uploadDocuments,
  type UploadRow,
} from "../services/document-service";
import { search } from "../memory/retrieval/search";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { documentMemoryIds, getDocument, insertDocuments, updateDocument } from "./documents";
import { IngestQueue, queueFor, uploadsDirFor, type QueueOptions } from "./queue";

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

/** An embedder that delegates to the real one, with hooks to slow it down or make it fail. */
class Wrapped implements Embedder {
  documentCalls = 0;
  constructor(
    private readonly inner: Embedder,
    private readonly hooks: { beforeEmbed?: (call: number) => Promise<void> | void } = {},
  ) {}
  info() {
    return this.inner.info();
  }
  embedQueries(t: string[]) {
    return this.inner.embedQueries(t);
  }
  async embedDocuments(t: string[]) {
    await this.hooks.beforeEmbed?.(++this.documentCalls);
    return this.inner.embedDocuments(t);
  }
  tokenize(t: string) {
    return this.inner.tokenize(t);
  }
}

function ctx(embedder: Embedder = emb, queue: Partial<QueueOptions> = {}): MemoContext & { store: TempStore } {
  const store = openTempStore();
  stores.push(store);
  const c = { db: store.sqlite, embedder, store };
  queueFor(c, queue);
  return c;
}

interface FileSpec {
  name: string;
  bytes: Uint8Array;
  type?: string;
}

async function upload(
  c: MemoContext,
  files: FileSpec[],
  opts: { space?: string; maxBytes?: number } = {},
): Promise<UploadRow[]> {
  const form = new FormData();
  if (opts.space) form.append("space", opts.space);
  for (const f of files)
    form.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type ?? "application/octet-stream" }), f.name);
  const req = new Request("http://127.0.0.1/api/v1/documents", { method: "POST", body: form });
  return (await uploadDocuments(c, req, { maxBytes: opts.maxBytes })).documents;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const idle = (c: MemoContext) => queueFor(c).whenIdle();
const memoryRows = (c: MemoContext, documentId: string) =>
  c.db
    .prepare(
      "SELECT kind, document_id AS documentId, chunk_index AS chunkIndex, timestamp, content FROM memories WHERE document_id = ? ORDER BY chunk_index",
    )
    .all(documentId) as {
    kind: string;
    documentId: string;
    chunkIndex: number;
    timestamp: string;
    content: string;
  }[];

const MARKDOWN = [
  "# Field guide",
  "",
  englishText(1500, "md-1"),
  "",
  "## Tides",
  "",
  "The harbour tide table lists a spring tide of 4.2 metres on the ninth of March.",
  "",
  englishText(2500, "md-2"),
  "",
  "## Birds",
  "",
  englishText(2500, "md-3"),
].join("\n");
const PDF_PHRASE = "The lighthouse keeper counted seventeen gulls on the northern breakwater";

test("MD, TXT and PDF in one upload: each becomes document memories with its id, chunk index and source name", async () => {
  const c = ctx();
  const pdf = await makeTextPdf([
    [englishText(1200, "pdf-1"), `${PDF_PHRASE} before sunrise.`],
    [englishText(1500, "pdf-2")],
  ]);
  const rows = await upload(c, [
    { name: "guide.md", bytes: utf8(MARKDOWN), type: "text/markdown" },
    { name: "story.txt", bytes: utf8(englishText(6000, "txt")) },
    { name: "keeper.pdf", bytes: pdf, type: "application/pdf" },
  ]);
  assert.deepEqual(
    rows.map((r) => [r.name, r.status]),
    [
      ["guide.md", "queued"],
      ["story.txt", "queued"],
      ["keeper.pdf", "queued"],
    ],
  );
  await idle(c);
  for (const r of rows) {
    const d = getDocumentOr404(c, r.id);
    assert.equal(d.status, "done", `${d.name}: ${d.error}`);
    assert.ok(d.chunksTotal >= 2, `${d.name} has ${d.chunksTotal} chunks`);
    assert.deepEqual(
      [d.chunksDone, d.progress, d.memories, d.canReingest, d.queuePosition],
      [d.chunksTotal, 1, d.chunksTotal, true, null],
    );
    const mems = memoryRows(c, r.id);
    assert.deepEqual(
      mems.map((m) => m.chunkIndex),
      [...Array(d.chunksTotal).keys()],
      "chunk indexes 0..n-1",
    );
    assert.ok(mems.every((m) => m.kind === "document" && m.timestamp === d.createdAt));
  }
  assert.deepEqual(
    [getDocument(c.db, rows[0]!.id)!.mime, getDocument(c.db, rows[2]!.id)!.mime],
    ["text/markdown", "application/pdf"],
  );
  // Markdown was split on headings: the tide sentence starts a chunk under its heading.
  assert.ok(memoryRows(c, rows[0]!.id).some((m) => m.content.startsWith("## Tides\n\nThe harbour tide table")));
  assert.deepEqual(checkInvariant(c.db), []);

  // Search shows where a memory came from.
  const res = await search(c, {
    query: "lighthouse keeper counted seventeen gulls",
    options: { qualityFilter: false },
  });
  const hit = res.results.find((x) => x.content.includes("seventeen gulls"));
  assert.ok(hit, "the PDF's phrase is found");
  assert.deepEqual([hit.kind, hit.documentId, hit.documentName], ["document", rows[2]!.id, "keeper.pdf"]);
  assert.equal(res.results[0]!.documentName, "keeper.pdf", "and ranks first");
  assert.deepEqual(
    listDocuments(c)
      .map((d) => d.name)
      .sort(),
    ["guide.md", "keeper.pdf", "story.txt"],
  );
});

test("re-ingesting the same file adds 0 chunks: upload again, or the Re-ingest action", async () => {
  const c = ctx(emb, { ingest: { maxTokens: 128 } });
  const bytes = utf8(englishText(5000, "again"));
  const [first] = await upload(c, [{ name: "notes.txt", bytes }]);
  await idle(c);
  const doc = getDocumentOr404(c, first!.id);
  assert.equal(doc.status, "done");
  const counts = rawCounts(c.db);
  const embedded = emb.calls.filter((x) => x.kind === "document").length;

  const [again, renamed] = await upload(c, [
    { name: "notes.txt", bytes },
    { name: "copy of notes.txt", bytes },
  ]);
  await idle(c);
  assert.deepEqual(again, { id: first!.id, name: "notes.txt", status: "done", duplicateOf: first!.id });
  assert.equal(renamed!.duplicateOf, first!.id, "same bytes under another name: the same document");
  assert.equal(listDocuments(c).length, 1);

  const re = reingestDocument(c, first!.id);
  assert.ok(re.status === "queued" || re.status === "processing", re.status); // an idle queue starts it at once
  await idle(c);
  assert.equal(getDocumentOr404(c, first!.id).status, "done");
  assert.deepEqual(rawCounts(c.db), counts, "no memory added");
  assert.equal(emb.calls.filter((x) => x.kind === "document").length, embedded, "nothing embedded again");

  // Re-ingest restores a chunk deleted meanwhile, and only that one.
  const ids = documentMemoryIds(c.db, first!.id);
  softDeleteMemories(c.db, [ids[1]!]);
  reingestDocument(c, first!.id);
  await idle(c);
  assert.equal(getDocumentOr404(c, first!.id).memories, doc.chunksTotal);
  assert.equal(emb.calls.filter((x) => x.kind === "document").length, embedded + 1, "one chunk embedded");
  assert.deepEqual(checkInvariant(c.db), []);

  // The same file in another space is a separate document there.
  const [other] = await upload(c, [{ name: "notes.txt", bytes }], { space: "work" });
  assert.notEqual(other!.id, first!.id);
  await idle(c);
  assert.equal(getDocumentOr404(c, other!.id).memories, doc.chunksTotal);
  assert.throws(
    () => reingestDocument(c, "00000000-0000-4000-8000-000000000000"),
    (e: unknown) => e instanceof ServiceError && e.status === 404,
  );
});

test("delete removes the document's memories from all three tables (soft-deleted ones too), its row and its file", async () => {
  const c = ctx(emb, { ingest: { maxTokens: 128 } });
  const [keep, gone] = await upload(c, [
    { name: "keep.md", bytes: utf8(`# Keep\n\n${englishText(2000, "keep")}`) },
    { name: "gone.md", bytes: utf8(`# Gone\n\n${englishText(3000, "gone")}`) },
  ]);
  await idle(c);
  const before = rawCounts(c.db);
  const goneIds = documentMemoryIds(c.db, gone!.id);
  assert.ok(goneIds.length >= 3);
  softDeleteMemories(c.db, [goneIds[0]!]); // one of them parked in the trash
  const file = queueFor(c).fileOf(gone!.id);
  assert.ok(fs.existsSync(file));

  const res = await deleteDocument(c, gone!.id);
  assert.deepEqual(res, { id: gone!.id, deleted: true, memories: goneIds.length });
  const afterCounts = rawCounts(c.db);
  assert.deepEqual(afterCounts, {
    memories: before.memories - goneIds.length,
    vec: before.vec - goneIds.length,
    fts: before.fts - goneIds.length,
    trash: 0,
  });
  assert.deepEqual(checkInvariant(c.db), []);
  assert.equal(getDocument(c.db, gone!.id), undefined);
  assert.equal(fs.existsSync(file), false);
  assert.equal(
    getDocumentOr404(c, keep!.id).memories,
    getDocumentOr404(c, keep!.id).chunksTotal,
    "the other document is untouched",
  );
  await assert.rejects(deleteDocument(c, gone!.id), (e: unknown) => e instanceof ServiceError && e.status === 404);
});

test("bad files each get a clear error on their row; the good file in the same upload goes through; nothing else is written", async () => {
  const c = ctx(emb, { ingest: { maxTokens: 128 } });
  const latin1 = new Uint8Array([...utf8("Caf"), 0xe9, ...utf8(" au lait, s'il vous pla"), 0xee, ...utf8("t.")]);
  const rows = await upload(
    c,
    [
      { name: "empty.md", bytes: new Uint8Array(0) },
      { name: "photo.pdf", bytes: makePng(), type: "application/pdf" },
      { name: "broken.pdf", bytes: await makeCorruptPdf() },
      { name: "scan.pdf", bytes: await makeImageOnlyPdf(3) },
      { name: "latin1.txt", bytes: latin1 },
      { name: "huge.txt", bytes: utf8(englishText(100_000, "huge")) },
      { name: "good.md", bytes: utf8(`# Good\n\n${englishText(1500, "good")}`) },
    ],
    { maxBytes: 64 * 1024 },
  );
  // Checked at upload (bytes alone): rejected at once.
  assert.deepEqual(
    rows.map((r) => [r.name, r.status]),
    [
      ["empty.md", "failed"],
      ["photo.pdf", "failed"],
      ["broken.pdf", "queued"],
      ["scan.pdf", "queued"],
      ["latin1.txt", "failed"],
      ["huge.txt", "failed"],
      ["good.md", "queued"],
    ],
  );
  await idle(c);
  const byName = new Map(listDocuments(c).map((d) => [d.name, d]));
  const expectFailed = (name: string, re: RegExp) => {
    const d = byName.get(name)!;
    assert.equal(d.status, "failed", name);
    assert.match(d.error ?? "", re, name);
    assert.equal(d.memories, 0, name);
    assert.equal(
      d.canReingest,
      name.endsWith(".pdf") && name !== "photo.pdf",
      `${name}: only files that passed the upload checks are kept`,
    );
  };
  expectFailed("empty.md", /^the file is empty \(0 bytes\)$/);
  expectFailed("photo.pdf", /named \.pdf but its content is a PNG image, not a PDF/);
  expectFailed("broken.pdf", /^corrupt PDF: it could not be read/);
  expectFailed("scan.pdf", /no text layer \(3 pages of images only.*run OCR/);
  expectFailed("latin1.txt", /not valid UTF-8 text \(invalid byte 0xe9 at offset 3\)/);
  expectFailed("huge.txt", /^the file is 97\.7 KB; the limit is 64\.0 KB per file \(MEMO_MAX_UPLOAD_MB\)$/);
  const good = byName.get("good.md")!;
  assert.equal(good.status, "done");
  assert.equal(rawCounts(c.db).memories, good.chunksTotal, "only the good file's chunks were written");
  assert.deepEqual(checkInvariant(c.db), []);
  assert.ok(
    !fs.readdirSync(queueFor(c).uploadsDir).some((f) => f.startsWith(".incoming-")),
    "no staged file left behind",
  );
});

test("request-level errors: not multipart, no file, wrong field, bad space, unknown space", async () => {
  const c = ctx();
  const isStatus = (status: number, re: RegExp) => (e: unknown) =>
    e instanceof ServiceError && e.status === status && re.test(e.message);
  await assert.rejects(
    uploadDocuments(
      c,
      new Request("http://x/api/v1/documents", {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      }),
    ),
    isStatus(400, /multipart\/form-data/),
  );
  const noFile = new FormData();
  noFile.append("space", "personal");
  await assert.rejects(
    uploadDocuments(c, new Request("http://x/", { method: "POST", body: noFile })),
    isStatus(400, /no file in the request/),
  );
  const wrongField = new FormData();
  wrongField.append("upload", new Blob(["hi"]), "a.txt");
  await assert.rejects(
    uploadDocuments(c, new Request("http://x/", { method: "POST", body: wrongField })),
    isStatus(400, /field 'file'/),
  );
  await assert.rejects(
    upload(c, [{ name: "a.txt", bytes: utf8("hello") }], { space: "no spaces allowed" }),
    isStatus(400, /space must be/),
  );
  assert.throws(() => listDocuments(c, "never-made"), isStatus(404, /space 'never-made' does not exist/));
  assert.deepEqual(listDocuments(c), []);
  assert.equal(rawCounts(c.db).memories, 0);
});

test("a failure midway (embedding server gone on the 3rd request) leaves no memory of the document", async () => {
  const failing = new Wrapped(emb, {
    beforeEmbed: (n) => {
      if (n === 3)
        throw new EmbedderUnavailableError(
          "The embedding server did not answer (connection refused). Nothing was written.",
        );
    },
  });
  const c = ctx(failing, { ingest: { maxTokens: 128, batchSize: 2 } });
  const [row] = await upload(c, [{ name: "long.txt", bytes: utf8(englishText(8000, "fail")) }]);
  await idle(c);
  const d = getDocumentOr404(c, row!.id);
  assert.equal(d.status, "failed");
  assert.match(d.error!, /embedding server did not answer.*Re-ingest the file once the embedding server is back/);
  assert.equal(failing.documentCalls, 3, "two batches were written before the failure");
  assert.deepEqual([d.memories, d.chunksDone], [0, 0]);
  assert.deepEqual(rawCounts(c.db), { memories: 0, vec: 0, fts: 0, trash: 0 });
  assert.deepEqual(checkInvariant(c.db), []);
  // The file is kept: once the server is back, re-ingest completes it.
  assert.equal(d.canReingest, true);
  reingestDocument(c, row!.id);
  await idle(c);
  assert.equal(getDocumentOr404(c, row!.id).status, "done");
});

test("progress is written to the row while a job runs; cancel stops it and keeps nothing; a queued one never starts", async () => {
  const slow = new Wrapped(emb, { beforeEmbed: () => new Promise((r) => setTimeout(r, 60)) });
  const c = ctx(slow, { ingest: { maxTokens: 128, batchSize: 1 } });
  const [running, waiting] = await upload(c, [
    { name: "running.txt", bytes: utf8(englishText(9000, "cancel-1")) },
    { name: "waiting.txt", bytes: utf8(englishText(3000, "cancel-2")) },
  ]);
  assert.equal(getDocumentOr404(c, waiting!.id).queuePosition, 1);
  const seen = new Set<number>();
  for (let i = 0; i < 400; i++) {
    const d = getDocument(c.db, running!.id)!;
    if (d.status === "processing" && d.chunksTotal > 0) seen.add(d.chunksDone);
    if (d.chunksDone >= 3) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(
    [...seen].some((n) => n > 0 && n < getDocument(c.db, running!.id)!.chunksTotal),
    `progress seen: ${[...seen]}`,
  );
  const cancelledWaiting = await cancelDocument(c, waiting!.id);
  assert.equal(cancelledWaiting.status, "cancelled");
  const cancelled = await cancelDocument(c, running!.id);
  assert.deepEqual([cancelled.status, cancelled.memories, cancelled.error], ["cancelled", 0, null]);
  await idle(c);
  assert.equal(getDocument(c.db, waiting!.id)!.status, "cancelled");
  assert.deepEqual(rawCounts(c.db), { memories: 0, vec: 0, fts: 0, trash: 0 });
  assert.deepEqual(checkInvariant(c.db), []);
  await assert.rejects(cancelDocument(c, running!.id), (e: unknown) => e instanceof ServiceError && e.status === 409);
});

test("restart: an unfinished document resumes where it stopped; one whose file is gone fails cleanly", async () => {
  const slow = new Wrapped(emb, { beforeEmbed: () => new Promise((r) => setTimeout(r, 40)) });
  const c = ctx(slow, { ingest: { maxTokens: 128, batchSize: 2 } });
  const [row] = await upload(c, [{ name: "resume.txt", bytes: utf8(englishText(8000, "resume")) }]);
  for (let i = 0; i < 500 && getDocument(c.db, row!.id)!.chunksDone < 4; i++)
    await new Promise((r) => setTimeout(r, 10));
  // The process dies: the job stops with the row still `processing` and some chunks written.
  await queueFor(c).stop();
  const partial = documentMemoryIds(c.db, row!.id).length;
  const total = getDocument(c.db, row!.id)!.chunksTotal;
  assert.equal(getDocument(c.db, row!.id)!.status, "processing");
  assert.ok(partial >= 4 && partial < total, `${partial} of ${total} written`);
  // A second unfinished document whose uploaded file is gone, with a stray partial memory.
  const [lost] = insertDocuments(c.db, [
    { spaceId: "personal", name: "lost.md", mime: "text/markdown", size: 10, contentHash: "x", status: "queued" },
  ]);
  updateDocument(c.db, lost!.id, { status: "processing" });
  c.db.prepare("UPDATE memories SET document_id = ? WHERE id = ?").run(lost!.id, documentMemoryIds(c.db, row!.id)[0]);
  const uploads = uploadsDirFor(c.db);
  fs.writeFileSync(`${uploads}/.incoming-stale`, "half an upload");

  // The next start: a fresh queue over the same store.
  const calls = slow.documentCalls;
  const q = new IngestQueue(c, { uploadsDir: uploads, ingest: { maxTokens: 128, batchSize: 2 } });
  const r = q.recover();
  assert.deepEqual(r, { resumed: [row!.id], failed: [lost!.id] });
  await q.whenIdle();
  const d = getDocument(c.db, row!.id)!;
  assert.equal(d.status, "done");
  assert.equal(documentMemoryIds(c.db, row!.id).length, total);
  assert.ok(
    slow.documentCalls - calls <= Math.ceil((total - partial + 1) / 2),
    "only the missing chunks were embedded",
  );
  const l = getDocument(c.db, lost!.id)!;
  assert.equal(l.status, "failed");
  assert.match(l.error!, /uploaded file is no longer on disk; upload it again/);
  assert.equal(documentMemoryIds(c.db, lost!.id).length, 0, "its partial memory was removed");
  assert.equal(fs.existsSync(`${uploads}/.incoming-stale`), false);
  assert.deepEqual(checkInvariant(c.db), []);
});

test("addDocument (scripts): the same path as an upload", async () => {
  const c = ctx(emb, { ingest: { maxTokens: 128 } });
  const row = await addDocument(c, "script.md", utf8(`# From a script\n\n${englishText(800, "script")}`), "scripts");
  await idle(c);
  assert.equal(getDocumentOr404(c, row.id).status, "done");
  assert.equal(getDocumentOr404(c, row.id).space, "scripts");
});
