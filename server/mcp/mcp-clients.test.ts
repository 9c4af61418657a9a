/**
 * Memo's MCP server with a client from the official SDK (moved down from e2e/mcp.spec.ts: no page involved):
 * over streamable HTTP (/mcp of the app, which runs in this process: server/test/app-server.ts) and over stdio
 * (`npm run mcp`, scripts/mcp-stdio.ts, a child process on the same data folder).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type AppServer, startAppServer } from "../test/app-server";
import { HttpApi, uniqueSpace } from "../test/http-api";

type Structured = Record<string, unknown>;
const token = () => Math.random().toString(36).slice(2, 8);

let app: AppServer;
let api: HttpApi;
before(async () => {
  app = await startAppServer();
  api = new HttpApi(app.url);
});
after(() => app.close());

/**
 * Two memories from two months ago in the space: a date window ("last week") is a signal only while it holds a
 * minority of the space (issue 47: a window covering most of a space carries no information).
 */
async function olderMemories(space: string) {
  const timestamp = new Date(Date.now() - 60 * 86_400_000).toISOString();
  await api.addMemories([
    {
      text: "User: The tomatoes need staking before the wind picks up.\nAssistant: Bamboo canes work well.",
      space,
      timestamp,
    },
    {
      text: "User: My library books are due on Friday.\nAssistant: Renew them online if you need longer.",
      space,
      timestamp,
    },
  ]);
}

/** Adds a fact about a memory (POST /api/v1/facts, as an import or a script does), returning its id. */
async function addFact(space: string, text: string, source: string): Promise<string> {
  const res = await api.post("/api/v1/facts", { space, items: [{ text, sources: [source] }] });
  assert.equal(res.status, 201);
  return ((await res.json()) as { ids: string[] }).ids[0]!;
}

async function exercise(client: Client, space: string): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["forget", "list_facts", "remember", "search_memory"]);
  const code = token();
  const r = await client.callTool({
    name: "remember",
    arguments: { text: `The boat is moored at pier ${code}`, space },
  });
  assert.ok(!r.isError);
  const ids = (r.structuredContent as Structured).ids as string[];
  assert.equal(ids.length, 1);
  const s = await client.callTool({
    name: "search_memory",
    arguments: { query: "where is the boat moored", space, k: 5 },
  });
  const results = (s.structuredContent as Structured).results as { id: string; content: string }[];
  assert.ok(results.map((x) => x.id).includes(ids[0]!));
  // `at` is the conversation's date: as of a week from now, what was said today is "last week".
  const lastWeek = async (at?: string) => {
    const res = await client.callTool({
      name: "search_memory",
      arguments: { query: "where did I say the boat is moored last week?", space, ...(at ? { at } : {}) },
    });
    const hits = (res.structuredContent as Structured).results as { id: string; score: number }[];
    return hits.find((x) => x.id === ids[0])?.score ?? 0;
  };
  const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const [later, now] = [await lastWeek(inAWeek), await lastWeek()];
  assert.ok(later > now, `${later} > ${now}`);
  // list_facts: what Memo knows, with the fact's source; the fact goes with its only source's forget below.
  const factId = await addFact(space, `The boat's berth is pier ${code}`, ids[0]!);
  const listFacts = async () => {
    const res = await client.callTool({ name: "list_facts", arguments: { space, q: `boat berth pier ${code}` } });
    assert.ok(!res.isError);
    return (res.structuredContent as Structured).facts as { id: string; text: string; sources: string[] }[];
  };
  const listed = await listFacts();
  assert.ok(listed.map((x) => x.id).includes(factId));
  assert.equal(listed.find((x) => x.id === factId)?.text, `The boat's berth is pier ${code}`);
  const badAt = await client
    .callTool({ name: "search_memory", arguments: { query: "boat", space, at: "last Tuesday" } })
    .catch((e: unknown) => ({ isError: true, content: String(e) }));
  assert.equal(badAt.isError, true);
  assert.ok(JSON.stringify(badAt.content).includes("at must be an ISO-8601 date or date-time"));
  const f = await client.callTool({ name: "forget", arguments: { pattern: `pier ${code}`, space } });
  assert.equal((f.structuredContent as Structured).count, 1);
  const afterForget = await client.callTool({
    name: "search_memory",
    arguments: { query: "where is the boat moored", space },
  });
  assert.ok(
    !((afterForget.structuredContent as Structured).results as { id: string }[]).map((x) => x.id).includes(ids[0]!),
  );
  assert.ok(!(await listFacts()).map((x) => x.id).includes(factId));
}

describe("MCP server", () => {
  test("streamable HTTP at /mcp: list the tools and call each", async (t) => {
    const space = uniqueSpace(t.name);
    const client = new Client({ name: "memo-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
    try {
      await olderMemories(space);
      await exercise(client, space);
      // An error is a tool error with a readable message.
      const bad = await client.callTool({
        name: "search_memory",
        arguments: { query: "x", space: "no-such-space-here" },
      });
      assert.equal(bad.isError, true);
      assert.ok(JSON.stringify(bad.content).includes("space 'no-such-space-here' does not exist"));
    } finally {
      await client.close();
    }
    assert.equal((await api.counts()).consistent, true);
  });

  test("stdio (npm run mcp) on the same store: what it remembers, the app finds", { timeout: 90_000 }, async (t) => {
    const space = uniqueSpace(t.name);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", path.join("scripts", "mcp-stdio.ts")],
      env: { ...(process.env as Record<string, string>), MEMO_DATA_DIR: app.dataDir, MEMO_OFFLINE: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "memo-e2e-stdio", version: "1.0.0" });
    await client.connect(transport);
    try {
      await olderMemories(space);
      await exercise(client, space);
      const code = token();
      await client.callTool({ name: "remember", arguments: { text: `The bike lock combination is ${code}`, space } });
      const found = await api.search({ query: "bike lock combination", space });
      assert.ok(found.results.map((r) => r.content).includes(`The bike lock combination is ${code}`));
    } finally {
      await client.close();
    }
  });
});
