/**
 * The owner's memory-sharing choices follow a shared memory into the sharee's turn (issue 43, finding 8c): A
 * shares `recipes` with B, B adds it to a conversation and chats with a remote provider (the OpenAI-compatible
 * test double on loopback, counted as remote through the TEST ONLY MEMO_TREAT_AS_REMOTE). B allows everything;
 * what reaches the provider of A's space is the stricter of B's and A's choice for that provider: A "off" or
 * undecided → none of A's memories, A "pinned" → A's pinned ones only, A "on" → all. B's own memory is sent
 * whatever A chose, and a local provider gets everything. Checked against what the double received, with
 * words of each memory the question lacks (B's stored exchanges repeat the question). The same holds for
 * the household's consolidation, which sends pairs of a space's memories to the provider: a space is merged
 * only where its own person's choice for that provider is "on", whoever's choice the job runs under.
 */
import assert from "node:assert/strict";
import { setConversationMemory } from "./temporary-chats";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, memoryBlock, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { createConversation } from "./conversations";
import { addMemories } from "../memory/store/add";
import type { MemoContext } from "../core/context";
import { runAs } from "../core/acting";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { setSharing, type SharingMode } from "./memory-policy";
import { PersistQueue } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { runTurn, type TurnEvent } from "./turn";
import { createPerson } from "../auth/people";
import { setConversationSpaces, setShare } from "../memory/store";
import { updateRetrievalSettings } from "../services/retrieval-settings-service";
import { runJobNow } from "../jobs/jobs";

const A_PINNED = "Grandma's lentil soup: the secret is a spoon of smoked paprika in the lentils";
const A_PLAIN = "Grandma's lentil soup simmers for forty minutes with a bay leaf and cumin";
const B_OWN = "My lentil soup notes: I add lemon juice to the lentil soup at the end";
const QUESTION = "How do I make the lentil soup, with the paprika, bay leaf, cumin and lemon?";
const ENV = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_TREAT_AS_REMOTE",
];
const savedEnv = new Map(ENV.map((k) => [k, process.env[k]]));

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
let store: TempStore;
let memo: MemoContext;
let queue: PersistQueue;
let key = "";
let bId = "";
let conversationId = "";
const asA = <T>(fn: () => T) => runAs({ personId: "owner", admin: true }, fn);
const asB = <T>(fn: () => T) => runAs({ personId: bId, admin: false }, fn);

before(async () => {
  for (const k of ENV) delete process.env[k];
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
  key = `openai@${new URL(fixture.url).host}`;
  store = openTempStore();
  memo = { db: store.sqlite, embedder: emb };
  queue = new PersistQueue(() => memo, { baseDelayMs: 10, maxAttempts: 2, log: () => undefined });
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: fixture.url, model: FIXTURE_MODEL } });
  bId = createPerson(store.sqlite, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  await asA(() =>
    addMemories(memo, [
      { text: A_PINNED, space: "recipes", pinned: true, importance: 5 },
      { text: A_PLAIN, space: "recipes" },
    ]),
  );
  setShare(store.sqlite, "recipes", bId, "read");
  await asB(async () => {
    await addMemories(memo, [{ text: B_OWN }]);
    // Every result that qualifies is packed: the test is about what may leave, not about the threshold.
    await updateRetrievalSettings(memo, { minConfidence: 0 });
    conversationId = createConversation(store.sqlite, { title: "soup" }).id;
    setConversationSpaces(store.sqlite, conversationId, ["recipes"]);
    // The turns store nothing: each test's turn searches the same memories (what may leave is the point,
    // not the earlier turns' exchanges, which would crowd the top of B's own space).
    setConversationMemory(store.sqlite, conversationId, { store: false });
    setSharing(store.sqlite, key, "on");
  });
});

