import { test, expect } from "./fixtures";
import type { ApiError, SearchResponse, StoreCounts } from "./support/memo-api";

/** The HTTP API for scripts: invalid input is a 400 with a readable message and writes nothing. */

const FTS_SYNTAX = `"AND( NEAR *`;

async function expectReadable400(res: { status(): number; json(): Promise<unknown> }, message: RegExp): Promise<void> {
  expect(res.status()).toBe(400);
  const body = (await res.json()) as ApiError;
  expect(body.error.status).toBe(400);
  expect(body.error.message).toMatch(message);
  // Readable: a sentence for people, not a stack trace or a JSON dump of the validator's output.
  expect(body.error.message).not.toMatch(/\n\s+at |^\s*[[{]/);
}

function expectConsistent(c: StoreCounts): void {
  expect(c.consistent).toBe(true);
  expect(c.vectors).toBe(c.memories);
  expect(c.fts).toBe(c.memories);
}

test.describe("HTTP API", () => {
  test("GET /api/health reports a ready embedder and a consistent store", async ({ api }) => {
    const h = await api.health();
    expect(h.ok).toBe(true);
    expect(h.embedder.status).toBe("ready");
    expect(h.embedder.dim).toBeGreaterThan(0);
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

  test("POST /api/v1/memories rejects invalid bodies with a readable 400 and writes nothing", async ({ api }) => {
    const before = await api.counts();
    for (const c of invalidMemories) {
      await test.step(c.name, async () => {
        const res = await api.postRaw("/api/v1/memories", c.body, c.contentType);
        await expectReadable400(res, c.message);
      });
    }
    expect(await api.counts()).toEqual(before);
  });

  test("POST /api/v1/memories/batch is all or nothing", async ({ api, space }) => {
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
    expect(await api.counts()).toEqual(before);
  });

  test("POST /api/v1/search validates its input", async ({ api, space }) => {
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
    expect(missing.status()).toBe(404);
    expect(((await missing.json()) as ApiError).error.message).toBe("space 'no-such-space-e2e' does not exist");
    expect(await api.counts()).toEqual(before);
  });

  test("FTS query syntax in a search is plain text, never an error", async ({ api, space }) => {
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
      await test.step(query, async () => {
        const res = await api.postRaw("/api/v1/search", { query, space });
        expect(res.status(), await res.text()).toBe(200);
      });
    }
    // The words around the operators still find the memory by keyword.
    const found = await api.search({ query: `${FTS_SYNTAX} parser`, space });
    const hit = found.results.find((r) => r.id === id);
    expect(hit, "the memory with the operator characters is found").toBeTruthy();
    expect(["fts", "hybrid"]).toContain(hit!.matchType);
    expectConsistent(await api.counts());
  });

  test("POST /api/v1/search says what the dense leg embedded, the keyword leg the words as typed", async ({
    api,
    space,
  }) => {
    const [id] = await api.addMemory({ text: "My passport expires in March next year", space });
    const res = await api.postRaw("/api/v1/search", { query: "When does my passport expire?", space });
    expect(res.status()).toBe(200);
    const body = (await res.json()) as {
      queries: { text: string }[];
      dense: string[];
      results: { id: string; matchType: string }[];
    };
    expect(body.queries.map((q) => q.text)).toEqual(["When does my passport expire?"]);
    expect(body.dense).toEqual(["When does my passport expire?"]);
    expect(body.results[0]).toMatchObject({ id, matchType: "hybrid" });
  });

  test("an imported session dated once keeps its order: a short reply gains from the exchange before it", async ({
    api,
    space,
  }) => {
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
    expect(hit, "the reply is found").toBeTruthy();
    expect(hit!.moves ?? [], "its neighbour, written just before it, passed it part of its score").toContainEqual(
      expect.stringMatching(/^neighbour \+/),
    );
  });

  test("a search's `at` is the turn's date: an imported conversation's \"last week\" is the week before it", async ({
    api,
    space,
  }) => {
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
    expect(asOf.time.windows.map((w) => [w.text, w.start.slice(0, 10), w.end.slice(0, 10)])).toEqual([
      ["last week", "2024-04-30", "2024-05-06"],
    ]);
    const dated = (id: string | undefined, r: SearchResponse) =>
      (r.results.find((x) => x.id === id)?.moves ?? []).some((m) => m.startsWith("date ×"));
    expect(dated(lastWeek, asOf), "the memory of the week before the conversation's date is boosted").toBe(true);
    expect(dated(before, asOf)).toBe(false);
    expect(asOf.results[0]?.id).toBe(lastWeek);

    // Without `at`, "last week" is the week before today: nothing of 2024 lies in it.
    const today = await api.search({ query, space, tzOffsetMinutes: 0 });
    expect(today.time.windows[0]!.start > "2025").toBe(true);
    expect(dated(lastWeek, today)).toBe(false);

    await expectReadable400(
      await api.postRaw("/api/v1/search", { query, space, at: "last Tuesday" }),
      /at must be an ISO-8601 date/,
    );
  });

  test("forget then restore keeps memories, vectors and FTS rows consistent", async ({ api, space }) => {
    const start = await api.counts();
    expectConsistent(start);
    await api.addMemories([
      { text: "The spare key is under the blue flowerpot", space },
      { text: "The blue bicycle needs a new chain", space },
      { text: "Dentist appointment moved to Thursday", space },
    ]);
    const added = await api.counts();
    expectConsistent(added);
    expect(added.memories).toBe(start.memories + 3);

    const forgot = await api.forget("BLUE", space);
    expect(forgot.count).toBe(2);
    expect(forgot.undo.ids).toHaveLength(2);
    expect(forgot.message).toMatch(/Forgot 2 memories matching “BLUE”/);
    const afterForget = await api.counts();
    expectConsistent(afterForget);
    expect(afterForget.memories).toBe(added.memories - 2);
    const hidden = await api.search({ query: "blue flowerpot key", space });
    expect([...hidden.results, ...hidden.dropped].some((r) => forgot.undo.ids.includes(r.id))).toBe(false);

    // Forgetting again finds nothing; an unknown space is a 404.
    expect((await api.forget("blue", space)).count).toBe(0);
    const missing = await api.postRaw("/api/v1/forget", { pattern: "blue", space: "no-such-space-e2e" });
    expect(missing.status()).toBe(404);
    await expectReadable400(
      await api.postRaw("/api/v1/forget", { pattern: "b", space }),
      /pattern must have at least 2 characters/,
    );

    const restored = await api.restore(forgot.undo.ids);
    expect(restored.restored.sort()).toEqual([...forgot.undo.ids].sort());
    const afterRestore = await api.counts();
    expectConsistent(afterRestore);
    expect(afterRestore).toEqual(added);
    const back = await api.search({ query: "blue flowerpot key", space });
    expect(back.results[0]?.content).toBe("The spare key is under the blue flowerpot");

    // Restoring twice changes nothing; ids that are not memory ids are a 400.
    expect((await api.restore(forgot.undo.ids)).restored).toEqual([]);
    expect(await api.counts()).toEqual(added);
    await expectReadable400(
      await api.postRaw("/api/v1/memories/restore", { ids: ["not-an-id"] }),
      /ids must be memory ids/,
    );
  });

  test("DELETE /api/v1/memories/:id is a soft delete that restore undoes", async ({ api, space }) => {
    const [[id]] = (await api.addMemories([{ text: "Parking spot is level 3, row F", space }])) as [[string]];
    const added = await api.counts();
    expect(await api.deleteMemory(id)).toEqual({ id, deleted: "soft" });
    const deleted = await api.counts();
    expectConsistent(deleted);
    expect(deleted.memories).toBe(added.memories - 1);
    expect((await api.restore([id])).restored).toEqual([id]);
    expect(await api.counts()).toEqual(added);
  });

  test("POST /api/v1/remember pins a memory and a duplicate is not stored twice", async ({ api, space }) => {
    const before = await api.counts();
    const res = await api.postRaw("/api/v1/remember", { text: "My passport number ends in 42", space });
    expect(res.status()).toBeLessThan(300);
    const { ids } = (await res.json()) as { ids: string[] };
    expect(ids).toHaveLength(1);
    const again = await api.addMemory({ text: "My passport number ends in 42", space });
    expect(again).toEqual(ids);
    const after = await api.counts();
    expectConsistent(after);
    expect(after.memories).toBe(before.memories + 1);
    await expectReadable400(await api.postRaw("/api/v1/remember", { text: " ", space }), /text must not be empty/);
  });
});
