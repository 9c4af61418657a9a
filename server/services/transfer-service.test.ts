/**
 * Export → import round trip on real stores with the real bundled embedding model: the same contents
 * come back, a second import adds nothing, and a bad file is a 400 that writes nothing.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { checkInvariant, softDeleteMemories } from "../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../test/temp-store";
import { search } from "../memory/retrieval/search";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import {
  EXPORT_VERSION,
  exportFileName,
  exportMemories,
  importGroups,
  planExportImport,
  type ExportFile,
} from "./transfer-service";

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

/** What must survive a round trip (createdAt and retrieval statistics belong to the store, not the memory). */
const essence = (f: ExportFile) =>
  f.memories
    .map((m) => ({
      space: m.space,
      content: m.content,
      timestamp: m.timestamp,
      importance: m.importance,
      pinned: m.pinned,
      kind: m.kind,
      source: m.source,
    }))
    .sort((a, b) => `${a.space}|${a.content}`.localeCompare(`${b.space}|${b.content}`));

async function seed(c: MemoContext): Promise<string[]> {
  const ids = await addMemories(c, [
    { text: "My sister's birthday is on the 3rd of March", timestamp: "2023-03-01T09:00:00.000Z", importance: 4 },
    {
      text: "Remember: the wifi password is on the fridge",
      kind: "remember",
      pinned: true,
      timestamp: "2024-01-10T12:00:00.000Z",
    },
    { text: "We talked about planting tomatoes on the balcony", timestamp: "2024-05-02T18:30:00.000Z", kind: "chat" },
    {
      text: "Quarterly planning: ship the importer by June",
      space: "work",
      timestamp: "2024-04-15T08:00:00.000Z",
      importance: 3,
    },
    { text: "Deleted thought that must not be exported", timestamp: "2024-04-16T08:00:00.000Z" },
  ]);
  softDeleteMemories(c.db, ids[4]!);
  return ids.flat();
}

test("export → import round trip: same contents in a fresh store, nothing doubled on a second import", async () => {
  const a = ctx();
  await seed(a);
  const file = JSON.parse(JSON.stringify(exportMemories(a.db))) as ExportFile; // through JSON, as a file would be
  assert.equal(file.format, "memo-export");
  assert.equal(file.version, EXPORT_VERSION);
  assert.equal(file.space, null);
  assert.equal(file.count, 4, "soft-deleted memories are not exported");
  assert.equal(file.embeddingModel, "universal-sentence-encoder-lite");
  assert.ok(
    file.memories.every((m) => !("vector" in m) && !("embedding" in m)),
    "no vectors in the file",
  );
  const pinned = file.memories.find((m) => m.kind === "remember")!;
  assert.deepEqual([pinned.pinned, pinned.importance, pinned.timestamp], [true, 5, "2024-01-10T12:00:00.000Z"]);

  const b = ctx();
  const plan = planExportImport(file);
  assert.equal(plan.detail, "4 memories for 2 spaces");
  const first = await importGroups(b, plan.groups);
  assert.deepEqual([first.imported, first.duplicates, first.total, first.done], [4, 0, 4, 4]);
  assert.deepEqual(checkInvariant(b.db), []);
  assert.deepEqual(
    essence(exportMemories(b.db)),
    essence(file),
    "the same memories with the same times, importance, pin, kind and source",
  );

  const progress: number[] = [];
  const second = await importGroups(b, planExportImport(file).groups, (p) => progress.push(p.done));
  assert.deepEqual([second.imported, second.duplicates, second.total], [0, 4, 0]);
  assert.deepEqual(progress, [0]);
  assert.deepEqual(rawCounts(b.db), { memories: 4, vec: 4, fts: 4, trash: 0 });

  // The imported memories were embedded with the current model: search finds them by meaning and words.
  const r = await search(b, { query: "when is my sister's birthday", space: "personal" });
  assert.equal(r.results[0]?.content, "My sister's birthday is on the 3rd of March");
});

test("export of one space; import into another space; duplicates inside one file are stored once", async () => {
  const a = ctx();
  await seed(a);
  const work = exportMemories(a.db, "work");
  assert.deepEqual(
    work.memories.map((m) => m.content),
    ["Quarterly planning: ship the importer by June"],
  );
  assert.equal(exportFileName("work", new Date("2024-06-01T10:00:00Z")), "memo-export-work-2024-06-01.json");
  assert.throws(() => exportMemories(a.db, "nope"), isServiceError(404, /space 'nope' does not exist/));

  const doubled: ExportFile = { ...work, memories: [...work.memories, ...work.memories], count: 2 };
  const plan = planExportImport(JSON.parse(JSON.stringify(doubled)), "restored");
  const r = await importGroups(a, plan.groups);
  assert.deepEqual([r.imported, r.duplicates], [1, 1]);
  assert.deepEqual(
    exportMemories(a.db, "restored").memories.map((m) => [m.space, m.content, m.timestamp]),
    [["restored", "Quarterly planning: ship the importer by June", "2024-04-15T08:00:00.000Z"]],
  );
  assert.deepEqual(checkInvariant(a.db), []);
});

