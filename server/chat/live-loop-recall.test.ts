/**
 * The recall side of the live loop (issue 47, docs/retrieval.md#the-live-loop), through the chat turn's recall
 * (recallForPrompt) and the exchange write path (persistExchange) with the real bundled model (USE-lite):
 * a fact reaches the prompt on its own evidence from a young store on, the profile is carried, both follow
 * the sharing rules, a stored reply records what it was given and never outranks what it restated, and a
 * date window holding the whole store is no signal. The replies here are written by the test (a TEST DOUBLE
 * of an assistant that restates what it was given).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { MemoContext } from "../core/context";
import { insertFacts } from "../memory/facts/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { PersistQueue, persistExchange } from "./exchange-queue";
import { provenanceOf, recallForPrompt } from "./turn-recall";
import { saveRetrievalSettings, defaultSettingsFor } from "../memory/retrieval/settings";
import { search } from "../memory/retrieval/search";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));

const SPACE = "personal";

async function store(): Promise<MemoContext> {
  const { model, dim } = await emb.info();
  const s = openTempStore({ model, dim });
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

async function say(
  ctx: MemoContext,
  user: string,
  assistant: string,
  at: string,
  recalled?: ReturnType<typeof provenanceOf>,
) {
  return persistExchange(ctx, {
    space: SPACE,
    conversationId: null,
    user,
    assistant,
    timestamp: at,
    source: "test",
    ...(recalled ? { recalled } : {}),
  });
}

async function fact(ctx: MemoContext, text: string, sources: string[], validFrom: string) {
  const { model } = await emb.info();
  return insertFacts(
    ctx.db,
    SPACE,
    [{ text, sources, validFrom, origin: "learned" }],
    await emb.embedDocuments([text]),
    model,
  );
}

const NOW = "2026-11-20T12:00:00.000Z";

async function setting(ctx: MemoContext, patch: Partial<ReturnType<typeof defaultSettingsFor>>) {
  const { model } = await emb.info();
  saveRetrievalSettings(ctx.db, model, { ...defaultSettingsFor(model), ...patch });
}

const derivedRow = (ctx: MemoContext, id: string) =>
  ctx.db.prepare("SELECT derived_from AS d, novelty FROM memories WHERE id = ?").get(id) as {
    d: string | null;
    novelty: number | null;
  };

/** A small life: a statement about Lena, two unrelated exchanges. */
async function life(ctx: MemoContext) {
  const [lena] = await say(
    ctx,
    "My sister Lena works as a nurse at the children's hospital in Porto.",
    "That sounds like demanding and rewarding work.",
    "2026-10-01T10:00:00.000Z",
  );
  await say(
    ctx,
    "Can you suggest a pasta recipe for tonight?",
    "Try a carbonara with eggs and pecorino.",
    "2026-10-02T10:00:00.000Z",
  );
  await say(
    ctx,
    "The car needs new tyres before winter.",
    "Winter tyres are worth it where it snows.",
    "2026-10-03T10:00:00.000Z",
  );
  return lena!;
}

test("a reply that restated recall is stored with its sources and its novelty, through the exchange write path", async () => {
  const ctx = await store();
  const lena = await life(ctx);
  const q = "What does Lena do for work?";
  const recall = await recallForPrompt(ctx, { space: SPACE, query: q, context: [], at: NOW });
  assert.equal(recall.memories[0]?.id, lena, "the statement is recalled first");
  const [restated] = await say(ctx, q, recall.memories[0]!.content, NOW, provenanceOf(recall));
  const row = derivedRow(ctx, restated!);
  assert.ok(row.d, "the stored reply records what it was given");
  assert.ok((JSON.parse(row.d!) as { memories: string[] }).memories.includes(lena));
  assert.ok(row.novelty !== null && row.novelty < 0.2, `it added almost nothing (novelty ${row.novelty})`);
  // A statement of the person's own, with nothing recalled, is no derived memory.
  const [own] = await say(ctx, "Lena starts a new job in Braga in January.", "Good luck to her!", NOW);
  assert.equal(derivedRow(ctx, own!).d, null);
});

test("an exchange that restated a memory never outranks it; without provenance it did", async () => {
  const ctx = await store();
  const lena = await life(ctx);
  const q = "What does Lena do for work?";
  const recall = await recallForPrompt(ctx, { space: SPACE, query: q, context: [], at: NOW });
  const [restated] = await say(ctx, q, recall.memories[0]!.content, NOW, provenanceOf(recall));
  const order = async () => {
    const r = await search(ctx, { query: "What kind of work does Lena do?", space: SPACE, forPrompt: true, at: NOW });
    return r.results.map((m) => m.id);
  };
  const withProvenance = await order();
  assert.ok(withProvenance.indexOf(lena) < withProvenance.indexOf(restated!), `${withProvenance}`);
  // The same store read without provenance (derivedWeight 1): the question's own exchange comes first.
  await setting(ctx, { derivedWeight: 1 });
  const without = await order();
  assert.ok(without.indexOf(restated!) < without.indexOf(lena), "the test can fail: without provenance it outranks");
});

