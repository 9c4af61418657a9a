/**
 * Household counters (issue 43, finding 5): a member sees their own counts, never the household's — `/api/health`
 * and tRPC `health.get` (`store.memories`, `vectors`, `fts`), the chat status' persistence counters (`chat.status`
 * `persist`), and a re-index's progress (`jobs.status`, `setup.status`: a share done, not everyone's memory
 * count). An admin sees the household's totals. Each figure of B's is checked unchanged after A writes more.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setDb } from "../db";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { createCaller } from "../api/root";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "../auth/people";
import { hashPassword } from "../auth/password";
import { createSession, setOwnerPasswordHash } from "../auth/store";
import { PersistQueue, setPersistQueue } from "../chat/exchange-queue";
import { setMeta } from "../core/meta";
import { GET as healthRoute } from "../../app/api/health/route";

let store: TempStore;
let memo: MemoContext;
let bId: string;
const cookies: Record<"a" | "b", string> = { a: "", b: "" };
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
const caller = (who: "a" | "b") => createCaller({ memo, headers: new Headers({ cookie: cookies[who] }) });
let queue: PersistQueue;

async function restHealth(who: "a" | "b"): Promise<{ store: { memories: number; vectors: number; fts: number } }> {
  const res = await healthRoute(
    new Request("http://127.0.0.1:3000/api/health", { headers: { host: "127.0.0.1:3000", cookie: cookies[who] } }),
  );
  assert.equal(res.status, 200);
  return (await res.json()) as { store: { memories: number; vectors: number; fts: number } };
}

/** Everything of B's counted here, as B sees it. */
async function bCounters() {
  const b = caller("b");
  const h = await b.health.get();
  const chat = await b.chat.status();
  return {
    trpc: h.store,
    rest: (await restHealth("b")).store,
    persist: { pending: chat.persist.pending, persisted: chat.persist.persisted, failed: chat.persist.failed.length },
    reindex: (await b.jobs.status()).reindex.progress,
    setupReindex: (await b.setup.status()).reindex.progress,
  };
}

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  queue = new PersistQueue(() => memo, { maxAttempts: 1, log: () => {} });
  setPersistQueue(queue);
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  bId = createPerson(store.sqlite, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  cookies.a = `memo_session=${createSession(store.sqlite, { personId: "owner" }).token}`;
  cookies.b = `memo_session=${createSession(store.sqlite, { personId: bId }).token}`;
  await caller("a").memory.addBatch({ items: [{ text: "A's first note" }, { text: "A's second note" }] });
  await caller("b").memory.add({ text: "B's only note" });
});

after(() => {
  setPersistQueue(undefined);
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("a member's health and chat status count only their own; an admin's the household's; A's writes move none of B's", async () => {
  const before = await bCounters();
  assert.deepEqual(before.trpc.memories, 1, "B's health counts B's one memory");
  assert.deepEqual([before.trpc.vectors, before.trpc.fts], [1, 1]);
  assert.deepEqual(before.rest, before.trpc, "GET /api/health answers B as health.get does");
  assert.equal((await caller("a").health.get()).store.memories, 3, "the admin sees the household's total");

  // A writes: more memories, and exchanges through the persist queue (one that fails).
  await caller("a").memory.addBatch({ items: [{ text: "A's third note" }, { text: "A's fourth note" }] });
  await queue.enqueue({
    space: "personal",
    conversationId: null,
    user: "What did A ask?",
    assistant: "Something of A's.",
    timestamp: new Date().toISOString(),
    source: "test",
  });
  // An exchange of A's that fails (the embedder refuses it): A's failure, listed for A and the admin only.
  const embedder = memo.embedder;
  memo.embedder = Object.assign(Object.create(embedder) as typeof embedder, {
    embedDocuments: async () => {
      throw new Error("the embedding server is down");
    },
  });
  await queue.enqueue({
    space: "personal",
    conversationId: null,
    user: "A's failing exchange",
    assistant: "never stored",
    timestamp: new Date().toISOString(),
    source: "test",
  });
  memo.embedder = embedder;
  assert.ok(queue.status().persisted >= 1 && queue.status().failed.length === 1, JSON.stringify(queue.status()));
  assert.deepEqual(await bCounters(), before, "B's counters did not move with A's writes");
  const admin = await caller("a").chat.status();
  assert.equal(admin.persist.persisted, queue.status().persisted, "the admin sees the household's persist counters");

  // B's own exchange counts for B.
  await queue.enqueue({
    space: `${bId}~personal`,
    conversationId: null,
    user: "What did B ask?",
    assistant: "Something of B's.",
    timestamp: new Date().toISOString(),
    source: "test",
  });
  const mine = await bCounters();
  assert.equal(mine.persist.persisted, 1);
  assert.equal(mine.trpc.memories, 2);
});

test("a re-index's progress: the admin sees memory counts, a member the share done", async () => {
  const now = new Date().toISOString();
  setMeta(
    store.sqlite,
    "reindex_progress",
    JSON.stringify({
      status: "running",
      from: { model: "old", dim: 8 },
      to: { model: "new", dim: 16 },
      total: 40,
      done: 10,
      startedAt: now,
      updatedAt: now,
    }),
  );
  const admin = (await caller("a").jobs.status()).reindex.progress;
  assert.deepEqual([admin?.done, admin?.total, admin?.unit], [10, 40, "memories"]);
  const member = await bCounters();
  for (const p of [member.reindex, member.setupReindex])
    assert.deepEqual([p?.done, p?.total, p?.unit], [25, 100, "percent"], JSON.stringify(p));
});
