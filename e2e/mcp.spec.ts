import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { APIRequestContext } from "@playwright/test";
import { test, expect } from "./chat-fixtures";

/** Memo's MCP server with a client from the official SDK: over streamable HTTP (/mcp) and over stdio (npm run mcp). */

type Structured = Record<string, unknown>;
const token = () => Math.random().toString(36).slice(2, 8);

/**
 * Two memories from two months ago in the space: a date window ("last week") is a signal only while it holds a
 * minority of the space (issue 47: a window covering most of a space carries no information).
 */
async function olderMemories(
  api: { addMemories: (m: { text: string; space: string; timestamp: string }[]) => Promise<unknown> },
  space: string,
) {
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
type AddFact = (space: string, text: string, source: string) => Promise<string>;

async function exercise(client: Client, space: string, addFact: AddFact): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["forget", "list_facts", "remember", "search_memory"]);
  const code = token();
  const r = await client.callTool({
    name: "remember",
    arguments: { text: `The boat is moored at pier ${code}`, space },
  });
  expect(r.isError).toBeFalsy();
  const ids = (r.structuredContent as Structured).ids as string[];
  expect(ids).toHaveLength(1);
  const s = await client.callTool({
    name: "search_memory",
    arguments: { query: "where is the boat moored", space, k: 5 },
  });
  const results = (s.structuredContent as Structured).results as { id: string; content: string }[];
  expect(results.map((x) => x.id)).toContain(ids[0]);
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
  expect(await lastWeek(inAWeek)).toBeGreaterThan(await lastWeek());
  // list_facts: what Memo knows, with the fact's source; the fact goes with its only source's forget below.
  const factId = await addFact(space, `The boat's berth is pier ${code}`, ids[0]!);
  const listFacts = async () => {
    const res = await client.callTool({ name: "list_facts", arguments: { space, q: `boat berth pier ${code}` } });
    expect(res.isError).toBeFalsy();
    return (res.structuredContent as Structured).facts as { id: string; text: string; sources: string[] }[];
  };
  const listed = await listFacts();
  expect(listed.map((x) => x.id)).toContain(factId);
  expect(listed.find((x) => x.id === factId)?.text).toBe(`The boat's berth is pier ${code}`);
  const badAt = await client
    .callTool({ name: "search_memory", arguments: { query: "boat", space, at: "last Tuesday" } })
    .catch((e: unknown) => ({ isError: true, content: String(e) }));
  expect(badAt.isError).toBe(true);
  expect(JSON.stringify(badAt.content)).toContain("at must be an ISO-8601 date or date-time");
  const f = await client.callTool({ name: "forget", arguments: { pattern: `pier ${code}`, space } });
  expect((f.structuredContent as Structured).count).toBe(1);
  const after = await client.callTool({
    name: "search_memory",
    arguments: { query: "where is the boat moored", space },
  });
  expect(((after.structuredContent as Structured).results as { id: string }[]).map((x) => x.id)).not.toContain(ids[0]);
  expect((await listFacts()).map((x) => x.id)).not.toContain(factId);
}

function factAdder(request: APIRequestContext): AddFact {
  return async (space, text, source) => {
    const res = await request.post("/api/v1/facts", { data: { space, items: [{ text, sources: [source] }] } });
    expect(res.status()).toBe(201);
    return ((await res.json()) as { ids: string[] }).ids[0]!;
  };
}

test.describe("MCP server", () => {
  test("streamable HTTP at /mcp: list the tools and call each", async ({ baseURL, space, api, request }) => {
    const client = new Client({ name: "memo-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseURL}/mcp`)));
    try {
      await olderMemories(api, space);
      await exercise(client, space, factAdder(request));
      // An error is a tool error with a readable message.
      const bad = await client.callTool({
        name: "search_memory",
        arguments: { query: "x", space: "no-such-space-here" },
      });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain("space 'no-such-space-here' does not exist");
    } finally {
      await client.close();
    }
    expect((await api.counts()).consistent).toBe(true);
  });

  test("stdio (npm run mcp) on the same store: what it remembers, the app finds", async ({ space, api, request }) => {
    test.setTimeout(90_000);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", path.join("scripts", "mcp-stdio.ts")],
      env: {
        ...(process.env as Record<string, string>),
        MEMO_DATA_DIR: process.env.MEMO_E2E_DATA_DIR!,
        MEMO_OFFLINE: "1",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "memo-e2e-stdio", version: "1.0.0" });
    await client.connect(transport);
    try {
      await olderMemories(api, space);
      await exercise(client, space, factAdder(request));
      const code = token();
      await client.callTool({ name: "remember", arguments: { text: `The bike lock combination is ${code}`, space } });
      const found = await api.search({ query: "bike lock combination", space });
      expect(found.results.map((r) => r.content)).toContain(`The bike lock combination is ${code}`);
    } finally {
      await client.close();
    }
  });
});
