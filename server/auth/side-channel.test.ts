/**
 * The side-channel suite (issue 43; SPEC §12): nothing one person does is observable by another. The
 * isolation suite checks that no route hands B a byte of A's data; this one checks that B's outputs do not
 * MOVE with A's data. A store holds person B's data only; B's outputs for a fixed set of queries are
 * recorded (search with every score and the facts that matched, Debug Search, the confidence, the packed
 * block with its [What I know], conversation search, health, analytics, the chat status). Person A then
 * writes 2,000 memories and 100 facts full of B's query words, a document, temporary chats and a share; B's outputs are recorded again and must be identical, byte for
 * byte. A then forgets everything; identical again. Timings are left out (they differ between any two runs).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setDb } from "../db";
import { runAs } from "../core/acting";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { appendMessages, createConversation } from "../chat/conversations";
import { recallForPrompt } from "../chat/turn-recall";
import { getDocument } from "../ingest/documents";
import { queueFor } from "../ingest/queue";
import { insertMemories, softDeleteMemories } from "../memory/store";
import { annFor, startAnnIndex, stopAnnIndex } from "../memory/index/ann-registry";
import { addDocument } from "../services/document-service";
import { callProcedure, callRoute } from "../test/route-harness";
import { openTempStore, type TempStore } from "../test/temp-store";
import { hashedVector, TestDimEmbedder } from "../test/test-dim-embedder";
import { saveProviderSettings } from "../chat/providers";
import { addProposal } from "../memory/facts/proposals";
import { createRun } from "../memory/facts/runs";
import { createPerson } from "./people";
import { hashPassword } from "./password";
import { createApiToken, createSession, setOwnerPasswordHash } from "./store";

const MODEL = "test-32d-side";
let store: TempStore;
let memo: MemoContext;
let bId: string;
let aHeaders: Record<string, string>;
let bHeaders: Record<string, string>;
let bToken: Record<string, string>;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };

// B's life: a small vocabulary, so that A's memories can be full of the same words.
const TOPICS = ["lighthouse", "sourdough", "violin", "marathon", "orchard", "kayak", "pottery", "chess"];
const PLACES = ["Porto", "Lisbon", "Berlin", "Oslo"];
const bText = (i: number) =>
  `${TOPICS[i % TOPICS.length]} with Mia in ${PLACES[i % PLACES.length]}: note ${i}, ${TOPICS[(i * 3 + 1) % TOPICS.length]} next week`;
const QUERIES = [
  "when did I go kayak in Oslo?",
  "sourdough",
  "what about the violin and chess",
  "Mia lighthouse Porto",
  "marathon training plan",
  "something nobody ever wrote about",
];

const CONVERSATION_QUERIES = ["kayak", "sourdough kayak", "violin sourdough", "chess", "sourd"];

/** JSON of a value with every clock reading left out (keys ending in ms/Ms, `timings`, `generatedAt`, `checkedAt`). */
function stable(v: unknown, drop: string[] = []): string {
  return JSON.stringify(v, (k, x) =>
    /(^|[a-z])(ms|Ms)$/.test(k) || k === "timings" || k === "generatedAt" || k === "checkedAt" || drop.includes(k)
      ? undefined
      : x,
  );
}

