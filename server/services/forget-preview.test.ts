/**
 * /forget previews: POST /api/v1/forget { pattern, space?, preview: true } answers { count, items } and
 * deletes nothing; MCP `forget` takes the same flag; in the chat, /forget asks for confirmation when it
 * would remove more than 3 memories or any pinned one (server/chat/turn.test.ts covers the pinned case),
 * and the confirmation forgets exactly what was listed. Real store, real bundled embedding model.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { POST as forgetRoute } from "../../app/api/v1/forget/route";
import { createCaller } from "../api/root";
import { confirmForget } from "../chat/forget-confirm";
import { runTurn } from "../chat/turn";
import { createMemoMcpServer } from "../mcp/server";
import { checkInvariant } from "../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { forgetPreview } from "../memory/lifecycle/forget";
import { addMemories } from "../memory/store/add";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => {
  setAppContext(undefined);
  stores.forEach((s) => s.close());
});

async function seeded(): Promise<MemoContext> {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  await addMemories(memo, [
    { text: "The red bike is in the shed." },
    { text: "The red kettle is broken." },
    { text: "Red wine stains come out with salt." },
    { text: "The red door needs paint." },
    { text: "My red passport is in the drawer.", pinned: true },
    { text: "The blue car is at the garage." },
  ]);
  return memo;
}
const liveCount = (memo: MemoContext) =>
  (memo.db.prepare("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0").get() as { n: number }).n;

test("preview: count and items (with pinned), nothing deleted — in the service, over REST and over MCP", async () => {
  const memo = await seeded();
  const p = forgetPreview(memo, "red");
  assert.equal(p.count, 5);
  assert.equal(p.pinned, 1);
  assert.ok(p.items.some((i) => i.pinned && /passport/.test(i.content)));
  assert.equal(liveCount(memo), 6);

  setAppContext(memo);
  const res = await forgetRoute(
    new Request("http://x/api/v1/forget", {
      method: "POST",
      body: JSON.stringify({ pattern: "red", preview: true }),
      headers: { "content-type": "application/json" },
    }),
  );
  assert.equal(res.status, 200);
  const body = (await res.json()) as { count: number; items: unknown[]; preview: boolean };
  assert.deepEqual([body.count, body.items.length, body.preview], [5, 5, true]);
  assert.equal(liveCount(memo), 6, "REST preview deleted nothing");
  const bad = await forgetRoute(
    new Request("http://x/api/v1/forget", { method: "POST", body: JSON.stringify({ pattern: "red", preview: "yes" }) }),
  );
  assert.equal(bad.status, 400);

  const server = createMemoMcpServer(() => memo);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "memo-test", version: "1.0.0" });
  await client.connect(b);
  try {
    const r = (await client.callTool({ name: "forget", arguments: { pattern: "red", preview: true } })) as unknown as {
      structuredContent: { count: number; preview: boolean };
    };
    assert.deepEqual([r.structuredContent.count, r.structuredContent.preview], [5, true]);
    assert.equal(liveCount(memo), 6, "MCP preview deleted nothing");
    const done = (await client.callTool({ name: "forget", arguments: { pattern: "blue car" } })) as unknown as {
      structuredContent: { count: number };
    };
    assert.equal(done.structuredContent.count, 1);
  } finally {
    await client.close();
  }
  assert.equal(liveCount(memo), 5);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("tRPC memory.forget honours preview as REST does: the same answer, nothing deleted; without it, the same forget", async () => {
  const memo = await seeded();
  setAppContext(memo);
  const trpc = createCaller({ memo, headers: new Headers() });
  const rest = async (body: unknown) =>
    (await forgetRoute(
      new Request("http://x/api/v1/forget", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
    ).then((r) => r.json())) as Record<string, unknown>;
  const viaTrpc = await trpc.memory.forget({ pattern: "red", preview: true });
  assert.equal(liveCount(memo), 6, "tRPC preview deleted nothing");
  assert.deepEqual(viaTrpc, await rest({ pattern: "red", preview: true }), "the same answer as REST's preview");
  assert.equal((viaTrpc as { preview?: boolean }).preview, true);
  // preview: false (or absent) forgets, over both.
  const done = await trpc.memory.forget({ pattern: "blue car", preview: false });
  assert.equal(done.count, 1);
  assert.equal(liveCount(memo), 5);
  assert.equal(((await rest({ pattern: "red door" })) as { count: number }).count, 1);
  assert.equal(liveCount(memo), 4);
  assert.deepEqual(checkInvariant(memo.db), []);
});

test("chat: /forget with more than 3 matches asks; declining keeps everything; confirming forgets exactly the listed ones", async () => {
  const memo = await seeded();
  const say = async (message: string, conversationId?: string) => {
    const events = [];
    for await (const ev of runTurn(
      {
        memo,
        provider: () => {
          throw new Error("no provider needed for commands");
        },
      },
      { message, conversationId },
    ))
      events.push(ev);
    return events.find((e) => e.type === "command") as Extract<(typeof events)[number], { type: "command" }>;
  };
  const ask = await say("/forget red");
  assert.equal(ask.command.type, "forget");
  if (ask.command.type !== "forget") return;
  assert.equal(ask.command.pending!.ids.length, 5);
  assert.match(
    ask.message.content,
    /5 memories match “red”, 1 of them pinned\. Nothing is forgotten until you confirm/,
  );
  assert.equal(liveCount(memo), 6);
  const declined = confirmForget(memo, ask.message.id, false);
  assert.ok(declined.message.command?.type === "forget" && declined.message.command.cancelledAt);
  assert.equal(liveCount(memo), 6);

  const again = await say("/forget red");
  // A matching memory added after the question is not forgotten by the confirmation.
  await addMemories(memo, [{ text: "The red scarf is in the hall." }]);
  const r = confirmForget(memo, again.message.id, true);
  assert.equal(r.forgotten, 5);
  assert.equal(liveCount(memo), 2, "the blue car and the new red scarf stay");

  // Three or fewer unpinned matches: forgotten at once, with undo.
  const quick = await say("/forget blue car");
  assert.ok(quick.command.type === "forget" && !quick.command.pending && quick.command.count === 1);
  assert.deepEqual(checkInvariant(memo.db), []);
});
