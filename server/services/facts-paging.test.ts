/**
 * Facts at scale (issue 48 finding 7): `GET /api/v1/facts` and `facts.list` page by keyset (`nextCursor`,
 * docs/api.md#facts) instead of stopping at 1,000; a search with no space searches every space holding facts,
 * not those of the newest 1,000; learning.count counts without making a string per memory. Real store; the
 * embedder is the hashed-words TEST DOUBLE.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { GET as listRoute } from "../../app/api/v1/facts/route";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { batches } from "../memory/facts/extract";
import { callsForLengths, countLearnable, callsForMemories, learnableMemories } from "../memory/facts/runs";
import { insertFacts } from "../memory/facts/store";
import { addMemories } from "../memory/store/add";
import { openTempStore, type TempStore } from "../test/temp-store";
import { hashedVector, TestDimEmbedder } from "../test/test-dim-embedder";
import { listFactsFor } from "./facts-service";

const stores: TempStore[] = [];
after(() => {
  setAppContext(undefined);
  stores.forEach((s) => s.close());
});

async function store(): Promise<{ memo: MemoContext; source: (space?: string) => Promise<string> }> {
  const s = openTempStore();
  stores.push(s);
  const memo: MemoContext = { db: s.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setAppContext(memo);
  return {
    memo,
    source: async (space = "personal") =>
      (await addMemories(memo, [{ text: `notes kept in ${space}`, space }]))[0]![0]!,
  };
}

/** `n` facts in a space, each dated a day apart from `from` (written 100 per call, as the store allows). */
function facts(memo: MemoContext, space: string, source: string, n: number, text: (i: number) => string, from: number) {
  for (let at = 0; at < n; at += 100) {
    const items = Array.from({ length: Math.min(100, n - at) }, (_, k) => ({
      text: text(at + k),
      sources: [source],
      validFrom: new Date(from + (at + k) * 86_400_000).toISOString(),
      origin: "import" as const,
    }));
    insertFacts(
      memo.db,
      space,
      items,
      items.map((i) => hashedVector(i.text, 16)),
      "test-16d-a",
    );
  }
}

test("keyset pages: every fact once, in order, over REST and the service; a fact added meanwhile moves nothing", async () => {
  const { memo, source } = await store();
  facts(memo, "personal", await source(), 1205, (i) => `The user keeps note number ${i}.`, Date.UTC(2020, 0, 1));
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q: string = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await listRoute(new Request(`http://x/api/v1/facts?${q}`));
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { facts: { id: string; validFrom: string }[]; nextCursor: string | null };
    seen.push(...body.facts.map((f) => f.id));
    cursor = body.nextCursor;
    if (pages++ === 0)
      // Written between two pages, newer than everything: the next pages go on where they were.
      facts(memo, "personal", await source(), 1, () => "A newer note.", Date.UTC(2030, 0, 1));
  } while (cursor);
  assert.equal(pages, 3);
  assert.equal(seen.length, 1205, "every fact of the time of the first page, once");
  assert.equal(new Set(seen).size, 1205);
  const all = (await listFactsFor(memo, { limit: 1000 })).facts;
  assert.equal(all[0]!.text, "A newer note.");
  assert.deepEqual(
    seen.slice(0, 999),
    all.slice(1).map((f) => f.id),
    "the same order as one listing",
  );
  // Bad cursors and a cursor with q: a clear 400.
  for (const bad of ["nope", Buffer.from('["x"]').toString("base64url")]) {
    const r = await listRoute(new Request(`http://x/api/v1/facts?cursor=${bad}`));
    assert.equal(r.status, 400);
    assert.match(await r.text(), /cursor is not one a facts list gave/);
  }
  const withQ = await listRoute(new Request(`http://x/api/v1/facts?q=note&cursor=${encodeURIComponent(seen[0]!)}`));
  assert.equal(withQ.status, 400);
});

test("a search with no space finds the facts of a space whose facts are older than another space's newest 1,000", async () => {
  const { memo, source } = await store();
  facts(memo, "trips", await source("trips"), 1001, (i) => `Kayak trip number ${i} went well.`, Date.UTC(2024, 0, 1));
  facts(memo, "gear", await source("gear"), 1, () => "The user's first kayak was red.", Date.UTC(2001, 0, 1));
  const found = (await listFactsFor(memo, { q: "kayak", limit: 5 })).facts.map((f) => f.text);
  assert.ok(found.includes("The user's first kayak was red."), JSON.stringify(found));
});

test("learning.count's count: the runner's batches, from lengths alone", async () => {
  // The rule on lengths is the batching itself, for lengths around every limit.
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let run = 0; run < 200; run++) {
    const lengths = Array.from({ length: Math.floor(rnd() * 30) }, () =>
      Math.floor(rnd() < 0.1 ? rnd() * 30_000 : rnd() * 5_000),
    );
    const expected = batches(lengths.map((n) => ({ text: "x".repeat(n) }))).length;
    assert.deepEqual(callsForLengths(lengths), { memories: lengths.length, calls: expected }, JSON.stringify(lengths));
  }
  const { memo } = await store();
  await addMemories(
    memo,
    Array.from({ length: 23 }, (_, i) => ({ text: `memory ${i} ${"word ".repeat((i * 397) % 900)}` })),
  );
  const all = learnableMemories(memo.db, { spaceId: "personal" });
  assert.deepEqual(countLearnable(memo.db, { spaceId: "personal" }), {
    memories: all.length,
    calls: callsForMemories(all),
  });
  const some = all.slice(3, 11).map((m) => m.id);
  assert.deepEqual(
    learnableMemories(memo.db, { spaceId: "personal", memoryIds: some }).map((m) => m.id),
    some,
    "an import's memories in its order",
  );
});