/** Everything B sees for the fixed queries, each output keyed by where it came from. */
async function bOutputs(): Promise<Record<string, string>> {
  // The vector leg is served by the ANN index once it has caught up (vec0 before): wait for it, as a turn
  // a moment later would find it.
  for (let i = 0; i < 400 && !annFor(store.sqlite)?.isFresh(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(annFor(store.sqlite)?.isFresh(), "the ANN index caught up");
  const out: Record<string, string> = {};
  for (const q of QUERIES) {
    const r = await callRoute("POST /api/v1/search", bToken, { body: { query: q, k: 10 } });
    assert.equal(r.status, 200, r.body);
    out[`search ${q}`] = stable(JSON.parse(r.body));
    // Debug Search: the pipeline's breakdown with a wider pool and the dropped list.
    const d = await callProcedure(memo, "memory.search", bHeaders, {
      query: q,
      k: 10,
      options: { pool: 60, qualityFilter: false },
    });
    out[`debug ${q}`] = stable(JSON.parse(d.body));
    const packed = await runAs({ personId: bId, admin: false }, () =>
      recallForPrompt(memo, { space: `${bId}~personal`, query: q, context: [] }, { promote: false }),
    );
    out[`packed ${q}`] = stable({ block: packed.block, memories: packed.memories, error: packed.error });
  }
  for (const q of CONVERSATION_QUERIES) {
    const c = await callProcedure(memo, "conversations.search", bHeaders, { query: q });
    out[`conversations ${q}`] = c.body;
  }
  out.health = stable(JSON.parse((await callRoute("GET /api/health", bHeaders)).body));
  out.healthTrpc = stable(JSON.parse((await callProcedure(memo, "health.get", bHeaders)).body));
  out.analytics = stable(JSON.parse((await callProcedure(memo, "analytics.overview", bHeaders, {})).body));
  out.chatStatus = stable(JSON.parse((await callProcedure(memo, "chat.status", bHeaders)).body));
  // A sharing a space with C tells C, and B nothing (issue 48).
  out.shareNotices = (await callProcedure(memo, "spaces.shareNotices", bHeaders)).body;
  return out;
}

function assertSame(before: Record<string, string>, now: Record<string, string>, when: string): void {
  assert.deepEqual(Object.keys(now), Object.keys(before));
  for (const k of Object.keys(before)) assert.equal(now[k], before[k], `${when}: B's "${k}" moved`);
}

const aMemories: string[] = [];

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder(MODEL) };
  setDb(store);
  setAppContext(memo);
  const fast = { log2N: 10, r: 8, p: 1 };
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", fast));
  bId = createPerson(store.sqlite, {
    name: "B",
    login: "b",
    role: "member",
    passwordHash: await hashPassword("b pw 1", fast),
  }).id;
  createPerson(store.sqlite, {
    name: "C",
    login: "c",
    role: "member",
    passwordHash: await hashPassword("c pw 1", fast),
  });
  aHeaders = { cookie: `memo_session=${createSession(store.sqlite, { personId: "owner" }).token}` };
  bHeaders = { cookie: `memo_session=${createSession(store.sqlite, { personId: bId }).token}` };
  bToken = { authorization: `Bearer ${createApiToken(store.sqlite, "b script", bId).token}` };

  // ---- B's data only: memories with facts, a conversation, a document ----
  const bMemories: string[] = [];
  for (let i = 0; i < 120; i += 20) {
    const r = await callRoute("POST /api/v1/memories/batch", bToken, {
      body: { items: Array.from({ length: 20 }, (_, j) => ({ text: bText(i + j) })) },
    });
    assert.equal(r.status, 201, r.body);
    bMemories.push(...(JSON.parse(r.body) as { ids: string[][] }).ids.flat());
  }
  const bFacts = await callRoute("POST /api/v1/facts", bToken, {
    body: {
      space: `${bId}~personal`,
      items: bMemories
        .slice(0, 40)
        .map((m, i) => ({ text: `Mia likes ${TOPICS[i % TOPICS.length]} in ${PLACES[i % 4]}`, sources: [m] })),
    },
  });
  assert.equal(bFacts.status, 201, bFacts.body);
  await runAs({ personId: bId, admin: false }, async () => {
    // Conversations whose order by bm25 depends on the words' document frequencies and the average length.
    const chats = [
      [
        "Kayak trip to Oslo",
        "planning the kayak trip and a sourdough picnic",
        "sounds lovely, the violin can come too",
      ],
      ["Bakery", "sourdough sourdough starter, and the kayak rack", "feed it daily"],
      ["Weekend", "a long day: chess, pottery, a marathon, the violin, a kayak, sourdough toast and more", "noted"],
    ];
    for (const [title, user, reply] of chats) {
      const conv = createConversation(store.sqlite, { title });
      appendMessages(store.sqlite, conv.id, [
        { role: "user", content: user! },
        { role: "assistant", content: reply! },
      ]);
    }
    const doc = await addDocument(
      memo,
      "b-notes.md",
      new TextEncoder().encode("# Chess\n\nChess openings and marathon splits.\n"),
    );
    for (let i = 0; i < 200 && getDocument(store.sqlite, doc.id)?.status !== "done"; i++)
      await new Promise((r) => setTimeout(r, 25));
  });
  startAnnIndex(store.sqlite, 32, null);
});