after(async () => {
  await fixture.close();
  store.close();
  for (const [k, v] of savedEnv)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

/** B's turn: what the provider received as the memory block (empty when none), and the "sent" record. */
async function bTurn(): Promise<{ block: string; sent: Extract<TurnEvent, { type: "sent" }>["sent"] }> {
  const before = fixture.requests.length;
  const events: TurnEvent[] = [];
  await asB(async () => {
    for await (const ev of runTurn({ memo, persist: queue, canAsk: false }, { conversationId, message: QUESTION }))
      events.push(ev);
  });
  await queue.drain();
  const reqs = fixture.requests.slice(before).filter((r) => r.path === "/v1/chat/completions");
  assert.equal(reqs.length, 1, JSON.stringify(events.filter((e) => e.type === "error")));
  const sent = (events.find((e) => e.type === "sent") as Extract<TurnEvent, { type: "sent" }>).sent;
  return { block: memoryBlock(reqs[0]!.body!.messages!) ?? "", sent };
}

const aChooses = (mode: SharingMode | null) => asA(() => setSharing(store.sqlite, key, mode));

test("A never decided about the provider: none of A's memories leave in B's turn, B's own do", async () => {
  process.env.MEMO_TREAT_AS_REMOTE = new URL(fixture.url).host;
  aChooses(null);
  const { block, sent } = await bTurn();
  assert.match(block, /lemon juice/, "B's own memory is sent under B's choice");
  assert.doesNotMatch(block, /smoked|forty minutes/, "nothing of A's");
  assert.match(sent.reason ?? "", /recipes/, `the reply says why: ${sent.reason}`);
});

test("A chose off: none of A's memories; A chose pinned: A's pinned one only; A chose on: all of them", async () => {
  process.env.MEMO_TREAT_AS_REMOTE = new URL(fixture.url).host;
  aChooses("off");
  const off = await bTurn();
  assert.match(off.block, /lemon juice/);
  assert.doesNotMatch(off.block, /smoked|forty minutes/);
  aChooses("pinned");
  const pinned = await bTurn();
  assert.match(pinned.block, /smoked/, "A's pinned memory");
  assert.doesNotMatch(pinned.block, /forty minutes/, "not A's unpinned one");
  assert.match(pinned.block, /lemon juice/);
  aChooses("on");
  const on = await bTurn();
  assert.match(on.block, /smoked/);
  assert.match(on.block, /forty minutes/);
  assert.equal(on.sent.reason, null, "nothing held back");
});

test("B's own choice still binds: B pinned-only keeps A's unpinned memory out although A allows all", async () => {
  process.env.MEMO_TREAT_AS_REMOTE = new URL(fixture.url).host;
  aChooses("on");
  asB(() => setSharing(store.sqlite, key, "pinned"));
  const { block } = await bTurn();
  assert.match(block, /smoked/);
  assert.doesNotMatch(block, /forty minutes|lemon juice/);
  asB(() => setSharing(store.sqlite, key, "on"));
});

test("a provider on this machine gets A's memories whatever A chose for remote ones", async () => {
  delete process.env.MEMO_TREAT_AS_REMOTE;
  aChooses("off");
  const { block } = await bTurn();
  assert.match(block, /smoked/);
  assert.match(block, /forty minutes/);
});

test("consolidation sends a space's memories to the provider only under that space's person's choice", async () => {
  process.env.MEMO_TREAT_AS_REMOTE = new URL(fixture.url).host;
  const pair = (who: string) => [
    `${who} keeps the spare house key under the blue flowerpot beside the front door`,
    `${who} keeps the spare house key under the blue flower pot beside the front door`,
  ];
  await asA(() =>
    addMemories(
      memo,
      pair("Alder").map((text) => ({ text, space: "garden" })),
    ),
  );
  await asB(() =>
    addMemories(
      memo,
      pair("Birch").map((text) => ({ text })),
    ),
  );
  aChooses("on");
  asB(() => setSharing(store.sqlite, key, "off"));
  const before = fixture.requests.length;
  const run = await runJobNow(memo, "consolidate", { trigger: "manual" });
  const sent = JSON.stringify(fixture.requests.slice(before).map((r) => r.body));
  assert.match(sent, /Alder keeps the spare/, `A's pair went to the provider: ${JSON.stringify(run.result)}`);
  assert.doesNotMatch(sent, /Birch/, "none of B's: B's choice for this provider is off");
  assert.ok(
    JSON.stringify(run.result).includes(`${bId}~personal`),
    `the run says which space it left alone: ${JSON.stringify(run.result)}`,
  );
  asB(() => setSharing(store.sqlite, key, "on"));
});
