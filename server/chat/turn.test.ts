/**
 * The chat turn (docs/architecture.md#a-chat-turn) on a real store with the real bundled embedding model (in process) and the
 * OpenAI-compatible provider talking HTTP to the fixture server (test double): recall across
 * conversations, query context, packing, commands, provider errors, persistence off the reply path with
 * retries, and recovery of exchanges that never became memories.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FIXTURE_MODEL, OpenAIFixtureServer } from "../../e2e/support/openai-fixture";
import { exchangeText } from "../memory/store/chunker";
import { packable, type RetrievedMemory } from "../memory/retrieval/retrieve";
import { search } from "../memory/retrieval/search";
import { addMemories } from "../memory/store/add";
import { saveRetrievalSettings } from "../memory/retrieval/settings";
import { checkInvariant, getMemory, removeShare, setConversationSpaces, setShare } from "../memory/store";
import { runAs } from "../core/acting";
import { createPerson } from "../auth/people";
import { getConversationWithMessages } from "./conversations";
import { restore } from "../memory/lifecycle/forget";
import { dayIn, weekdayAndDay } from "../core/calendar";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { confirmForget } from "./forget-confirm";
import { PersistQueue, recoverUnpersisted } from "./exchange-queue";
import { saveProviderSettings } from "./providers";
import { runTurn, SYSTEM_PROMPT, type TurnEvent, type TurnInput } from "./turn";
import { packRecalled } from "./turn-recall";

let emb: InProcessEmbedder;
let fixture: OpenAIFixtureServer;
const stores: TempStore[] = [];
const ENV = [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_CHAT_MODEL",
];
const savedEnv = new Map<string, string | undefined>();

before(async () => {
  for (const k of ENV) {
    savedEnv.set(k, process.env[k]);
    delete process.env[k];
  }
  emb = await inProcessEmbedder();
  fixture = await OpenAIFixtureServer.start();
});
after(async () => {
  await fixture.close();
  stores.forEach((s) => s.close());
  for (const [k, v] of savedEnv)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

interface Setup {
  memo: MemoContext;
  queue: PersistQueue;
  logs: string[];
}

function setup(
  opts: { provider?: "fixture" | "none"; embedder?: MemoContext["embedder"]; maxAttempts?: number } = {},
): Setup {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: opts.embedder ?? emb };
  if ((opts.provider ?? "fixture") === "fixture") {
    saveProviderSettings(s.sqlite, {
      active: "openai",
      openai: { baseUrl: fixture.url, model: FIXTURE_MODEL },
      timeoutSec: 5,
    });
  }
  const logs: string[] = [];
  const queue = new PersistQueue(() => memo, {
    baseDelayMs: 10,
    maxDelayMs: 50,
    maxAttempts: opts.maxAttempts ?? 5,
    log: (level, m) => logs.push(`${level}: ${m}`),
  });
  return { memo, queue, logs };
}

async function turn(
  s: Setup,
  input: TurnInput,
  signal?: AbortSignal,
): Promise<{
  events: TurnEvent[];
  reply: string;
  of: <T extends TurnEvent["type"]>(t: T) => Extract<TurnEvent, { type: T }> | undefined;
}> {
  const events: TurnEvent[] = [];
  for await (const ev of runTurn({ memo: s.memo, persist: s.queue, signal }, input)) events.push(ev);
  const reply = events
    .filter((e) => e.type === "delta")
    .map((e) => (e as { text: string }).text)
    .join("");
  return { events, reply, of: (t) => events.find((e) => e.type === t) as never };
}

const FACT = "My sister Anna moved to Lisbon last spring and works at the aquarium there.";

test("a fact chatted in one conversation is recalled in a new one: the provider receives it, the reply stores it", async () => {
  const s = setup();
  const first = await turn(s, { message: FACT });
  const convA = first.of("start")!.conversation;
  assert.equal(first.of("done")?.message.content, first.reply);
  assert.match(first.reply, /^Fixture reply to: My sister Anna moved to Lisbon/);
  await s.queue.drain();
  const stored = s.memo.db.prepare("SELECT id, content, kind, conversation_id, space_id FROM memories").all() as {
    id: string;
    content: string;
    kind: string;
    conversation_id: string;
    space_id: string;
  }[];
  assert.equal(stored.length, 1);
  assert.deepEqual(
    {
      content: stored[0]!.content,
      kind: stored[0]!.kind,
      conv: stored[0]!.conversation_id,
      space: stored[0]!.space_id,
    },
    { content: exchangeText(FACT, first.reply).replace(/\s+/g, " "), kind: "chat", conv: convA.id, space: "personal" },
  );
  assert.deepEqual(checkInvariant(s.memo.db), []);

  // The person is 14 hours ahead of UTC: the prompt's "today" and the memory's date are their days.
  const second = await turn(s, { message: "Where does my sister Anna live and work now?", tzOffsetMinutes: 840 });
  const convB = second.of("start")!.conversation;
  assert.notEqual(convB.id, convA.id);
  const recall = second.of("recall")!;
  assert.equal(recall.error, null);
  assert.equal(recall.memories.length, 1);
  assert.equal(recall.memories[0]!.id, stored[0]!.id);
  assert.ok(["hybrid", "fts", "vector"].includes(recall.memories[0]!.matchType));
  // The system prompt the provider received carries the [Relevant Memories] block with the fact.
  const sys = fixture.requests.at(-1)!.body!.messages![0]!;
  assert.equal(sys.role, "system");
  assert.ok(String(sys.content).startsWith(SYSTEM_PROMPT));
  assert.ok(
    String(sys.content).includes(`\nToday is ${weekdayAndDay(Date.now(), 840)} in the user's time zone.\n`),
    String(sys.content).slice(0, 400),
  );
  const storedAt = (s.memo.db.prepare("SELECT timestamp FROM memories").get() as { timestamp: string }).timestamp;
  assert.ok(String(sys.content).includes(`[Relevant Memories]\n- ${dayIn(storedAt, 840)}: `));
  // Packed with who said what (the user's words, then the assistant's reply).
  assert.match(
    String(sys.content),
    /\[Relevant Memories\]\n- \d{4}-\d{2}-\d{2}: the user said: “My sister Anna moved to Lisbon[^”]*”\n {2}you replied: “/,
  );
  assert.match(second.reply, /Memory block received:[\s\S]*Lisbon/);
  // The reply is stored with the memories it used and their scores; the memory was promoted.
  const { messages } = getConversationWithMessages(s.memo.db, convB.id);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.equal(messages[1]!.recalled?.[0]?.id, stored[0]!.id);
  assert.ok(messages[1]!.recalled![0]!.scores.final > 0);
  assert.equal(getMemory(s.memo.db, stored[0]!.id)!.retrievalCount, 1);
  const timings = second.of("done")!.timings;
  assert.ok(timings.firstTokenMs! >= timings.providerFirstTokenMs! && timings.recallMs > 0, JSON.stringify(timings));
});

test("a turn packs the first memories of Debug Search's ranking (k = 10) that reach the minimum confidence", async () => {
  const s = setup();
  const facts = [
    "My sister Anna and I go climbing every Saturday morning at the wall on Dock Street.",
    "Anna's favourite climbing route is the overhang in the back room.",
    "On Sundays my sister Anna and I cook a big lunch for our parents.",
    "I bought new climbing shoes, a size smaller than my trainers.",
    "My sister Anna is training for a half marathon in October.",
    "Anna and I went to a pottery class together last weekend.",
    "How do I descale a kettle?",
    "What's a good stretch after climbing?",
    "I'm saving up for a bouldering trip to Fontainebleau with Anna.",
    "My brother Tom never joins us at the weekend, he works Saturdays.",
    "Write a haiku about autumn.",
    "Anna lent me her chalk bag because I forgot mine.",
  ];
  await addMemories(
    s.memo,
    facts.map((text) => ({ text })),
  );
  const q = "What do my sister and I do at the weekend?";
  const debug = await search(s.memo, { query: q, k: 10 });
  assert.equal(debug.results.length, 10);
  const expected = packable(debug.results, debug.settings.minConfidence)
    .slice(0, debug.settings.topN)
    .map((r) => r.id);
  assert.ok(expected.length > 0);
  const recall = (await turn(s, { message: q })).of("recall")!;
  assert.equal(recall.considered, 10, "the turn ranked 10 deep, not 6");
  assert.deepEqual(
    recall.memories.map((m) => m.id),
    expected,
  );
  // Each carries what moved it in the ranking, as Debug Search shows it, without the confidence's features.
  const byId = new Map(debug.results.map((r) => [r.id, r.moves]));
  for (const m of recall.memories) {
    assert.deepEqual(
      m.moves,
      byId.get(m.id)!.filter((x) => !x.startsWith("confidence:")),
    );
  }
});

test("query building: the message plus the conversation's last 3 earlier user messages; earlier dialogue goes along", async () => {
  const s = setup();
  // docs/retrieval.md#query-building: 3 earlier messages (a per-model retrieval setting; the bundled model's default is lower)
  saveRetrievalSettings(s.memo.db, (await emb.info()).model, { contextMessages: 3 });
  const a = await turn(s, { message: "one: we talked about the garden fence" });
  const conversationId = a.of("start")!.conversation.id;
  for (const m of [
    "two: the paint colour was green",
    "three: and the neighbour Bob",
    "four: he offered to help on Saturday",
  ]) {
    await turn(s, { conversationId, message: m });
  }
  const last = await turn(s, { conversationId, message: "remember what we said about that?" });
  const q = last.of("recall")!.queries[0]!;
  assert.deepEqual(q.split("\n"), [
    "two: the paint colour was green",
    "three: and the neighbour Bob",
    "four: he offered to help on Saturday",
    "remember what we said about that?",
  ]);
  const sent = fixture.requests.at(-1)!.body!.messages!;
  assert.deepEqual(
    sent.slice(1).map((m) => m.role),
    ["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user"],
    "system prompt, the dialogue so far, then the message",
  );
});

test("packing: memories that do not fit the budget are left out and not listed as used", () => {
  const mem = (id: string, content: string): RetrievedMemory => ({
    id,
    content,
    timestamp: "2024-06-15T00:00:00.000Z",
    kind: "chat",
    importance: 1,
    pinned: false,
    speakers: null,
    retrievalCount: 0,
    documentId: null,
    chunkIndex: null,
    conversationId: null,
    matchType: "hybrid",
    scores: { similarity: 0.9, ftsRank: 1, rrf: 0.03, bm25: -1, vectorRank: 1, fused: 1, final: 1, confidence: 1 },
    signals: [],
    moves: [],
  });
  const items = [
    mem("a", "short fact one"),
    mem("b", "x".repeat(3000)),
    mem("c", "short fact two"),
    mem("d", "short fact three"),
  ];
  const r = packRecalled(items, 6, 120);
  assert.deepEqual(
    r.included.map((m) => m.id),
    ["a", "c", "d"],
  );
  assert.ok(r.block.includes("short fact two") && !r.block.includes("xxx"));
  assert.ok(Math.ceil(r.block.length / 4) <= 120);
  assert.deepEqual(
    packRecalled(items, 2, 120).included.map((m) => m.id),
    ["a"],
    "topN counts candidates, in rank order",
  );
  assert.deepEqual(packRecalled([], 6, 120), { block: "", included: [], facts: [] });
});

test("packRecalled: the profile is chosen by importance within its budget, then stated most relevant to the question first", () => {
  const fact = (id: string, text: string) => ({
    id,
    text,
    validFrom: "2026-01-01T00:00:00Z",
    validTo: null,
    current: true,
  });
  // Importance order (the profile's): a, b, c; the budget holds two of them; the question matches b best.
  const profile = [fact("a", "The user keeps bees"), fact("b", "The user lives in Lisbon"), fact("c", "The user rows")];
  const perLine = Math.ceil("- The user lives in Lisbon (since 1 Jan 2026)".length / 4) + 1;
  const strengths = new Map([
    ["a", 0.1],
    ["b", 0.9],
    ["c", 1.5],
  ]);
  const r = packRecalled([], 6, 1500, { facts: { leg: [], profile, profileTokens: 2 * perLine, strengths } });
  // c is the strongest but outside the budget (chosen by importance first); b leads, a follows.
  assert.deepEqual(
    r.facts.map((f) => f.id),
    ["b", "a"],
  );
  assert.ok(r.block.indexOf("Lisbon") < r.block.indexOf("bees"));
  // Without strengths the importance order stands.
  const plain = packRecalled([], 6, 1500, { facts: { leg: [], profile, profileTokens: 2 * perLine } });
  assert.deepEqual(
    plain.facts.map((f) => f.id),
    ["a", "b"],
  );
});

test("/remember and /forget work with no provider configured; forget lists what it matched and can be undone", async () => {
  const s = setup({ provider: "none" });
  const r = await turn(s, { message: "/remember My passport number ends in 4471" });
  const cmd = r.of("command")!;
  assert.equal(cmd.command.type, "remember");
  assert.match(cmd.message.content, /^Remembered \(pinned\)/);
  const ids = (cmd.command as { ids: string[] }).ids;
  const m = getMemory(s.memo.db, ids[0]!)!;
  assert.deepEqual([m.kind, m.pinned, m.importance], ["remember", true, 5]);
  assert.equal(r.of("error"), undefined);

  const conversationId = r.of("start")!.conversation.id;
  // A pinned match: the chat lists it and asks first; nothing is forgotten yet.
  const ask = await turn(s, { conversationId, message: "/forget PASSPORT" });
  const ac = ask.of("command")!;
  assert.equal(ac.command.type, "forget");
  if (ac.command.type !== "forget") return;
  assert.deepEqual(ac.command.pending, { ids, pinned: 1 });
  assert.match(
    ac.message.content,
    /1 memory matches “PASSPORT”, 1 of them pinned\. Nothing is forgotten until you confirm/,
  );
  assert.equal(getMemory(s.memo.db, ids[0]!)!.softDeleted, false);
  const confirmed = confirmForget(s.memo, ac.message.id, true);
  assert.equal(confirmed.forgotten, 1);
  const fc = confirmed.message.command!;
  assert.equal(fc.type, "forget");
  if (fc.type !== "forget") return;
  assert.equal(fc.pending, null);
  assert.equal(fc.count, 1);
  assert.match(fc.items[0]!.content, /passport number/);
  // The reply now says what happened, once: no "until you confirm", each forgotten memory listed once.
  assert.match(confirmed.message.content, /^Forgot 1 memory matching “PASSPORT”/);
  assert.doesNotMatch(confirmed.message.content, /until you confirm/);
  assert.equal(confirmed.message.content.match(/passport number/g)?.length, 1);
  assert.equal(getMemory(s.memo.db, ids[0]!)!.softDeleted, true);
  assert.ok(Date.parse(fc.undo.until) > Date.now() + 6.9 * 86_400_000);
  restore(s.memo, fc.undo.ids);
  assert.equal(getMemory(s.memo.db, ids[0]!)!.softDeleted, false);

  const bad = await turn(s, { conversationId, message: "/forget x" });
  assert.match(bad.of("command")!.message.content, /Usage: \/forget/);
  // Commands are stored in the conversation but never become chat memories.
  await s.queue.drain();
  assert.equal(
    (s.memo.db.prepare("SELECT count(*) AS n FROM memories WHERE kind = 'chat'").get() as { n: number }).n,
    0,
  );
  assert.equal(getConversationWithMessages(s.memo.db, conversationId).messages.length, 6);
  assert.throws(
    () => confirmForget(s.memo, ac.message.id, true),
    /not waiting for confirmation/,
    "a confirmation is used once",
  );
});

test("no provider: the turn says how to configure one; the message is kept, nothing is recalled or persisted", async () => {
  const s = setup({ provider: "none" });
  const r = await turn(s, { message: "hello there" });
  const err = r.of("error")!;
  assert.equal(err.kind, "not_configured");
  assert.match(err.message, /No chat provider is configured\. Open Settings → Providers/);
  assert.equal(r.of("recall"), undefined);
  assert.deepEqual(
    getConversationWithMessages(s.memo.db, r.of("start")!.conversation.id).messages.map((m) => m.role),
    ["user"],
  );
});

test("a provider that is down ends the turn with a readable error, quickly", async () => {
  const s = setup();
  saveProviderSettings(s.memo.db, { openai: { baseUrl: "http://127.0.0.1:9/v1" } });
  const t0 = Date.now();
  const r = await turn(s, { message: "are you there?" });
  assert.ok(Date.now() - t0 < 5000);
  const err = r.of("error")!;
  assert.equal(err.kind, "unreachable");
  assert.match(err.message, /Cannot reach OpenAI-compatible at http:\/\/127\.0\.0\.1:9\/v1/);
});

test("persisting never delays the reply: done arrives while the memory is still being embedded", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: MemoContext["embedder"] = {
    info: () => emb.info(),
    embedQueries: (t) => emb.embedQueries(t),
    tokenize: (t) => emb.tokenize(t),
    embedDocuments: async (t) => {
      await gate;
      return emb.embedDocuments(t);
    },
  };
  const s = setup({ embedder: slow });
  const r = await turn(s, { message: "The boiler service is booked for the 14th." });
  assert.ok(r.of("done"));
  assert.equal(s.queue.status().pending, 1, "the exchange waits in the queue");
  assert.equal((s.memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, 0);
  release();
  await s.queue.drain();
  assert.equal((s.memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, 1);
});

test("a failed persist is retried with backoff and logged; one that gives up is recovered at the next start", async () => {
  let failures = 2;
  const flaky: MemoContext["embedder"] = {
    info: () => emb.info(),
    embedQueries: (t) => emb.embedQueries(t),
    tokenize: (t) => emb.tokenize(t),
    embedDocuments: async (t) => {
      if (failures-- > 0) throw new Error("embedding server is restarting");
      return emb.embedDocuments(t);
    },
  };
  const s = setup({ embedder: flaky });
  await turn(s, { message: "Dentist appointment moved to Thursday at 9." });
  await s.queue.drain();
  assert.equal((s.memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, 1);
  assert.equal(
    s.logs.filter((l) =>
      /^warn: persisting .* failed \(attempt \d\/5: embedding server is restarting\); retrying in \d+ ms$/.test(l),
    ).length,
    2,
    s.logs.join("\n"),
  );
  assert.ok(s.logs.some((l) => /persisted the chat exchange .* on attempt 3/.test(l)));

  // Always failing: gives up loudly; the messages are stored, so recovery writes it later.
  const down: MemoContext["embedder"] = {
    ...flaky,
    embedDocuments: async () => Promise.reject(new Error("embedding server is down")),
  };
  const t = setup({ embedder: down, maxAttempts: 2 });
  const r = await turn(t, { message: "The car insurance renews in March." });
  await t.queue.drain();
  assert.equal(t.queue.status().failed.length, 1);
  assert.ok(
    t.logs.some((l) =>
      /^error: GAVE UP persisting the chat exchange .* after 2 attempts: embedding server is down\. Its messages are stored/.test(
        l,
      ),
    ),
  );
  assert.equal((t.memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, 0);
  const healthy: MemoContext = { db: t.memo.db, embedder: emb };
  const q2 = new PersistQueue(() => healthy, { log: () => undefined });
  assert.equal(recoverUnpersisted(healthy, q2), 1);
  await q2.drain();
  const row = t.memo.db.prepare("SELECT content, conversation_id FROM memories").get() as {
    content: string;
    conversation_id: string;
  };
  assert.match(row.content, /^User: The car insurance renews in March\. Assistant: Fixture reply/);
  assert.equal(row.conversation_id, r.of("start")!.conversation.id);
  assert.equal(recoverUnpersisted(healthy, q2), 0, "nothing left to recover");
});

test("stopping a reply keeps what was generated (stored and persisted) and says it was cancelled", async () => {
  const s = setup();
  const ac = new AbortController();
  const events: TurnEvent[] = [];
  for await (const ev of runTurn(
    { memo: s.memo, persist: s.queue, signal: ac.signal },
    { message: "[fixture:slow] tell me a long story" },
  )) {
    events.push(ev);
    if (ev.type === "delta" && events.filter((e) => e.type === "delta").length === 2) ac.abort();
  }
  const err = events.find((e) => e.type === "error") as Extract<TurnEvent, { type: "error" }>;
  assert.equal(err.kind, "aborted");
  assert.ok(err.partial?.content.startsWith("Fixture reply"));
  await s.queue.drain();
  assert.equal((s.memo.db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n, 1);
});

test("a space shared with B reaches B's turn only once the conversation added it, says whose it is, and never after A stops sharing", async () => {
  const s = setup();
  const db = s.memo.db;
  const b = createPerson(db, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  const asB = <T>(fn: () => T) => runAs({ personId: b, admin: false }, fn);
  const SOUP = "Grandma's lentil soup needs cumin, a bay leaf and a squeeze of lemon.";
  await addMemories(s.memo, [{ text: SOUP, space: "recipes" }]); // A's (the owner's) space
  setShare(db, "recipes", b, "read");
  // Every result that qualifies is packed: the test is about which spaces are read, not about the threshold.
  const model = (await emb.info()).model;
  asB(() => saveRetrievalSettings(db, model, { minConfidence: 0 }));

  const ask = "What goes into the lentil soup?";
  const first = await asB(() => turn(s, { message: ask }));
  const conv = first.of("start")!.conversation;
  assert.equal(conv.spaceId, `${b}~personal`, "B's conversation is in B's own space");
  assert.ok(!first.reply.includes("Grandma"), "not added: nothing of A's space reaches the prompt");

  asB(() => setConversationSpaces(db, conv.id, ["recipes"]));
  const second = await asB(() => turn(s, { message: ask, conversationId: conv.id }));
  const soup = second.of("recall")!.memories.find((m) => m.content === SOUP);
  assert.ok(soup, JSON.stringify(second.of("recall")));
  assert.equal(soup.whose?.owner, "Owner");
  assert.ok(second.reply.includes("Grandma"), "the provider received it");
  await s.queue.drain();
  // The exchange is stored in B's own space, never in the shared one.
  assert.equal(
    (db.prepare("SELECT count(*) AS n FROM memories WHERE space_id = 'recipes'").get() as { n: number }).n,
    1,
  );

  removeShare(db, "recipes", b);
  const third = await asB(() => turn(s, { message: ask, conversationId: conv.id }));
  // B's stored exchange quotes the fixture's reply, which echoed the memory block: that text is B's own now.
  // A's memory itself is recalled no more.
  const recalled = third.of("recall")!.memories;
  assert.ok(!recalled.some((m) => m.id === soup.id || m.whose), JSON.stringify(recalled));
});
