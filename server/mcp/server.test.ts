/** The MCP server with a client from the official SDK (in-memory transport): list the tools, call each. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { getMemory } from "../memory/store";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { createMemoMcpServer } from "./server";

let store: TempStore;
let client: Client;

before(async () => {
  store = openTempStore();
  const memo: MemoContext = { db: store.sqlite, embedder: await inProcessEmbedder() };
  const server = createMemoMcpServer(() => memo);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: "memo-test", version: "1.0.0" });
  await client.connect(b);
});
after(async () => {
  await client.close();
  store.close();
});

type Structured = Record<string, unknown>;
const textOf = (r: object) =>
  (((r as { content?: unknown }).content ?? []) as { type: string; text: string }[]).map((c) => c.text).join("\n");

test("lists remember, search_memory, forget and list_facts with input schemas", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["forget", "list_facts", "remember", "search_memory"]);
  assert.ok(tools.find((t) => t.name === "list_facts")!.outputSchema);
  const search = tools.find((t) => t.name === "search_memory")!;
  assert.deepEqual(search.inputSchema.required, ["query"]);
  assert.ok(search.outputSchema);
});

test("remember, then search_memory finds it, then forget removes it", async () => {
  const r = await client.callTool({
    name: "remember",
    arguments: { text: "The wifi password at the cabin is blue-heron-42", space: "mcp" },
  });
  assert.equal(r.isError, undefined);
  const ids = (r.structuredContent as Structured).ids as string[];
  assert.equal(getMemory(store.sqlite, ids[0]!)!.pinned, true);
  assert.match(textOf(r), /Remembered \(pinned\)/);

  const s = await client.callTool({
    name: "search_memory",
    arguments: { query: "cabin wifi password", space: "mcp", k: 3 },
  });
  const results = (s.structuredContent as Structured).results as { id: string; match_type: string }[];
  assert.equal(results[0]!.id, ids[0]);
  assert.match(textOf(s), /^1\. \d{4}-\d{2}-\d{2} \[(hybrid|fts|vector), importance 5\] The wifi password/);

  const f = await client.callTool({ name: "forget", arguments: { pattern: "BLUE-HERON", space: "mcp" } });
  assert.equal((f.structuredContent as Structured).count, 1);
  assert.equal(getMemory(store.sqlite, ids[0]!)!.softDeleted, true);
});

test("bad input is a tool error with a readable message, not a crash", async () => {
  const unknownSpace = await client.callTool({ name: "search_memory", arguments: { query: "x", space: "nowhere" } });
  assert.equal(unknownSpace.isError, true);
  assert.match(textOf(unknownSpace), /space 'nowhere' does not exist/);
  const badArgs = await client.callTool({ name: "forget", arguments: { pattern: "x" } });
  assert.equal(badArgs.isError, true);
  assert.match(textOf(badArgs), /pattern|2/);
});