after(async () => {
  stopAnnIndex(store.sqlite);
  await queueFor(memo).stop?.();
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("B's outputs are identical, byte for byte, before and after A writes 2,000 memories, a document, temporary chats and a share — and after A forgets them", async () => {
  const alone = await bOutputs();
  assert.ok(alone["search sourdough"]!.includes("sourdough"), "B's search finds B's memories");
  assert.ok(
    QUERIES.some((q) => alone[`packed ${q}`]!.includes("[What I know]")),
    "B's facts reach B's packed block (the fact keys are exercised)",
  );

  // ---- A's data, full of B's words, in A's own spaces ----
  await runAs({ personId: "owner", admin: true }, async () => {
    for (const space of ["personal", "work"]) {
      const texts = Array.from({ length: 1000 }, (_, i) =>
        i % 5 === 0
          ? `sourdough sourdough kayak Oslo ${i}`
          : `${bText(i * 7)} and ${TOPICS[i % 3]} again ${space} ${i}`,
      );
      for (let i = 0; i < texts.length; i += 250) {
        const part = texts.slice(i, i + 250);
        aMemories.push(
          ...insertMemories(
            store.sqlite,
            part.map((content) => ({ spaceId: space, content, kind: "chat" as const })),
            part.map((t) => hashedVector(t, 32)),
            MODEL,
          ),
        );
      }
    }
    // A's facts, in the same words as B's.
    const aFacts = await callRoute("POST /api/v1/facts", aHeaders, {
      body: {
        space: "personal",
        items: aMemories
          .slice(0, 100)
          .map((m, i) => ({ text: `Mia likes ${TOPICS[i % 3]} sourdough kayak ${i}`, sources: [m] })),
      },
    });
    assert.equal(aFacts.status, 201, aFacts.body);
    const doc = await addDocument(
      memo,
      "a-kayak.md",
      new TextEncoder().encode("# Kayak\n\nKayak kayak Oslo sourdough violin.\n"),
    );
    for (let i = 0; i < 200 && getDocument(store.sqlite, doc.id)?.status !== "done"; i++)
      await new Promise((r) => setTimeout(r, 25));
    // Temporary chats (never memory) with more matches of B's words than conversation search ever ranked.
    for (let i = 0; i < 3; i++) {
      const t = createConversation(store.sqlite, { title: `Kayak ${i}`, temporary: true });
      appendMessages(
        store.sqlite,
        t.id,
        Array.from({ length: 800 }, (_, j) => ({
          role: j % 2 ? ("assistant" as const) : ("user" as const),
          content: j % 2 ? "kayak kayak kayak" : `kayak sourdough violin chess marathon ${j}`,
        })),
      );
    }
    const shared = await callProcedure(memo, "spaces.share", aHeaders, { space: "work", person: "c", mode: "read" });
    assert.equal(shared.status, 200, shared.body);
  });
  assertSame(alone, await bOutputs(), "after A wrote");

  // ---- A forgets everything ----
  await runAs({ personId: "owner", admin: true }, async () => {
    softDeleteMemories(store.sqlite, aMemories);
  });
  assertSame(alone, await bOutputs(), "after A forgot");
});

test("learning (issue 48): B's learning status, count, runs and proposals do not move when A switches learning, runs it and gets proposals", async () => {
  // A provider on this machine (nothing is sent: counting and switching make no call).
  saveProviderSettings(store.sqlite, { active: "openai", openai: { baseUrl: "http://127.0.0.1:9/v1", model: "m" } });
  const key = "openai@127.0.0.1:9";
  const bLearning = async () => {
    const out: Record<string, string> = {};
    for (const [name, input] of [
      ["learning.status", undefined],
      ["learning.count", { kind: "backfill" }],
      ["learning.runs", undefined],
      ["facts.proposals", undefined],
    ] as const) {
      const r = await callProcedure(memo, name, bHeaders, input);
      assert.equal(r.status, 200, r.body);
      // The runner's state is the household's (idle or working), not anyone's data.
      out[name] = stable(JSON.parse(r.body), ["runner"]);
    }
    return out;
  };
  const alone = await bLearning();
  assert.match(alone["learning.count"]!, /"blocked":null/, "B may learn with it (on by default on this machine)");
  for (const on of [false, true, null] as const) {
    const r = await callProcedure(memo, "learning.setProvider", aHeaders, { key, on });
    assert.equal(r.status, 200, r.body);
    assertSame(alone, await bLearning(), `after A set learning ${on}`);
  }
  await runAs({ personId: "owner", admin: true }, async () => {
    const run = createRun(store.sqlite, { kind: "backfill", spaceId: "personal", memories: [] });
    addProposal(store.sqlite, {
      spaceId: "personal",
      runId: run,
      jobId: 0,
      text: "Mia likes kayak in Oslo now",
      validFrom: "2026-01-01T00:00:00.000Z",
      sources: aMemories.slice(0, 1),
      replaces: [],
    });
  });
  assertSame(alone, await bLearning(), "after A's run and proposal");
});