test("a date window that holds the whole store ('now' in a store written today) is no signal", async () => {
  const ctx = await store();
  const today = new Date().toISOString();
  await say(ctx, "I live in Berlin, in Kreuzberg.", "Kreuzberg is lively.", today);
  await say(ctx, "We moved to Lisbon, near the river.", "Lisbon is lovely.", today);
  const boosted = async () =>
    (await search(ctx, { query: "Where do I live now?", space: SPACE, forPrompt: true })).results.filter((m) =>
      m.moves.some((x) => x.startsWith("date ×")),
    ).length;
  assert.equal(await boosted(), 0, "nothing is boosted by a window holding every memory");
  await setting(ctx, { maxWindowShare: 1 });
  assert.equal(await boosted(), 2, "with every window counting, 'now' boosted both (the test can fail)");
});

test("the profile is carried every turn within its budget, and follows the sharing rules of its memories", async () => {
  const ctx = await store();
  const lena = await life(ctx);
  await fact(ctx, "The user's sister Lena is a nurse in Porto", [lena], "2026-10-01T00:00:00.000Z");
  const unrelated = "How long should I boil an egg?";
  const all = await recallForPrompt(ctx, { space: SPACE, query: unrelated, context: [], at: NOW });
  assert.match(all.block, /\[What I know\]\n- The user's sister Lena is a nurse in Porto/);
  assert.ok(all.facts.some((f) => f.text.includes("Lena")));
  // A provider that may see pinned memories only may not see a fact of an unpinned one.
  const pinned = await recallForPrompt(
    ctx,
    { space: SPACE, query: unrelated, context: [], at: NOW },
    { only: "pinned" },
  );
  assert.doesNotMatch(pinned.block, /Lena/);
  assert.equal(pinned.facts.length, 0);
  await setting(ctx, { profileTokens: 0 });
  const off = await recallForPrompt(ctx, { space: SPACE, query: unrelated, context: [], at: NOW });
  assert.doesNotMatch(off.block, /Lena/, "profile off: the unrelated question carries no fact");
});

test("an exchange stored through the OpenAI-compatible API keeps what its reply was given, in the outbox and in memory", async () => {
  const ctx = await store();
  const lena = await life(ctx);
  const recall = await recallForPrompt(ctx, { space: SPACE, query: "What does Lena do?", context: [], at: NOW });
  const queue = new PersistQueue(() => ctx, { log: () => {} });
  const written = queue.enqueueApiExchange({
    space: SPACE,
    user: "What does Lena do?",
    assistant: recall.memories[0]!.content,
    timestamp: NOW,
    source: "OpenAI-compatible API",
    recalled: provenanceOf(recall),
  });
  const pending = ctx.db.prepare("SELECT recalled FROM pending_exchanges").get() as { recalled: string } | undefined;
  assert.ok(pending && (JSON.parse(pending.recalled) as { memories: string[] }).memories.includes(lena));
  const [id] = (await written)!;
  const row = derivedRow(ctx, id!);
  assert.ok(row.d && row.novelty !== null && row.novelty < 0.2, JSON.stringify(row));
});

test("a young store: a question that matches a current fact is answered from it from the first exchanges on", async () => {
  const ctx = await store();
  const [moved] = await say(
    ctx,
    "We moved to Lisbon last month, the flat is near the river.",
    "Congratulations on the move!",
    "2026-11-01T10:00:00.000Z",
  );
  await say(
    ctx,
    "Can you suggest a pasta recipe for tonight?",
    "Try a carbonara with eggs and pecorino.",
    "2026-11-02T10:00:00.000Z",
  );
  await fact(ctx, "The user lives in Lisbon", [moved!], "2026-10-01T00:00:00.000Z");
  await setting(ctx, { profileTokens: 0 }); // the facts leg alone
  const r = await recallForPrompt(ctx, { space: SPACE, query: "Where do I live these days?", context: [], at: NOW });
  assert.match(r.block, /\[What I know\]\n- The user lives in Lisbon \(since 2026-10-01\)/);
  assert.ok(r.facts.some((f) => f.text === "The user lives in Lisbon"));
  // The leg is what brought it: the exchange behind it packs nothing on its own words here.
  await setting(ctx, { profileTokens: 0, factMinConfidence: 1 });
  const off = await recallForPrompt(ctx, { space: SPACE, query: "Where do I live these days?", context: [], at: NOW });
  assert.doesNotMatch(off.block, /lives in Lisbon/, "without the facts leg nothing states it (the test can fail)");
  // A question the store knows nothing of gets no fact from the leg.
  await setting(ctx, { profileTokens: 0 });
  const none = await recallForPrompt(ctx, { space: SPACE, query: "How tall is Mount Everest?", context: [], at: NOW });
  assert.equal(none.facts.length, 0);
});