test("a bad file is a 400 naming the problem, and nothing is written", async () => {
  const c = ctx();
  await seed(c);
  const before = rawCounts(c.db);
  const good = exportMemories(c.db);
  const cases: [unknown, RegExp][] = [
    [null, /not a Memo export/],
    ["text", /not a Memo export/],
    [[{ mapping: {} }], /for a ChatGPT or Claude conversations\.json use its import/],
    [{ ...good, format: "something-else" }, /format must be "memo-export"/],
    [{ ...good, version: 2 }, /version 2; this Memo reads version 1/],
    [{ ...good, version: 0 }, /unsupported export version 0/],
    [{ ...good, memories: "all of them" }, /memories: /],
    [
      { ...good, memories: [good.memories[0], { ...good.memories[1], content: "  " }] },
      /memories\.1\.content: text must not be empty/,
    ],
    [
      { ...good, memories: [{ ...good.memories[0], timestamp: "last tuesday" }] },
      /memories\.0\.timestamp: timestamp must be an ISO-8601/,
    ],
    [{ ...good, memories: [{ ...good.memories[0], importance: 9 }] }, /memories\.0\.importance/],
    [{ ...good, memories: [{ ...good.memories[0], kind: "gossip" }] }, /memories\.0\.kind/],
    [{ ...good, memories: [{ ...good.memories[0], space: "bad space!" }] }, /memories\.0\.space: space must be/],
  ];
  for (const [data, msg] of cases) assert.throws(() => planExportImport(data), isServiceError(400, msg), String(msg));
  assert.throws(() => planExportImport(good, "bad space!"), isServiceError(400, /space must be/));
  assert.deepEqual(rawCounts(c.db), before);
});

test("an import that fails half-way keeps whole batches only, and running it again completes it", async () => {
  const a = ctx();
  const texts = Array.from(
    { length: 10 },
    (_, i) => `Imported note number ${i + 1} about topic ${String.fromCharCode(65 + i)}`,
  );
  const file: ExportFile = {
    format: "memo-export",
    version: 1,
    exportedAt: new Date().toISOString(),
    space: "personal",
    embeddingModel: null,
    count: texts.length,
    memories: texts.map((content, i) => ({
      space: "personal",
      content,
      timestamp: `2024-02-${String(i + 1).padStart(2, "0")}T10:00:00.000Z`,
      importance: 1,
      pinned: false,
      kind: "import",
      source: { conversationId: null, documentId: null, documentName: null, chunkIndex: null },
      createdAt: new Date().toISOString(),
      retrievalCount: 0,
      lastRetrievedAt: null,
    })),
  };
  let calls = 0;
  const flaky: MemoContext = {
    db: a.db,
    embedder: {
      info: () => emb.info(),
      embedQueries: (t) => emb.embedQueries(t),
      tokenize: (t) => emb.tokenize(t),
      embedDocuments: async (t) => {
        if (++calls === 2) throw new ServiceError(503, "embedding server is down");
        return emb.embedDocuments(t);
      },
    },
  };
  await assert.rejects(importGroups(flaky, planExportImport(file).groups, undefined, 4), isServiceError(503));
  assert.deepEqual(
    rawCounts(a.db),
    { memories: 4, vec: 4, fts: 4, trash: 0 },
    "the first batch of 4, whole; nothing of the failed one",
  );
  const again = await importGroups(a, planExportImport(file).groups, undefined, 4);
  assert.deepEqual([again.imported, again.duplicates], [6, 4]);
  assert.deepEqual(checkInvariant(a.db), []);
  assert.equal(rawCounts(a.db).memories, 10);
});

test("an imported exchange keeps its speakers' names; spans that do not fit the content are dropped", async () => {
  const c = ctx();
  const content = "Caroline: I went to a support group. Melanie: How was it?";
  const spans = [
    { name: "Caroline", start: 10, end: 36 },
    { name: "Melanie", start: 46, end: content.length },
  ];
  const file = {
    format: "memo-export",
    version: EXPORT_VERSION,
    memories: [
      {
        content: `  ${content}`,
        timestamp: "2023-05-08T13:56:00.000Z",
        speakers: spans.map((s) => ({ ...s, start: s.start + 2, end: s.end + 2 })),
      },
      {
        content: "Melanie: short",
        timestamp: "2023-05-08T13:57:00.000Z",
        speakers: [{ name: "Melanie", start: 9, end: 99 }],
      },
    ],
  };
  await importGroups(c, planExportImport(file, "friends").groups);
  const out = exportMemories(c.db, "friends").memories;
  const named = out.find((m) => m.content === content)!;
  assert.deepEqual(
    named.speakers!.map((s) => [s.name, named.content.slice(s.start, s.end)]),
    [
      ["Caroline", "I went to a support group."],
      ["Melanie", "How was it?"],
    ],
  );
  assert.equal(out.find((m) => m.content === "Melanie: short")!.speakers, null);
});
