/**
 * Dates Memo cannot compute with (issue 58). A memory stamped at the JavaScript date limits
 * (`+275760-09-13T00:00:00.000Z`, `-271821-04-20T00:00:00.000Z`) made search answer 500 and every chat turn
 * "Memory recall failed: Invalid time value" for its whole space. Now:
 *   - every way a date comes in refuses one outside years 0001–9999 with a 400 naming it, and writes nothing;
 *   - a row already stored with one is left out of search, recall and Analytics (logged), the rest answered;
 *   - a start repairs such rows (server/memory/store/stored-times.ts), after which they are found again.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { setDb } from "../db";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { createCaller } from "../api/root";
import { recallForPrompt } from "../chat/turn-recall";
import { queueFor } from "../ingest/queue";
import { repairStoredTimes } from "../memory/store/stored-times";
import { callRoute } from "../test/route-harness";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";

const EXTREMES = [
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00.000Z",
  "0000-06-01T00:00:00.000Z",
  "+010000-01-01T00:00:00.000Z",
];
const RANGE = /between 0001-01-01 and 9999-12-31/;

let store: TempStore;
let memo: MemoContext;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
const caller = () => createCaller({ memo, headers: new Headers() });
const count = () =>
  (
    store.sqlite.prepare("SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM facts) AS n").get() as {
      n: number;
    }
  ).n;

before(() => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST; // loopback, nobody else: the owner at the machine
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
});

after(async () => {
  await queueFor(memo).stop?.();
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("every way a date comes in refuses one Memo cannot keep, with a 400 naming it, and writes nothing", async () => {
  const [source] = (await caller().memory.add({ text: "My sister lives in Lisbon" })).ids;
  const before = count();
  for (const ts of EXTREMES) {
    const refused = async (where: string, a: { status: number; body: string }) => {
      assert.equal(a.status, 400, `${where} ${ts}: ${a.body.slice(0, 300)}`);
      assert.match(a.body, RANGE, `${where} ${ts}: says which dates are kept`);
    };
    await refused(
      "POST /api/v1/memories",
      await callRoute("POST /api/v1/memories", {}, { body: { text: "far", timestamp: ts } }),
    );
    await refused(
      "POST /api/v1/memories/batch",
      await callRoute("POST /api/v1/memories/batch", {}, { body: { items: [{ text: "far", timestamp: ts }] } }),
    );
    await refused(
      "POST /api/v1/search",
      await callRoute("POST /api/v1/search", {}, { body: { query: "sister", at: ts } }),
    );
    await refused(
      "POST /api/v1/facts",
      await callRoute(
        "POST /api/v1/facts",
        {},
        { body: { items: [{ text: "Sister in Lisbon", sources: [source], validFrom: ts }] } },
      ),
    );
    const exportFile = {
      format: "memo-export",
      version: 1,
      memories: [{ content: "far", timestamp: ts }],
    };
    await refused(
      "POST /api/v1/import",
      await callRoute("POST /api/v1/import", {}, { body: exportFile, query: "wait=1" }),
    );
    const claude = [
      {
        uuid: "c1",
        name: "far",
        created_at: "2024-01-01T00:00:00Z",
        chat_messages: [
          { sender: "human", text: "hello from far away", created_at: ts },
          { sender: "assistant", text: "hello", created_at: ts },
        ],
      },
    ];
    await refused(
      "POST /api/v1/import/claude",
      await callRoute(
        "POST /api/v1/import/[format]",
        {},
        { params: { format: "claude" }, body: claude, query: "wait=1" },
      ),
    );
    for (const procedure of [
      () => caller().memory.add({ text: "far", timestamp: ts }),
      () => caller().memory.search({ query: "sister", at: ts }),
      () => caller().manager.list({ to: ts }),
    ]) {
      await assert.rejects(
        procedure,
        (e: unknown) => e instanceof TRPCError && e.code === "BAD_REQUEST" && RANGE.test(e.message),
      );
    }
    const mcp = await callRoute(
      "POST /mcp",
      { accept: "application/json, text/event-stream" },
      {
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "search_memory", arguments: { query: "sister", at: ts } },
        },
      },
    );
    assert.equal(mcp.status, 200, mcp.body);
    assert.match(mcp.body, /isError|"error"/, `MCP search_memory at ${ts}: a tool error`);
    assert.match(mcp.body, RANGE);
  }
  // ChatGPT's times are Unix seconds (or milliseconds): the JavaScript limit in milliseconds.
  const chatgpt = [
    {
      id: "g1",
      title: "far",
      create_time: 8.64e15,
      mapping: {
        root: { id: "root", parent: null, children: ["u"], message: null },
        u: {
          id: "u",
          parent: "root",
          children: [],
          message: {
            author: { role: "user" },
            create_time: 8.64e15,
            content: { content_type: "text", parts: ["far away"] },
          },
        },
      },
      current_node: "u",
    },
  ];
  const g = await callRoute(
    "POST /api/v1/import/[format]",
    {},
    { params: { format: "chatgpt" }, body: chatgpt, query: "wait=1" },
  );
  assert.equal(g.status, 400, g.body);
  assert.match(g.body, RANGE);
  assert.equal(count(), before, "nothing was written");
  // The edges of the range are kept.
  for (const ts of ["0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"]) {
    const r = await callRoute("POST /api/v1/memories", {}, { body: { text: `at the edge ${ts}`, timestamp: ts } });
    assert.equal(r.status, 201, r.body);
  }
});

test("a stored row whose time cannot be computed with is left out and logged; search, recall and Analytics answer the rest", async () => {
  const c = caller();
  await c.memory.add({ text: "Where my sister lives: she lives in Lisbon now" });
  const bad: string[] = [];
  for (const ts of EXTREMES.slice(0, 2)) {
    const [id] = (await c.memory.add({ text: `My sister's far-off note about where she lives (${ts.slice(0, 3)})` }))
      .ids;
    // Stored by an older Memo (or by hand): input is checked now, so the store is written directly.
    store.sqlite.prepare("UPDATE memories SET timestamp = ? WHERE id = ?").run(ts, id);
    bad.push(id!);
  }
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...a: unknown[]) => void warned.push(a.join(" "));
  try {
    const found = await c.memory.search({ query: "where does my sister live" });
    assert.ok(
      found.results.some((r) => r.content.includes("Lisbon")),
      "the rest is answered",
    );
    assert.ok(!found.results.some((r) => bad.includes(r.id)), "the unreadable rows are left out");
    const rest = await callRoute("POST /api/v1/search", {}, { body: { query: "where does my sister live" } });
    assert.equal(rest.status, 200, rest.body);
    const recall = await recallForPrompt(memo, { space: "personal", query: "where does my sister live", context: [] });
    assert.equal(recall.error, null, `recall: ${recall.error}`);
    assert.ok(JSON.stringify(recall).includes("Lisbon"));
    const overview = await c.analytics.overview({});
    assert.ok(overview.totals.memories >= 3);
    const list = await c.manager.list({});
    assert.ok(list.items.length >= 3, "the Manager lists every row (it only shows the stored text)");
  } finally {
    console.warn = warn;
  }
  for (const id of bad)
    assert.ok(
      warned.some((w) => w.includes(id)),
      `row ${id} was logged`,
    );
});

test("a start repairs stored rows: the memory is dated when it was recorded, found again, and logged", async () => {
  const bad = store.sqlite
    .prepare("SELECT id, created_at AS createdAt FROM memories WHERE timestamp LIKE '+%' OR timestamp LIKE '-%'")
    .all() as { id: string; createdAt: string }[];
  assert.equal(bad.length, 2, "the previous test's rows");
  store.sqlite
    .prepare("UPDATE memories SET last_retrieved_at = ?, updated_at = ? WHERE id = ?")
    .run(EXTREMES[0], EXTREMES[1], bad[0]!.id);
  const warn = console.warn;
  const warned: string[] = [];
  console.warn = (...a: unknown[]) => void warned.push(a.join(" "));
  let repaired: ReturnType<typeof repairStoredTimes>;
  try {
    repaired = repairStoredTimes(store.sqlite);
  } finally {
    console.warn = warn;
  }
  assert.equal(repaired.length, 4, JSON.stringify(repaired));
  for (const b of bad) {
    const row = store.sqlite
      .prepare("SELECT timestamp, updated_at AS u, last_retrieved_at AS l FROM memories WHERE id = ?")
      .get(b.id) as { timestamp: string; u: string | null; l: string | null };
    assert.equal(row.timestamp, b.createdAt);
    assert.equal(row.u, null);
    assert.equal(row.l, null);
    assert.ok(
      warned.some((w) => w.includes(b.id) && w.includes("timestamp")),
      "logged with its id",
    );
  }
  const found = await caller().memory.search({ query: "sister far-off note" });
  assert.ok(
    found.results.some((r) => r.id === bad[0]!.id),
    "found again",
  );
  assert.deepEqual(repairStoredTimes(store.sqlite), [], "a second start changes nothing");
});
