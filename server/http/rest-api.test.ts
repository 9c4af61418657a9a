/**
 * The HTTP API for scripts over real HTTP (moved down from e2e/api.spec.ts: no page involved): invalid input
 * is a 400 with a readable message and writes nothing; search, forget, restore and delete keep the store's
 * memories, vectors and keyword rows consistent; the documents API (moved down from e2e/ingest.spec.ts's
 * "Documents API") ingests, deduplicates and deletes uploads. The app runs in this process (server/test/app-server.ts:
 * the real start-up, handlers and access gate) on a data folder and port of its own.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AppServer, startAppServer } from "../test/app-server";
import { englishText } from "../test/english-text";
import { type ApiError, HttpApi, type SearchResponse, type StoreCounts, uniqueSpace } from "../test/http-api";

const FTS_SYNTAX = `"AND( NEAR *`;

let app: AppServer;
let api: HttpApi;
before(async () => {
  app = await startAppServer();
  api = new HttpApi(app.url);
});
after(() => app.close());

async function expectReadable400(res: Response, message: RegExp, what = ""): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 400, `${what} ${text}`);
  const body = JSON.parse(text) as ApiError;
  assert.equal(body.error.status, 400);
  assert.match(body.error.message, message, what);
  // Readable: a sentence for people, not a stack trace or a JSON dump of the validator's output.
  assert.doesNotMatch(body.error.message, /\n\s+at |^\s*[[{]/, what);
}

function expectConsistent(c: StoreCounts): void {
  assert.equal(c.consistent, true);
  assert.equal(c.vectors, c.memories);
  assert.equal(c.fts, c.memories);
}

describe("HTTP API", () => {
  test("the access gate runs in front of the handlers, as proxy.ts runs it: a cross-site mutation is refused", async (t) => {
    const space = uniqueSpace(t.name);
    const before = await api.counts();
    const res = await api.post(
      "/api/v1/remember",
      { text: "cross-site attempt", space },
      { origin: "https://evil.example" },
    );
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as ApiError).error.message, /cross-site request refused/);
    assert.deepEqual(await api.counts(), before);
  });

  test("GET /api/health reports a ready embedder and a consistent store", async () => {
    const h = await api.health();
    assert.equal(h.ok, true);
    assert.equal(h.embedder.status, "ready");
    assert.ok((h.embedder.dim ?? 0) > 0);
    expectConsistent(h.store);
  });

  const invalidMemories: { name: string; body: string | unknown; contentType?: string; message: RegExp }[] = [
    { name: "empty text", body: { text: "" }, message: /text must not be empty/ },
    { name: "blank text", body: { text: "   \n\t" }, message: /text must not be empty/ },
    { name: "invalid JSON", body: `{"text": "unterminated`, message: /not valid JSON/ },
    { name: "plain text body", body: "remember this", contentType: "text/plain", message: /not valid JSON/ },
    { name: "empty body", body: "", message: /body is empty/ },
    { name: "an array instead of an object", body: [{ text: "hello" }], message: /expected object/ },
    { name: "text as a number", body: { text: 42 }, message: /text: .*expected string/ },
    { name: "missing text", body: { space: "x" }, message: /text: / },
    {
      name: "importance as a string",
      body: { text: "valid text", importance: "high" },
      message: /importance: .*expected number/,
    },
    { name: "importance out of range", body: { text: "valid text", importance: 9 }, message: /importance: / },
    { name: "pinned as a string", body: { text: "valid text", pinned: "yes" }, message: /pinned: .*expected boolean/ },
    { name: "unknown kind", body: { text: "valid text", kind: "gossip" }, message: /kind: / },
    {
      name: "invalid timestamp",
      body: { text: "valid text", timestamp: "yesterday-ish" },
      message: /timestamp must be an ISO-8601/,
    },
    {
      name: "space with spaces and punctuation",
      body: { text: "valid text", space: "my space!" },
      message: /space must be 1–64 letters/,
    },
    {
      name: "space longer than 64",
      body: { text: "valid text", space: "s".repeat(65) },
      message: /space must be 1–64/,
    },
    { name: "unknown key", body: { text: "valid text", colour: "red" }, message: /Unrecognized key/ },
    { name: "NUL in text", body: { text: "bad\u0000text" }, message: /NUL/ },
  ];

  test("POST /api/v1/memories rejects invalid bodies with a readable 400 and writes nothing", async () => {
    const before = await api.counts();
    for (const c of invalidMemories) {
      const res = await api.postRaw("/api/v1/memories", c.body, c.contentType);
      await expectReadable400(res, c.message, c.name);
    }
    assert.deepEqual(await api.counts(), before);
  });

  test("POST /api/v1/memories/batch is all or nothing", async (t) => {
    const space = uniqueSpace(t.name);
    const before = await api.counts();
    const res = await api.postRaw("/api/v1/memories/batch", {
      items: [
        { text: "a valid memory about sailing", space },
        { text: "", space },
        { text: "another valid one", space },
      ],
    });
    await expectReadable400(res, /items\.1\.text: text must not be empty/);
    await expectReadable400(await api.postRaw("/api/v1/memories/batch", { items: [] }), /items must not be empty/);
    await expectReadable400(await api.postRaw("/api/v1/memories/batch", { items: "nope" }), /items: /);
    assert.deepEqual(await api.counts(), before);
  });

  test("POST /api/v1/search validates its input", async (t) => {
    const space = uniqueSpace(t.name);
    await api.addMemory({ text: "The lighthouse keeper painted the door blue", space });
    const before = await api.counts();
    await expectReadable400(await api.postRaw("/api/v1/search", { query: "", space }), /query must not be empty/);
    await expectReadable400(await api.postRaw("/api/v1/search", { query: 7, space }), /query: .*expected string/);
    await expectReadable400(
      await api.postRaw("/api/v1/search", { query: "door", space, k: 0 }),
      /k must be at least 1/,
    );
    await expectReadable400(
      await api.postRaw("/api/v1/search", { query: "door", space, k: "ten" }),
      /k: .*expected number/,
    );
    await expectReadable400(
      await api.postRaw("/api/v1/search", { query: "door", space: "bad space" }),
      /space must be/,
    );
    await expectReadable400(await api.postRaw("/api/v1/search", `{"query": `), /not valid JSON/);

    const missing = await api.postRaw("/api/v1/search", { query: "door", space: "no-such-space-e2e" });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as ApiError).error.message, "space 'no-such-space-e2e' does not exist");
    assert.deepEqual(await api.counts(), before);
  });

  test("FTS query syntax in a search is plain text, never an error", async (t) => {
    const space = uniqueSpace(t.name);
    const [id] = await api.addMemory({ text: `Keyboard shortcut notes: press "AND( NEAR * to test the parser`, space });
    await api.addMemory({ text: "The lighthouse keeper painted the door blue", space });
    for (const query of [
      FTS_SYNTAX,
      `${FTS_SYNTAX} parser`,
      `NEAR(parser shortcut, 2)`,
      `parser OR door`,
      `"`,
      `*`,
      `-door`,
      `col:parser`,
      `^parser`,
    ]) {
      const res = await api.postRaw("/api/v1/search", { query, space });
      assert.equal(res.status, 200, `${query}: ${await res.text()}`);
    }
    // The words around the operators still find the memory by keyword.
    const found = await api.search({ query: `${FTS_SYNTAX} parser`, space });
    const hit = found.results.find((r) => r.id === id);
    assert.ok(hit, "the memory with the operator characters is found");
    assert.ok(["fts", "hybrid"].includes(hit.matchType), hit.matchType);
    expectConsistent(await api.counts());
  });

  test("POST /api/v1/search says what the dense leg embedded, the keyword leg the words as typed", async (t) => {
    const space = uniqueSpace(t.name);
    const [id] = await api.addMemory({ text: "My passport expires in March next year", space });
    const res = await api.postRaw("/api/v1/search", { query: "When does my passport expire?", space });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      queries: { text: string }[];
      dense: string[];
      results: { id: string; matchType: string }[];
    };
    assert.deepEqual(
      body.queries.map((q) => q.text),
      ["When does my passport expire?"],
    );
    assert.deepEqual(body.dense, ["When does my passport expire?"]);
    assert.equal(body.results[0]?.id, id);
    assert.equal(body.results[0]?.matchType, "hybrid");
  });

  test("an imported session dated once keeps its order: a short reply gains from the exchange before it", async (t) => {
    const space = uniqueSpace(t.name);
    // A benchmark or an import often gives every exchange of a session the session's one date.
    const session = "2024-05-08T13:56:00.000Z";
    const [, [reply]] = await api.addMemories([
      {
        text: "User: We're repainting the living room this weekend.\nAssistant: Nice project! Have you settled on a colour?",
        space,
        timestamp: session,
      },
      {
        text: "User: Sage green on three walls and a warm white on the one with the window.\nAssistant: Calm and bright.",
        space,
        timestamp: session,
      },
      {
        text: "User: How long should I boil an egg?\nAssistant: About seven minutes for a jammy yolk.",
        space,
        timestamp: "2024-05-11T09:00:00.000Z",
      },
    ]);
    const found = await api.search({ query: "Which colour are we painting the living room?", space, k: 3 });
    const hit = found.results.find((r) => r.id === reply);
    assert.ok(hit, "the reply is found");
    assert.ok(
      (hit.moves ?? []).some((m) => /^neighbour \+/.test(m)),
      `its neighbour, written just before it, passed it part of its score: ${JSON.stringify(hit.moves)}`,
    );
  });

  test("a search's `at` is the turn's date: an imported conversation's \"last week\" is the week before it", async (t) => {
    const space = uniqueSpace(t.name);
    const [[before], [lastWeek]] = await api.addMemories([
      {
        text: "User: The tomatoes in the garden have blight.\nAssistant: Remove the spotted leaves.",
        space,
        timestamp: "2024-04-02T10:00:00.000Z",
      },
      {
        text: "User: I planted basil in the garden.\nAssistant: It likes the sun.",
        space,
        timestamp: "2024-05-03T10:00:00.000Z",
      },
    ]);
    const query = "What did I tell you about the garden last week?";
    const asOf = await api.search({ query, space, at: "2024-05-10T12:00:00+00:00", tzOffsetMinutes: 0 });
    assert.deepEqual(
      asOf.time.windows.map((w) => [w.text, w.start.slice(0, 10), w.end.slice(0, 10)]),
      [["last week", "2024-04-30", "2024-05-06"]],
    );
    const dated = (id: string | undefined, r: SearchResponse) =>
      (r.results.find((x) => x.id === id)?.moves ?? []).some((m) => m.startsWith("date ×"));
    assert.equal(dated(lastWeek, asOf), true, "the memory of the week before the conversation's date is boosted");
    assert.equal(dated(before, asOf), false);
    assert.equal(asOf.results[0]?.id, lastWeek);

    // Without `at`, "last week" is the week before today: nothing of 2024 lies in it.
    const today = await api.search({ query, space, tzOffsetMinutes: 0 });
    assert.equal(today.time.windows[0]!.start > "2025", true);
    assert.equal(dated(lastWeek, today), false);

    await expectReadable400(
      await api.postRaw("/api/v1/search", { query, space, at: "last Tuesday" }),
      /at must be an ISO-8601 date/,
    );
  });

  test("forget then restore keeps memories, vectors and FTS rows consistent", async (t) => {
    const space = uniqueSpace(t.name);
    const start = await api.counts();
    expectConsistent(start);
    await api.addMemories([
      { text: "The spare key is under the blue flowerpot", space },
      { text: "The blue bicycle needs a new chain", space },
      { text: "Dentist appointment moved to Thursday", space },
    ]);
    const added = await api.counts();
    expectConsistent(added);
    assert.equal(added.memories, start.memories + 3);

    const forgot = await api.forget("BLUE", space);
    assert.equal(forgot.count, 2);
    assert.equal(forgot.undo.ids.length, 2);
    assert.match(forgot.message, /Forgot 2 memories matching “BLUE”/);
    const afterForget = await api.counts();
    expectConsistent(afterForget);
    assert.equal(afterForget.memories, added.memories - 2);
    const hidden = await api.search({ query: "blue flowerpot key", space });
    assert.equal(
      [...hidden.results, ...hidden.dropped].some((r) => forgot.undo.ids.includes(r.id)),
      false,
    );

    // Forgetting again finds nothing; an unknown space is a 404.
    assert.equal((await api.forget("blue", space)).count, 0);
    const missing = await api.postRaw("/api/v1/forget", { pattern: "blue", space: "no-such-space-e2e" });
    assert.equal(missing.status, 404);
    await expectReadable400(
      await api.postRaw("/api/v1/forget", { pattern: "b", space }),
      /pattern must have at least 2 characters/,
    );

    const restored = await api.restore(forgot.undo.ids);
    assert.deepEqual(restored.restored.sort(), [...forgot.undo.ids].sort());
    const afterRestore = await api.counts();
    expectConsistent(afterRestore);
    assert.deepEqual(afterRestore, added);
    const back = await api.search({ query: "blue flowerpot key", space });
    assert.equal(back.results[0]?.content, "The spare key is under the blue flowerpot");

    // Restoring twice changes nothing; ids that are not memory ids are a 400.
    assert.deepEqual((await api.restore(forgot.undo.ids)).restored, []);
    assert.deepEqual(await api.counts(), added);
    await expectReadable400(
      await api.postRaw("/api/v1/memories/restore", { ids: ["not-an-id"] }),
      /ids must be memory ids/,
    );
  });

  test("DELETE /api/v1/memories/:id is a soft delete that restore undoes", async (t) => {
    const space = uniqueSpace(t.name);
    const [[id]] = (await api.addMemories([{ text: "Parking spot is level 3, row F", space }])) as [[string]];
    const added = await api.counts();
    assert.deepEqual(await api.deleteMemory(id), { id, deleted: "soft" });
    const deleted = await api.counts();
    expectConsistent(deleted);
    assert.equal(deleted.memories, added.memories - 1);
    assert.deepEqual((await api.restore([id])).restored, [id]);
    assert.deepEqual(await api.counts(), added);
  });

  test("POST /api/v1/remember pins a memory and a duplicate is not stored twice", async (t) => {
    const space = uniqueSpace(t.name);
    const before = await api.counts();
    const res = await api.postRaw("/api/v1/remember", { text: "My passport number ends in 42", space });
    assert.ok(res.status < 300, String(res.status));
    const { ids } = (await res.json()) as { ids: string[] };
    assert.equal(ids.length, 1);
    const again = await api.addMemory({ text: "My passport number ends in 42", space });
    assert.deepEqual(again, ids);
    const after = await api.counts();
    expectConsistent(after);
    assert.equal(after.memories, before.memories + 1);
    await expectReadable400(await api.postRaw("/api/v1/remember", { text: " ", space }), /text must not be empty/);
  });
});

interface DocumentJson {
  id: string;
  name: string;
  status: string;
  error: string | null;
  chunksTotal: number;
  chunksDone: number;
  memories: number;
}

describe("Documents API", () => {
  test("POST several files → 202 with a row per file; GET status; re-upload adds nothing; DELETE keeps the store consistent", async (t) => {
    const space = uniqueSpace(t.name);
    const form = new FormData();
    form.append("space", space);
    form.append(
      "file",
      new Blob([Buffer.from(`# Notes\n\n${englishText(2000, "api-md")}`)], { type: "text/markdown" }),
      "notes.md",
    );
    form.append("file", new Blob([new Uint8Array(0)]), "empty.txt");
    const res = await api.fetch("/api/v1/documents", { method: "POST", body: form });
    assert.equal(res.status, 202);
    const { documents } = (await res.json()) as {
      documents: { id: string; name: string; status: string; error?: string }[];
    };
    assert.deepEqual(
      documents.map((d) => [d.name, d.status]),
      [
        ["notes.md", "queued"],
        ["empty.txt", "failed"],
      ],
    );
    assert.equal(documents[1]!.error, "the file is empty (0 bytes)");

    const id = documents[0]!.id;
    const status = async () => ((await (await api.get(`/api/v1/documents/${id}`)).json()) as DocumentJson).status;
    const deadline = Date.now() + 60_000;
    let seen = await status();
    while (seen !== "done" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await status();
    }
    assert.equal(seen, "done", "the document was ingested within 60 s");
    const doc = (await (await api.get(`/api/v1/documents/${id}`)).json()) as DocumentJson;
    assert.equal(doc.chunksDone, doc.chunksTotal);
    assert.equal(doc.memories, doc.chunksTotal);

    const list = (await (await api.get(`/api/v1/documents?space=${space}`)).json()) as {
      documents: DocumentJson[];
    };
    assert.deepEqual(list.documents.map((d) => d.name).sort(), ["empty.txt", "notes.md"]);

    const countsBefore = await api.counts();
    const again = new FormData();
    again.append("file", new Blob([Buffer.from(`# Notes\n\n${englishText(2000, "api-md")}`)]), "notes.md");
    const res2 = await api.fetch(`/api/v1/documents?space=${space}`, { method: "POST", body: again });
    assert.equal(res2.status, 202);
    const dup = ((await res2.json()) as { documents: { id: string; duplicateOf?: string }[] }).documents[0];
    assert.equal(dup?.id, id);
    assert.equal(dup?.duplicateOf, id);
    assert.deepEqual(await api.counts(), countsBefore);

    const del = await api.delete(`/api/v1/documents/${id}`);
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { id, deleted: true, memories: doc.chunksTotal });
    assert.equal((await api.get(`/api/v1/documents/${id}`)).status, 404);
    const countsAfter = await api.counts();
    assert.equal(countsAfter.consistent, true);
    assert.equal(countsAfter.memories, countsBefore.memories - doc.chunksTotal);

    const bad = await api.post("/api/v1/documents", { file: "not multipart" });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /multipart\/form-data/);
  });
});
