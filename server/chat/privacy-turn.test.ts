/**
 * Privacy in a real chat turn and on the OpenAI-compatible endpoint: a real store, the bundled embedding
 * model in process, and the OpenAI-compatible test double (e2e/support/openai-fixture.ts) on loopback,
 * counted as remote through the TEST ONLY MEMO_TREAT_AS_REMOTE. Checked against what the double received:
 * the sharing question, sharing off / pinned only / on, the "Sent to" record, recall and storing off per
 * conversation, temporary chats (read, never write, deleted after 24 h or when no page keeps them open,
 * on an injected clock), and x-memo-recalled.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { FIXTURE_MODEL, memoryBlock, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { createConversation, getConversation, getConversationWithMessages, listConversations } from "./conversations";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import {
  setConversationMemory,
  sweepTemporaryChats,
  TEMPORARY_LEASE_MS,
  TEMPORARY_TTL_MS,
  touchTemporaryChat,
} from "./temporary-chats";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { indexedTotal } from "../memory/store";
import { providerMerge } from "../jobs/merge";
import { setSharing, setTemporaryReadsMemory } from "./memory-policy";
import { completeNonStreaming, prepareCompletion, readCompletionRequest } from "../http/openai-compat";
import { PersistQueue, recoverUnpersisted } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { runTurn, type TurnEvent, type TurnInput } from "./turn";

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
let host = "";
const stores: TempStore[] = [];
const ENV = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
  "MEMO_TREAT_AS_REMOTE",
];
const savedEnv = new Map(ENV.map((k) => [k, process.env[k]]));

before(async () => {
  for (const k of ENV) delete process.env[k];
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
  host = new URL(fixture.url).host;
  process.env.MEMO_TREAT_AS_REMOTE = host;
});
after(async () => {
  await fixture.close();
  stores.forEach((s) => s.close());
  for (const [k, v] of savedEnv)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

const PINNED = "The allotment gate code is 4471 and the shed key hangs under the blue watering can.";
const PLAIN = "The allotment shed roof has leaked since the storm, the gate hinge squeaks too.";
const QUESTION = "What do I know about the allotment gate code, the shed key and the shed roof?";

interface Setup {
  memo: MemoContext;
  queue: PersistQueue;
  ids: { pinned: string; plain: string };
  key: string;
}

async function setup(): Promise<Setup> {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: emb };
  saveProviderSettings(s.sqlite, {
    active: "openai",
    openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
    timeoutSec: 5,
  });
  const [[pinned], [plain]] = await addMemories(memo, [
    { text: PINNED, space: "personal", pinned: true, importance: 5 },
    { text: PLAIN, space: "personal" },
  ]);
  const queue = new PersistQueue(() => memo, { baseDelayMs: 10, maxAttempts: 2, log: () => undefined });
  return { memo, queue, ids: { pinned: pinned!, plain: plain! }, key: `openai@${host}` };
}

async function turn(s: Setup, input: TurnInput, canAsk = true) {
  const events: TurnEvent[] = [];
  const before = fixture.requests.length;
  for await (const ev of runTurn({ memo: s.memo, persist: s.queue, canAsk }, input)) events.push(ev);
  await s.queue.drain();
  const requests = fixture.requests.slice(before).filter((r) => r.path === "/v1/chat/completions");
  const of = <T extends TurnEvent["type"]>(t: T) =>
    events.find((e) => e.type === t) as Extract<TurnEvent, { type: T }> | undefined;
  return { events, of, received: requests.map((r) => memoryBlock(r.body!.messages!)), sentRequests: requests.length };
}

const count = (s: Setup, table: string) =>
  (s.memo.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const retrievals = (s: Setup) =>
  (s.memo.db.prepare("SELECT sum(retrieval_count) AS n FROM memories").get() as { n: number }).n;

let s: Setup;
beforeEach(async () => {
  s = await setup();
});

test("a remote provider nobody decided on: the page is asked first and nothing is stored, sent or promoted", async () => {
  const before = { memories: count(s, "memories"), messages: count(s, "messages"), retrievals: retrievals(s) };
  const t = await turn(s, { message: QUESTION });
  assert.deepEqual(
    t.events.map((e) => e.type),
    ["consent"],
  );
  const c = t.of("consent")!;
  assert.deepEqual(
    { host: c.endpoint.host, local: c.endpoint.local, key: c.endpoint.key, label: c.endpoint.label },
    { host, local: false, key: s.key, label: "OpenAI-compatible" },
  );
  assert.ok(c.memories >= 1);
  assert.equal(c.conversation, null, "the conversation it would have started is not kept");
  assert.equal(count(s, "conversations"), 0);
  assert.equal(t.sentRequests, 0, "the provider got nothing");
  assert.deepEqual(
    { memories: count(s, "memories"), messages: count(s, "messages"), retrievals: retrievals(s) },
    before,
  );

  // A client that cannot be asked gets the reply without memories, and is told why.
  const api = await turn(s, { message: QUESTION }, false);
  assert.deepEqual(api.received, [null]);
  assert.match(
    api.of("sent")!.sent.reason!,
    new RegExp(`^memory not shared with OpenAI-compatible \\(${host.replace(/\./g, "\\.")}\\)`),
  );
});

test("sharing off: the turn works without the memory block, the Sent to record says so, the exchange is still stored", async () => {
  setSharing(s.memo.db, s.key, "off");
  const before = count(s, "memories");
  const t = await turn(s, { message: QUESTION });
  assert.deepEqual(t.received, [null], "no memory block reached the provider");
  assert.ok(t.of("done"), "the reply came");
  const sent = t.of("sent")!.sent;
  assert.deepEqual(
    { block: sent.block, ids: sent.ids, sharing: sent.sharing, reason: sent.reason },
    { block: "", ids: [], sharing: "off", reason: `memory not shared with OpenAI-compatible (${host})` },
  );
  assert.deepEqual(t.of("recall")!.memories, []);
  assert.equal(count(s, "memories"), before + 1, "storing is about this machine, not the provider");
  const stored = getConversationWithMessages(s.memo.db, t.of("start")!.conversation.id).messages[1]!;
  assert.deepEqual(stored.sent, sent);
});

test("pinned only: only pinned memories reach the provider; on: all; the Sent to block is exactly what it received", async () => {
  setSharing(s.memo.db, s.key, "pinned");
  const p = await turn(s, { message: QUESTION });
  const got = p.received[0]!;
  assert.ok(got.includes(PINNED), got);
  assert.ok(!got.includes("leaked since the storm"), "the unpinned memory stayed here");
  const sent = p.of("sent")!.sent;
  assert.equal(sent.block, got);
  assert.deepEqual(sent.ids, [s.ids.pinned]);
  assert.equal(sent.reason, `only pinned memories are shared with OpenAI-compatible (${host})`);

  setSharing(s.memo.db, s.key, "on");
  const on = await turn(s, { message: QUESTION });
  const all = on.received[0]!;
  assert.ok(all.includes(PINNED) && all.includes(PLAIN), all);
  assert.equal(on.of("sent")!.sent.block, all);
  assert.deepEqual(new Set(on.of("sent")!.sent.ids), new Set(on.of("recall")!.memories.map((m) => m.id)));
});

test("memory per conversation: recall off sends no memory; storing off adds none (not even at recovery) and refuses /remember", async () => {
  delete process.env.MEMO_TREAT_AS_REMOTE; // a loopback provider: memories would go
  try {
    const conv = createConversation(s.memo.db, {});
    setConversationMemory(s.memo.db, conv.id, { recall: false });
    const r = await turn(s, { conversationId: conv.id, message: QUESTION });
    assert.deepEqual(r.received, [null]);
    assert.equal(r.of("sent")!.sent.reason, "recall is off for this conversation");

    const before = count(s, "memories");
    setConversationMemory(s.memo.db, conv.id, { recall: true, store: false });
    assert.deepEqual(getConversation(s.memo.db, conv.id)!.memory, { recall: true, store: false });
    const t = await turn(s, { conversationId: conv.id, message: QUESTION });
    assert.ok(t.received[0]?.includes(PINNED), "recall still works");
    assert.equal(count(s, "memories"), before, "the exchanges became no memory");
    const rem = await turn(s, { conversationId: conv.id, message: "/remember my bike is blue" });
    assert.match(rem.of("command")!.message.content, /Storing memories is off for this conversation/);
    assert.equal(count(s, "memories"), before);
    // Turning storing back on does not let start-up recovery write what was said while it was off.
    setConversationMemory(s.memo.db, conv.id, { store: true });
    assert.equal(recoverUnpersisted(s.memo, s.queue), 0);
    await s.queue.drain();
    assert.equal(count(s, "memories"), before);
  } finally {
    process.env.MEMO_TREAT_AS_REMOTE = host;
  }
});

test("temporary chat: reads memory, writes none, is not listed, and is gone after 24 h or once no page keeps it open", async () => {
  setSharing(s.memo.db, s.key, "on");
  const before = {
    memories: count(s, "memories"),
    vec: count(s, "memory_vec"),
    fts: indexedTotal(s.memo.db, "memory"),
    retrievals: retrievals(s),
  };
  const t = await turn(s, { message: QUESTION, temporary: true });
  const conv = t.of("start")!.conversation;
  assert.equal(conv.temporary, true);
  assert.ok(t.received[0]?.includes(PINNED), "it read memory");
  for (const cmd of ["/remember the code is 1234", "/forget allotment"]) {
    const c = await turn(s, { conversationId: conv.id, message: cmd });
    assert.match(c.of("command")!.message.content, /temporary chat: it never changes memory/);
  }
  assert.deepEqual(
    {
      memories: count(s, "memories"),
      vec: count(s, "memory_vec"),
      fts: indexedTotal(s.memo.db, "memory"),
      retrievals: retrievals(s),
    },
    before,
    "nothing written, not even retrieval counts",
  );
  assert.equal(recoverUnpersisted(s.memo, s.queue), 0);
  assert.ok(!listConversations(s.memo.db).some((c) => c.id === conv.id));
  await assert.rejects(
    (async () => {
      for await (const _ of runTurn(
        { memo: s.memo, persist: s.queue },
        { message: "x", temporary: true, conversationId: createConversation(s.memo.db, {}).id },
      ));
    })(),
    /temporary can only be chosen when a conversation starts/,
  );

  // Injected clock: a page heartbeats (touch) while its tab is open; without one the chat goes after the lease.
  const t0 = Date.parse(conv.createdAt);
  touchTemporaryChat(s.memo.db, conv.id, t0 + TEMPORARY_LEASE_MS - 1000);
  assert.equal(sweepTemporaryChats(s.memo.db, t0 + TEMPORARY_LEASE_MS + 1000), 0, "kept: its page is open");
  assert.equal(
    sweepTemporaryChats(s.memo.db, t0 + 2 * TEMPORARY_LEASE_MS + 1000),
    1,
    "deleted: no heartbeat (the tab closed)",
  );
  assert.equal(getConversation(s.memo.db, conv.id), undefined);
  assert.equal(
    (s.memo.db.prepare("SELECT count(*) AS n FROM messages WHERE conversation_id = ?").get(conv.id) as { n: number }).n,
    0,
  );

  // Even with a page open, 24 hours is the end.
  const kept = await turn(s, { message: "hello", temporary: true });
  const id = kept.of("start")!.conversation.id;
  const k0 = Date.parse(kept.of("start")!.conversation.createdAt);
  for (let at = k0; at < k0 + TEMPORARY_TTL_MS; at += TEMPORARY_LEASE_MS / 2) touchTemporaryChat(s.memo.db, id, at);
  assert.equal(sweepTemporaryChats(s.memo.db, k0 + TEMPORARY_TTL_MS - 1000), 0);
  assert.equal(sweepTemporaryChats(s.memo.db, k0 + TEMPORARY_TTL_MS + 1000), 1);
  assert.throws(() => touchTemporaryChat(s.memo.db, id), /not found/);

  // "Don't read": a temporary chat then sends no memory at all.
  setTemporaryReadsMemory(s.memo.db, false);
  const noRead = await turn(s, { message: QUESTION, temporary: true });
  assert.deepEqual(noRead.received, [null]);
  assert.equal(noRead.of("sent")!.sent.reason, "temporary chat: memory is not read");
});

test("/v1/chat/completions honours the same sharing; x-memo-recalled lists the ids of the memories sent", async () => {
  const call = async () => {
    const body = { model: "memo", messages: [{ role: "user", content: QUESTION }] };
    const req = new Request("http://memo.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const parsed = await readCompletionRequest(req);
    const before = fixture.requests.length;
    const res = await completeNonStreaming(
      s.memo,
      await prepareCompletion(s.memo, req, parsed),
      new AbortController().signal,
      s.queue,
    );
    const json = (await res.json()) as { memo: { memory: { shared: string; block: string; reason: string | null } } };
    const received = memoryBlock(fixture.requests.slice(before).at(-1)!.body!.messages!);
    return {
      recalled: res.headers.get("x-memo-recalled"),
      shared: res.headers.get("x-memo-memory-shared"),
      memory: json.memo.memory,
      received,
    };
  };
  const undecided = await call();
  assert.deepEqual(
    { recalled: undecided.recalled, shared: undecided.shared, received: undecided.received },
    { recalled: "", shared: "ask", received: null },
  );
  assert.match(undecided.memory.reason!, /memory not shared with/);

  setSharing(s.memo.db, s.key, "pinned");
  const pinned = await call();
  assert.equal(pinned.recalled, s.ids.pinned);
  assert.ok(pinned.received!.includes(PINNED) && !pinned.received!.includes("leaked since the storm"));
  assert.ok(pinned.memory.block.endsWith(pinned.received!), "the block reported is what the provider got");

  setSharing(s.memo.db, s.key, "on");
  const on = await call();
  // The earlier exchanges were stored as memories too; the two seeded ones are among what was sent.
  const ids = on.recalled!.split(",");
  assert.ok(ids.includes(s.ids.pinned) && ids.includes(s.ids.plain), on.recalled!);
  assert.ok(on.received!.includes(PLAIN));
  assert.equal(on.shared, "on");
});

test("consolidation merges memories with the provider only where memory sharing is on", () => {
  assert.equal(providerMerge(s.memo.db).merge, null);
  assert.match(
    providerMerge(s.memo.db).reason!,
    new RegExp(`memory sharing with OpenAI-compatible \\(${host.replace(/\./g, "\\.")}\\) is not allowed yet`),
  );
  setSharing(s.memo.db, s.key, "pinned");
  assert.match(providerMerge(s.memo.db).reason!, /pinned memories only/);
  setSharing(s.memo.db, s.key, "off");
  assert.match(providerMerge(s.memo.db).reason!, /is off/);
  setSharing(s.memo.db, s.key, "on");
  assert.equal(typeof providerMerge(s.memo.db).merge, "function");
});
