/**
 * The facts contract (docs/api.md#facts) over the real route handlers, the tRPC router and MCP, on a real
 * store with the bundled embedding model: POST adds facts (origin "import") or answers a clear 400 and writes
 * nothing; GET lists current facts, with history=1 the replaced ones, with q those matching by keyword or
 * meaning; PATCH makes a new version that replaces the fact; DELETE forgets it with its history.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { GET as listRoute, POST as postRoute } from "../../app/api/v1/facts/route";
import { DELETE as deleteRoute, PATCH as patchRoute } from "../../app/api/v1/facts/[id]/route";
import { createCaller } from "../api/root";
import { appendMessages, createConversation } from "../chat/conversations";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { createMemoMcpServer } from "../mcp/server";
import { checkInvariant } from "../memory/store";
import { addMemories } from "../memory/store/add";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import type { FactView } from "./facts-service";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => {
  setAppContext(undefined);
  stores.forEach((s) => s.close());
});

async function seeded(): Promise<{ memo: MemoContext; m: string[] }> {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  setAppContext(memo);
  const m = (
    await addMemories(memo, [
      { text: "User: I live in Berlin. Assistant: Noted.", timestamp: "2024-03-01T09:00:00.000Z" },
      { text: "User: we moved to Lisbon in June. Assistant: Congratulations!", timestamp: "2024-06-20T09:00:00.000Z" },
      { text: "User: my dog Rex loves the beach. Assistant: Lovely.", timestamp: "2024-07-01T09:00:00.000Z" },
    ])
  ).map((x) => x[0]!);
  return { memo, m };
}

const url = (path: string) => `http://x${path}`;
const send = (method: string, body: unknown) => ({
  method,
  body: typeof body === "string" ? body : JSON.stringify(body),
  headers: { "content-type": "application/json" },
});
const post = (body: unknown) => postRoute(new Request(url("/api/v1/facts"), send("POST", body)));
const list = (query = "") => listRoute(new Request(url(`/api/v1/facts${query}`)));
const params = (id: string) => ({ params: Promise.resolve({ id }) });
const patch = (id: string, body: unknown) =>
  patchRoute(new Request(url(`/api/v1/facts/${id}`), send("PATCH", body)), params(id));
const del = (id: string) => deleteRoute(new Request(url(`/api/v1/facts/${id}`), { method: "DELETE" }), params(id));
const facts = async (res: Response) => ((await res.json()) as { facts: FactView[] }).facts;
const count = (memo: MemoContext) => (memo.db.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n;

test("POST adds facts (201 { ids }); GET lists the current ones, with history=1 the replaced ones, each with its dates and sources", async () => {
  const { memo, m } = await seeded();
  const r = await post({ items: [{ text: "Lives in Berlin", sources: [m[0]], validFrom: "2024-03-01" }] });
  assert.equal(r.status, 201);
  const [berlin] = ((await r.json()) as { ids: string[] }).ids;
  const r2 = await post({
    space: "personal",
    items: [
      { text: "Lives in Lisbon since June", sources: [m[1]], replaces: [berlin] },
      { text: "Has a dog called Rex", sources: [m[2]] },
    ],
  });
  assert.equal(r2.status, 201);
  const [lisbon, rex] = ((await r2.json()) as { ids: string[] }).ids;
  const current = await facts(await list());
  assert.deepEqual(current.map((f) => f.text).sort(), ["Has a dog called Rex", "Lives in Lisbon since June"]);
  const l = current.find((f) => f.id === lisbon)!;
  assert.deepEqual(
    { ...l, recordedAt: typeof l.recordedAt },
    {
      id: lisbon,
      text: "Lives in Lisbon since June",
      space: "personal",
      // "in June" in the text, read against the source's date.
      validFrom: "2024-06-01T00:00:00.000Z",
      recordedAt: "string",
      validTo: null,
      supersededBy: null,
      sources: [m[1]],
      origin: "import",
      confirmedAt: null,
    },
  );
  const all = await facts(await list("?history=1&space=personal"));
  const b = all.find((f) => f.id === berlin)!;
  assert.deepEqual([b.validTo, b.supersededBy], ["2024-06-01T00:00:00.000Z", lisbon]);
  assert.equal(all.length, 3);
  assert.ok(rex);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("bad input answers a clear 4xx and writes nothing", async () => {
  const { memo, m } = await seeded();
  const [ok] = ((await (await post({ items: [{ text: "A fact", sources: [m[0]] }] })).json()) as { ids: string[] }).ids;
  const before = count(memo);
  const cases: [unknown, RegExp][] = [
    ["{not json", /not valid JSON/],
    [{}, /items/],
    [{ items: [] }, /items must not be empty/],
    [{ items: [{ text: "", sources: [m[0]] }] }, /text must not be empty/],
    [{ items: [{ text: "x".repeat(501), sources: [m[0]] }] }, /at most 500 characters/],
    [{ items: [{ text: "no sources", sources: [] }] }, /at least one memory/],
    [{ items: [{ text: "no sources field" }] }, /sources/],
    [{ items: [{ text: "bad source", sources: ["not-a-uuid"] }] }, /sources must be memory ids/],
    [{ items: [{ text: "x", sources: [m[0]], origin: "learned" }] }, /Unrecognized key/],
    [{ items: [{ text: "x", sources: [m[0]], validFrom: "yesterday-ish" }] }, /validFrom must be an ISO-8601/],
    [{ space: "no spaces!", items: [{ text: "x", sources: [m[0]] }] }, /space must be/],
    [{ items: Array.from({ length: 101 }, () => ({ text: "x", sources: [m[0]] })) }, /at most 100 facts/],
    [
      {
        items: [
          { text: "fine", sources: [m[0]] },
          { text: "unknown source", sources: [crypto.randomUUID()] },
        ],
      },
      /items\[1\]\.sources: memory .* is not a live memory of this space/,
    ],
    [{ items: [{ text: "other space", sources: [m[0]] }], space: "work" }, /not a live memory of this space/],
    [{ items: [{ text: "x", sources: [m[0]], replaces: [crypto.randomUUID()] }] }, /not a current fact/],
  ];
  for (const [body, message] of cases) {
    const r = await post(body);
    const text = await r.text();
    assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${text}`);
    assert.match(text, message);
  }
  assert.equal(count(memo), before, "nothing written");
  assert.equal((await list("?history=yes")).status, 400);
  assert.equal((await list("?limit=0")).status, 400);
  assert.equal((await list("?space=nowhere")).status, 404);
  assert.equal((await patch("not-a-uuid", { text: "x" })).status, 400);
  assert.equal((await patch(ok!, { text: "   " })).status, 400);
  assert.equal((await patch(ok!, { text: "x", extra: 1 })).status, 400);
  assert.equal((await patch(crypto.randomUUID(), { text: "x" })).status, 404);
  assert.equal((await del("not-a-uuid")).status, 400);
  const missing = crypto.randomUUID();
  const d = await del(missing);
  assert.equal(d.status, 404);
  assert.deepEqual(await d.json(), { error: { status: 404, message: `fact ${missing} not found` } });
  assert.equal(count(memo), before);
});

test("GET ?q finds facts by keyword, by a part of a word and by meaning, and leaves out the unrelated", async () => {
  const { memo, m } = await seeded();
  // Enough memories for the space's chance similarity to be measured (what a match by meaning is read against).
  await addMemories(
    memo,
    [
      "the train to work was late again",
      "we painted the kitchen yellow",
      "my sister plays the violin",
      "the tax return is due in April",
      "I started running on Sundays",
      "our neighbours have a new car",
      "the printer is out of ink",
      "I booked a dentist appointment",
    ].map((t) => ({ text: `User: ${t}` })),
  );
  await post({
    items: [
      { text: "Has a dog called Rex", sources: [m[2]] },
      { text: "Lives in Lisbon", sources: [m[1]] },
      { text: "Works as a nurse at the hospital", sources: [m[0]] },
    ],
  });
  const texts = async (q: string) => (await facts(await list(`?q=${encodeURIComponent(q)}`))).map((f) => f.text);
  assert.deepEqual(await texts("what is Rex like"), ["Has a dog called Rex"], "by keyword");
  assert.deepEqual(await texts("isbo"), ["Lives in Lisbon"], "a part of a word: the text contains it");
  assert.deepEqual(await texts("puppy"), ["Has a dog called Rex"], "by meaning alone");
  assert.deepEqual(await texts("quantum chromodynamics lecture"), [], "nothing it is about");
});

test("PATCH makes a new version replacing the fact (201), the same text changes nothing (200); DELETE forgets it with its history", async () => {
  const { memo, m } = await seeded();
  const [id] = (
    (await (await post({ items: [{ text: "Lives in Berlin", sources: [m[0]] }] })).json()) as { ids: string[] }
  ).ids;
  const r = await patch(id!, { text: "Lives in Berlin-Mitte" });
  assert.equal(r.status, 201);
  const v2 = (await r.json()) as FactView;
  assert.equal(v2.text, "Lives in Berlin-Mitte");
  assert.equal(v2.origin, "person");
  assert.deepEqual(v2.sources, [m[0]]);
  const old = (await facts(await list("?history=1"))).find((f) => f.id === id)!;
  assert.equal(old.supersededBy, v2.id);
  assert.equal((await patch(v2.id, { text: "  Lives in Berlin-Mitte " })).status, 200, "unchanged");
  const stale = await patch(id!, { text: "edit the old one" });
  assert.equal(stale.status, 409);
  assert.match(await stale.text(), /edit its latest version/);
  const caller = createCaller({ memo, headers: new Headers() });
  assert.deepEqual(
    (await caller.facts.history({ id: id! })).facts.map((f) => f.text),
    ["Lives in Berlin-Mitte", "Lives in Berlin"],
  );
  assert.ok((await caller.facts.confirm({ id: v2.id })).fact.confirmedAt);
  const d = await del(v2.id);
  assert.equal(d.status, 200);
  assert.deepEqual(await d.json(), { id: v2.id, deleted: true });
  assert.deepEqual(await facts(await list("?history=1")), [], "gone with its history");
  assert.equal((await del(v2.id)).status, 404);
  await caller.facts.restore({ id: v2.id });
  assert.equal((await facts(await list("?history=1"))).length, 2, "restored with its history");
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("facts.sources links each source to its chat message or document; MCP list_facts lists facts", async () => {
  const { memo } = await seeded();
  const conv = createConversation(memo.db, { title: "Moving" });
  const [, assistant] = appendMessages(memo.db, conv.id, [
    { role: "user", content: "we moved to Porto" },
    { role: "assistant", content: "Nice!" },
  ]);
  const [[chat]] = await addMemories(memo, [{ text: "User: we moved to Porto Assistant: Nice!" }], {
    conversationId: conv.id,
  });
  memo.db.prepare("UPDATE messages SET memory_ids = ? WHERE id = ?").run(JSON.stringify([chat]), assistant!.id);
  const [id] = (
    (await (await post({ items: [{ text: "Lives in Porto", sources: [chat] }] })).json()) as { ids: string[] }
  ).ids;
  const caller = createCaller({ memo, headers: new Headers() });
  const s = await caller.facts.sources({ id: id! });
  assert.deepEqual(
    s.sources.map((x) => [x.memoryId, x.live, x.conversationId, x.messageId, x.documentId]),
    [[chat, true, conv.id, assistant!.id, null]],
  );

  const server = createMemoMcpServer(() => memo);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "memo-test", version: "1.0.0" });
  await client.connect(b);
  try {
    const r = (await client.callTool({ name: "list_facts", arguments: { q: "Porto" } })) as unknown as {
      structuredContent: { facts: { id: string; text: string; valid_from: string }[] };
      content: { text: string }[];
    };
    assert.deepEqual(
      r.structuredContent.facts.map((f) => f.text),
      ["Lives in Porto"],
    );
    assert.match(r.content[0]!.text, /Lives in Porto \(since \d{4}-\d\d-\d\d\)/);
  } finally {
    await client.close();
  }
});
