/**
 * Consolidation you can check and undo: merged statements are validated (merge-guard.ts) and bad ones
 * skipped with the reason; pinned memories, document chunks and pairs of different kinds are never
 * merged; a preview writes nothing and is applied on confirmation; any run is undone in one transaction
 * for 7 days (also through POST /api/v1/jobs/runs/<id>/undo). Real store, real bundled embedding model.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { POST as undoRoute } from "../../app/api/v1/jobs/runs/[id]/undo/route";
import { consolidate } from "../memory/lifecycle/consolidate";
import { similarityProblem, textProblem } from "../memory/lifecycle/merge-guard";
import { checkInvariant, getMemory, insertMemories, updateMemoryContent, type MemoryKind } from "../memory/store";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { inProcessEmbedder, type InProcessEmbedder } from "../test/in-process-embedder";
import { openTempStore, type TempStore } from "../test/temp-store";
import { applyConsolidationPreview, previewConsolidation, undoConsolidationRun } from "./consolidation-runs";
import { runConsolidateJob } from "./jobs";
import { getRun } from "../core/job-runner";
import { getFact, insertFacts } from "../memory/facts/store";

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => {
  setAppContext(undefined);
  stores.forEach((s) => s.close());
});

const ANNA_1 = "My sister Anna lives in Berlin.";
const ANNA_2 = "My sister Anna lives in Berlin, Germany.";
const TEA_1 = "I prefer green tea over coffee in the morning.";
const TEA_2 = "In the morning I prefer green tea to coffee.";
/** The fixture's rule: the longer statement (what a model does with near-duplicates). */
const longer = async (a: string, b: string) => (b.length > a.length ? b : a);

async function store(): Promise<MemoContext> {
  const { model, dim } = await emb.info();
  const s = openTempStore({ model, dim });
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}

async function add(
  ctx: MemoContext,
  items: { content: string; kind?: MemoryKind; pinned?: boolean }[],
): Promise<string[]> {
  const { model } = await emb.info();
  return insertMemories(
    ctx.db,
    items.map((i) => ({ spaceId: "personal", ...i })),
    await emb.embedDocuments(items.map((i) => i.content)),
    model,
  );
}

const liveContents = (ctx: MemoContext) =>
  (
    ctx.db.prepare("SELECT content FROM memories WHERE soft_deleted = 0 ORDER BY content").all() as {
      content: string;
    }[]
  ).map((r) => r.content);

test("merge checks: empty, too long, refusal or meta text (unless the originals say it), too far from an original", async () => {
  assert.match(textProblem("  ", "a", "b")!, /empty/);
  assert.match(
    textProblem("x".repeat(25), "x".repeat(10), "y".repeat(10))!,
    /more than both originals together plus 20% \(24\)/,
  );
  assert.equal(textProblem("x".repeat(24), "x".repeat(10), "y".repeat(10)), null);
  assert.match(textProblem("I can't merge these.", ANNA_1, ANNA_2)!, /refusal or meta text/);
  assert.match(textProblem("As an AI, I think Anna lives in Berlin.", ANNA_1, ANNA_2)!, /As an AI/);
  assert.match(
    textProblem("Here is the merged statement: Anna lives in Berlin.", ANNA_1, ANNA_2)!,
    /Here is the merged/,
  );
  assert.equal(
    textProblem("I can't make Tuesday; Wednesday works.", "I can't make Tuesday.", "Wednesday works for me."),
    null,
    "the originals' own words are fine",
  );
  const [a, b, far] = await emb.embedDocuments([ANNA_1, ANNA_2, "The quarterly tax return is due in April."]);
  assert.equal(similarityProblem(a!, a!, b!, 0.92), null);
  assert.match(similarityProblem(far!, a!, b!, 0.92)!, /too far from the originals .* at least 0\.82 needed/);
});

test("a provider that answers badly: every bad merge is skipped with its reason and nothing is written", async () => {
  const ctx = await store();
  await add(ctx, [{ content: ANNA_1 }, { content: ANNA_2 }, { content: TEA_1 }, { content: TEA_2 }]);
  const before = liveContents(ctx);
  const answers = [
    "As an AI language model, I cannot merge personal data.",
    "The quarterly tax return is due in April.",
  ];
  const { model } = await emb.info();
  const r = await consolidate(ctx, model, { threshold: 0.92, merge: async () => answers.shift() ?? "" });
  assert.equal(r.counts.merged, 0);
  assert.deepEqual(
    r.skipped.map((s) => s.reason.replace(/\(.*/, "").trim()),
    ["the merged statement contains refusal or meta text", "the merged statement is too far from the originals"],
  );
  assert.deepEqual(liveContents(ctx), before);
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("never merged: pinned memories, document chunks, memories of different kinds", async () => {
  const ctx = await store();
  await add(ctx, [
    { content: ANNA_1, kind: "chat" },
    { content: ANNA_2, kind: "import" },
    { content: TEA_1, kind: "document" },
    { content: TEA_2, kind: "document" },
    { content: "My cat Miso is eleven years old.", pinned: true, kind: "remember" },
    { content: "My cat Miso is eleven years old now.", kind: "remember" },
  ]);
  const { model } = await emb.info();
  const asked: [string, string][] = [];
  const r = await consolidate(ctx, model, {
    threshold: 0.9,
    merge: async (a, b) => (asked.push([a, b]), longer(a, b)),
  });
  assert.deepEqual(asked, [], "no pair was even proposed");
  assert.equal(r.counts.merged, 0);
  assert.equal(r.pairs, 0);
});

test("preview writes nothing; applying it writes the checked merges; an original changed since is skipped; undo restores everything", async () => {
  const ctx = await store();
  const [anna1, anna2, tea1, tea2] = await add(ctx, [
    { content: ANNA_1 },
    { content: ANNA_2 },
    { content: TEA_1 },
    { content: TEA_2 },
  ]);
  // A fact learned from one of the originals: the merge must not forget it, and the undo must not either.
  const { model: m } = await emb.info();
  const [sister] = insertFacts(
    ctx.db,
    "personal",
    [{ text: "Anna is the user's sister", sources: [anna1!], origin: "learned" }],
    await emb.embedDocuments(["Anna is the user's sister"]),
    m,
  );
  const before = liveContents(ctx);
  const preview = await previewConsolidation(ctx, { merge: longer });
  assert.equal(preview.status, "ok", preview.error ?? "");
  const proposals = preview.result!.proposals as { from: string[]; content: string }[];
  assert.equal(proposals.length, 2);
  assert.deepEqual(liveContents(ctx), before, "the preview wrote nothing");

  // The user edits one memory of the tea pair before confirming: that proposal is skipped.
  const { model } = await emb.info();
  const teaEdit = "I prefer black tea now.";
  updateMemoryContent(ctx.db, tea1!, teaEdit, (await emb.embedDocuments([teaEdit]))[0]!, model);
  const applied = await applyConsolidationPreview(ctx, preview.id);
  assert.equal(applied.status, "ok", applied.error ?? "");
  const merges = applied.result!.merges as { id: string; from: string[]; content: string }[];
  assert.equal(merges.length, 1);
  assert.deepEqual(merges[0]!.from.sort(), [anna1, anna2].sort());
  assert.equal(getMemory(ctx.db, merges[0]!.id)!.content, ANNA_2);
  assert.match((applied.result!.skipped as { reason: string }[])[0]!.reason, /changed or deleted since the preview/);
  assert.equal(getMemory(ctx.db, tea2!)!.softDeleted, false);
  await assert.rejects(applyConsolidationPreview(ctx, preview.id), /already applied/);
  assert.deepEqual(
    getFact(ctx.db, sister!)?.sources.sort(),
    [anna1!, merges[0]!.id].sort(),
    "backed by the merged memory",
  );

  // Undo: merged memory removed, originals back; once only.
  const u = undoConsolidationRun(ctx, applied.id);
  assert.deepEqual([u.removed, u.restored, u.missing], [1, 2, []]);
  assert.equal(getMemory(ctx.db, merges[0]!.id), undefined);
  assert.deepEqual([getMemory(ctx.db, anna1!)!.softDeleted, getMemory(ctx.db, anna2!)!.softDeleted], [false, false]);
  assert.ok((getRun(ctx.db, applied.id)!.result!.undone as { at: string }).at);
  assert.deepEqual(getFact(ctx.db, sister!)?.sources, [anna1!], "the undo left the fact its original source");
  assert.throws(() => undoConsolidationRun(ctx, applied.id), /already undone/);
  assert.throws(() => undoConsolidationRun(ctx, preview.id), /is a preview/);
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("the scheduled run applies directly; its undo works over HTTP for 7 days and not after", async () => {
  const ctx = await store();
  await add(ctx, [{ content: ANNA_1 }, { content: ANNA_2 }]);
  const run = await runConsolidateJob(ctx, { merge: longer, trigger: "schedule" });
  assert.equal((run.result!.merges as unknown[]).length, 1);
  assert.throws(() => undoConsolidationRun(ctx, run.id, new Date(Date.now() + 8 * 86_400_000)), /older than 7 days/);

  setAppContext(ctx);
  const call = (id: string) =>
    undoRoute(new Request(`http://x/api/v1/jobs/runs/${id}/undo`, { method: "POST" }), {
      params: Promise.resolve({ id }),
    });
  assert.equal((await call("abc")).status, 400);
  assert.equal((await call("999999")).status, 404);
  const ok = await call(String(run.id));
  assert.equal(ok.status, 200);
  assert.deepEqual(((await ok.json()) as { removed: number; restored: number }).restored, 2);
  const again = await call(String(run.id));
  assert.equal(again.status, 409);
  assert.match(((await again.json()) as { error: { message: string } }).error.message, /already undone/);
  assert.deepEqual(liveContents(ctx), [ANNA_1, ANNA_2].sort());
});
