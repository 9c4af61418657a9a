/**
 * Consolidation on real store files: with the real bundled embedding model (USE-lite, in process) and the
 * OpenAI-compatible fixture chat server (test double) reached through the app's provider path; a crash
 * injected between writing the merged memory and soft-deleting the originals, both as a throw inside the
 * transaction and as a SIGKILL of a child process at that point.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { saveProviderSettings } from "../../chat/providers";
import { openDb } from "../../db";
import { runConsolidateJob } from "../../jobs/jobs";
import { listRuns } from "../../core/job-runner";
import { saveJobSettings } from "../../jobs/settings";
import { search } from "../retrieval/search";
import type { MemoContext } from "../../core/context";
import { FixtureChatServer, fixtureMerge } from "../../test/fixture-chat-server";
import { waitUntil } from "../../test/wait-until";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../../test/test-dim-embedder";
import { annFor, startAnnIndex, stopAnnIndex } from "../index/ann-registry";
import { consolidate, disjointPairs, similarPairs } from "./consolidate";
import { checkInvariant, getMemory, insertMemories } from "../store";

let emb: InProcessEmbedder;
let chat: FixtureChatServer;
const stores: TempStore[] = [];

// The tests choose the chat provider: none from the environment or from a developer's data/models/chat/.
for (const k of [
  "MEMO_PROVIDER",
  "MEMO_OPENAI_BASE_URL",
  "MEMO_OPENAI_API_KEY",
  "MEMO_OPENAI_MODEL",
  "MEMO_ANTHROPIC_API_KEY",
  "MEMO_ANTHROPIC_BASE_URL",
  "MEMO_ANTHROPIC_MODEL",
  "MEMO_CHAT_MODEL",
])
  delete process.env[k];
process.env.MEMO_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "memo-jobs-data-"));
before(async () => {
  emb = await inProcessEmbedder();
  chat = await FixtureChatServer.start();
});
after(async () => {
  for (const s of stores) {
    stopAnnIndex(s.sqlite);
    s.close();
  }
  await chat.close();
  fs.rmSync(process.env.MEMO_DATA_DIR!, { recursive: true, force: true });
});

const ANNA_1 = "My sister Anna lives in Berlin.";
const ANNA_2 = "My sister Anna lives in Berlin, Germany.";
const TEA_1 = "I prefer green tea over coffee in the morning.";
const TEA_2 = "In the morning I prefer green tea to coffee.";
// Related but below 0.92 with USE-lite (0.82): not merged.
const DENTIST_1 = "The dentist appointment is on Tuesday at 10am.";
const DENTIST_2 = "My dentist appointment is Tuesday at 10am.";
const OTHERS = [
  "The car needs new tyres before winter.",
  "We are planning a trip to Japan next spring.",
  "My favourite book is Dune by Frank Herbert.",
  "Remember to water the plants on Sunday.",
];

async function store(withProvider = true): Promise<{ ctx: MemoContext; s: TempStore }> {
  const { model, dim } = await emb.info();
  const s = openTempStore({ model, dim });
  stores.push(s);
  if (withProvider)
    saveProviderSettings(s.sqlite, { active: "openai", openai: { baseUrl: chat.url, model: "fixture-merge" } });
  return { ctx: { db: s.sqlite, embedder: emb }, s };
}

async function add(
  ctx: MemoContext,
  items: { content: string; importance?: number; timestamp?: string; pinned?: boolean; spaceId?: string }[],
): Promise<string[]> {
  const { model } = await emb.info();
  const vectors = await emb.embedDocuments(items.map((i) => i.content));
  return insertMemories(
    ctx.db,
    items.map((i) => ({ spaceId: "personal", ...i })),
    vectors,
    model,
  );
}

const live = (ctx: MemoContext) =>
  (
    ctx.db.prepare("SELECT content FROM memories WHERE soft_deleted = 0 ORDER BY content").all() as {
      content: string;
    }[]
  ).map((r) => r.content);

test("pairs: most similar first, each memory in at most one pair", () => {
  const v = (xs: number[]) => new Float32Array(xs);
  const vectors = [v([1, 0, 0]), v([0.99, 0.1, 0]), v([0.98, 0.15, 0]), v([0, 1, 0]), v([0, 0, 1])];
  const pairs = similarPairs(vectors, 0.92);
  assert.deepEqual(
    pairs.map((p) => [p.i, p.j]),
    [
      [1, 2],
      [0, 1],
      [0, 2],
    ],
  );
  assert.deepEqual(
    disjointPairs(pairs).map((p) => [p.i, p.j]),
    [[1, 2]],
  );
  assert.deepEqual(similarPairs([v([3, 4])], 0.5), []);
  // Not unit length: similarity is still the cosine.
  assert.equal(similarPairs([v([2, 0]), v([5, 0])], 0.99)[0]!.similarity, 1);
});

test("pairs: the pruned scan finds exactly the pairs a brute-force cosine finds", () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  for (const dim of [3, 4, 17, 768]) {
    // Clusters plus a shared direction (real embeddings are anisotropic: unrelated texts still have cosine > 0).
    const common = Array.from({ length: dim }, rand);
    const centres = Array.from({ length: 8 }, () => Array.from({ length: dim }, (_, k) => rand() + 0.8 * common[k]!));
    const vectors = Array.from({ length: 60 }, (_, i) => Float32Array.from(centres[i % 8]!, (x) => x + 0.3 * rand()));
    for (const threshold of [0.3, 0.8, 0.92, 0.99]) {
      const brute: string[] = [];
      for (let i = 0; i < vectors.length; i++)
        for (let j = i + 1; j < vectors.length; j++) {
          let dot = 0;
          let na = 0;
          let nb = 0;
          for (let k = 0; k < dim; k++) {
            dot += vectors[i]![k]! * vectors[j]![k]!;
            na += vectors[i]![k]! ** 2;
            nb += vectors[j]![k]! ** 2;
          }
          if (dot / Math.sqrt(na * nb) >= threshold + 1e-6) brute.push(`${i}-${j}`);
        }
      const found = new Set(similarPairs(vectors, threshold).map((p) => `${p.i}-${p.j}`));
      assert.deepEqual(
        brute.filter((k) => !found.has(k)),
        [],
        `dim ${dim}, threshold ${threshold}: none missed`,
      );
      assert.ok(found.size >= brute.length);
    }
  }
});

test("consolidation merges near-duplicates through the chat provider; a second run merges nothing new", async () => {
  const { ctx } = await store();
  const [anna1, anna2, tea1, tea2] = await add(ctx, [
    { content: ANNA_1, importance: 3, timestamp: "2024-06-01T00:00:00.000Z" },
    { content: ANNA_2, importance: 1, timestamp: "2024-01-15T00:00:00.000Z" },
    { content: TEA_1, importance: 2, timestamp: "2024-03-01T00:00:00.000Z" },
    { content: TEA_2, importance: 4, timestamp: "2024-03-02T00:00:00.000Z" },
    { content: DENTIST_1 },
    { content: DENTIST_2 },
    ...OTHERS.map((content) => ({ content })),
  ]);
  chat.requests.length = 0;
  const run = await runConsolidateJob(ctx, { trigger: "manual" });
  assert.equal(run.status, "ok", run.error ?? "");
  const r = run.result as {
    counts: { merged: number; softDeleted: number };
    pairs: number;
    candidates: number;
    merges: { id: string; from: string[]; content: string }[];
  };
  assert.equal(r.candidates, 10);
  assert.equal(r.pairs, 2);
  assert.deepEqual([r.counts.merged, r.counts.softDeleted], [2, 4]);
  // The provider was asked to merge each pair (both statements in the prompt), at temperature 0.
  const asked = chat.mergeRequests().map((p) => p.slice().sort());
  assert.deepEqual(asked.sort(), [[ANNA_1, ANNA_2].sort(), [TEA_1, TEA_2].sort()].sort());
  assert.ok(chat.requests.every((q) => q.path !== "/v1/chat/completions" || q.body?.temperature === 0));

  const annaMerge = r.merges.find((m) => m.from.includes(anna1!))!;
  const merged = getMemory(ctx.db, annaMerge.id)!;
  assert.equal(merged.content, fixtureMerge(ANNA_1, ANNA_2));
  assert.equal(merged.kind, "consolidated");
  assert.equal(merged.importance, 3, "the higher importance of the two");
  assert.equal(merged.timestamp, "2024-01-15T00:00:00.000Z", "the earlier timestamp");
  const teaMerge = getMemory(ctx.db, r.merges.find((m) => m.from.includes(tea1!))!.id)!;
  assert.deepEqual([teaMerge.importance, teaMerge.timestamp], [4, "2024-03-01T00:00:00.000Z"]);
  for (const id of [anna1, anna2, tea1, tea2]) assert.equal(getMemory(ctx.db, id!)!.softDeleted, true);
  assert.equal(getMemory(ctx.db, anna1!)!.deletedAt !== null, true);
  assert.deepEqual(checkInvariant(ctx.db), []);
  assert.deepEqual(rawCounts(ctx.db), { memories: 12, vec: 8, fts: 8, trash: 4 });
  // The merged memory is found by search like any other.
  const found = await search(ctx, { query: "where does Anna live?", options: { qualityFilter: false } });
  assert.equal(found.results[0]!.id, annaMerge.id);

  const counts = rawCounts(ctx.db);
  const again = await runConsolidateJob(ctx, { trigger: "manual" });
  assert.equal(again.status, "ok");
  assert.equal((again.result as { counts: { merged: number } }).counts.merged, 0);
  assert.equal((again.result as { pairs: number }).pairs, 0);
  assert.deepEqual(rawCounts(ctx.db), counts);
  assert.deepEqual(
    listRuns(ctx.db, { job: "consolidate" }).map((x) => x.status),
    ["ok", "ok"],
  );
});

test("pinned memories are never consolidated away; a memory takes part in one merge per run", async () => {
  const { ctx } = await store();
  await add(ctx, [
    { content: ANNA_1, pinned: true },
    { content: ANNA_2 },
    { content: "I prefer green tea over coffee in the morning." },
    { content: "I prefer green tea over coffee in the morning!" },
    { content: "i prefer green tea over coffee in the morning" },
  ]);
  const run = await runConsolidateJob(ctx);
  const r = run.result as { pairs: number; counts: { merged: number } };
  assert.equal(r.pairs, 1, "three near-identical memories make one pair (each memory in at most one)");
  assert.equal(r.counts.merged, 1);
  assert.ok(live(ctx).includes(ANNA_1) && live(ctx).includes(ANNA_2), "the pinned one and its twin both stay");
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("with no chat provider it finds the pairs, merges nothing and records that it skipped merging", async () => {
  const { ctx } = await store(false);
  await add(ctx, [{ content: ANNA_1 }, { content: ANNA_2 }]);
  const counts = rawCounts(ctx.db);
  const run = await runConsolidateJob(ctx);
  assert.equal(run.status, "skipped");
  const r = run.result as { pairs: number; skippedMerging: string; counts: { merged: number } };
  assert.equal(r.pairs, 1);
  assert.equal(r.counts.merged, 0);
  assert.match(r.skippedMerging, /no chat provider/i);
  assert.deepEqual(rawCounts(ctx.db), counts);
  assert.equal(listRuns(ctx.db, { job: "consolidate" })[0]!.status, "skipped");
});

test("a provider that fails makes the run fail with its error and changes nothing", async () => {
  const { ctx } = await store();
  await add(ctx, [{ content: ANNA_1 }, { content: ANNA_2 }, { content: TEA_1 }, { content: TEA_2 }]);
  const counts = rawCounts(ctx.db);
  chat.mode = "status-500";
  try {
    const run = await runConsolidateJob(ctx);
    assert.equal(run.status, "failed");
    assert.match(run.error!, /every merge failed/);
    assert.equal((run.result as { failed: number }).failed, 2);
  } finally {
    chat.mode = "ok";
  }
  assert.deepEqual(rawCounts(ctx.db), counts);
});

test("a crash between writing the merged memory and soft-deleting the originals leaves the store as it was", async () => {
  const { ctx } = await store();
  await add(ctx, [{ content: ANNA_1 }, { content: ANNA_2 }, ...OTHERS.map((content) => ({ content }))]);
  const { dim } = await emb.info();
  const ann = startAnnIndex(ctx.db, dim, null);
  await ann.build();
  const before = rawCounts(ctx.db);
  const liveBefore = live(ctx);
  let mergedId = "";
  const run = await runConsolidateJob(ctx, {
    beforeSoftDelete: (id) => {
      mergedId = id;
      assert.ok(getMemory(ctx.db, id), "the merged memory is written inside the transaction");
      throw new Error("injected crash");
    },
  });
  assert.equal(run.status, "failed");
  assert.match(run.error!, /injected crash/);
  assert.equal(getMemory(ctx.db, mergedId), undefined, "the merged memory was rolled back");
  assert.deepEqual(live(ctx), liveBefore, "the originals are still live");
  assert.deepEqual(rawCounts(ctx.db), before);
  assert.deepEqual(checkInvariant(ctx.db), []);
  // The in-memory index never saw the rolled-back write (notifications wait for the commit).
  assert.equal(annFor(ctx.db)!.isFresh(), true);
  assert.equal(annFor(ctx.db)!.size(), before.vec);
  // And the next run merges the pair.
  const ok = await runConsolidateJob(ctx);
  assert.equal((ok.result as { counts: { merged: number } }).counts.merged, 1);
  assert.equal(annFor(ctx.db)!.size(), before.vec - 1);
  assert.deepEqual(checkInvariant(ctx.db), []);
});

test("a process killed (SIGKILL) between writing the merged memory and soft-deleting the originals leaves no partial merge", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const texts = ["alpha beta gamma", "alpha beta gamma", "delta epsilon"];
  insertMemories(
    s.sqlite,
    texts.map((content) => ({ spaceId: "personal", content })),
    texts.map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  const before = rawCounts(s.sqlite);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import { openDb } from "./server/db/index.ts";
       import { consolidate } from "./server/memory/lifecycle/consolidate.ts";
       import { TestDimEmbedder } from "./server/test/test-dim-embedder.ts";
       const db = openDb(${JSON.stringify(s.file)}).sqlite;
       await consolidate({ db, embedder: new TestDimEmbedder() }, "test-4d-a", {
         threshold: 0.92,
         merge: async (a, b) => a + " (merged)",
         beforeSoftDelete: () => process.kill(process.pid, "SIGKILL"),
       });
       console.log("not killed");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"], cwd: process.cwd() },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
    child.once("exit", (c, sig) => r([c, sig])),
  );
  assert.equal(signal, "SIGKILL", `child exited with ${code}: ${out}`);
  s.sqlite.close();
  const reopened = openDb(s.file);
  try {
    assert.deepEqual(rawCounts(reopened.sqlite), before);
    assert.equal(
      (reopened.sqlite.prepare("SELECT count(*) AS n FROM memories WHERE kind = 'consolidated'").get() as { n: number })
        .n,
      0,
    );
    assert.deepEqual(checkInvariant(reopened.sqlite), []);
    // The next run (here, in this process) completes the merge.
    const r = await consolidate({ db: reopened.sqlite, embedder: new TestDimEmbedder() }, TEST_MODEL_A, {
      threshold: 0.92,
      merge: async (a) => `${a} (merged)`,
    });
    assert.equal(r.counts.merged, 1);
    assert.deepEqual(checkInvariant(reopened.sqlite), []);
  } finally {
    reopened.sqlite.close();
  }
});

test("consolidation runs off the request path: searches are answered while merges wait on the provider", async () => {
  const { ctx } = await store();
  await add(ctx, [
    { content: ANNA_1 },
    { content: ANNA_2 },
    { content: TEA_1 },
    { content: TEA_2 },
    ...OTHERS.map((content) => ({ content })),
  ]);
  saveJobSettings(ctx.db, { consolidate: { maxPerSpace: 200 } });
  const timedSearch = async () => {
    const t0 = performance.now();
    const res = await search(ctx, { query: "car tyres winter" });
    return { res, ms: performance.now() - t0 };
  };
  const idle = await timedSearch(); // the same search with no job running: the yardstick on this machine now
  // The provider holds the merge requests until released: the job is provably waiting on it during the search.
  let release = () => {};
  chat.hold = new Promise<void>((r) => (release = r));
  try {
    let done = false;
    const job = runConsolidateJob(ctx).then((r) => ((done = true), r));
    await waitUntil(() => chat.mergeRequests().length, { what: "the job's first merge request", done: (n) => n >= 1 });
    const { res, ms } = await timedSearch();
    assert.equal(done, false, "the job is still running");
    assert.ok(res.results.some((x) => /tyres/.test(x.content)));
    assert.ok(
      ms < 250 + 3 * idle.ms,
      `search took ${ms.toFixed(0)} ms while consolidating (${idle.ms.toFixed(0)} ms with no job)`,
    );
    release();
    const run = await job;
    assert.equal((run.result as { counts: { merged: number } }).counts.merged, 2);
  } finally {
    release();
    chat.hold = null;
  }
});

test("a per-model threshold from the settings applies", async () => {
  const { ctx } = await store();
  await add(ctx, [{ content: DENTIST_1 }, { content: DENTIST_2 }]);
  const { model } = await emb.info();
  let run = await runConsolidateJob(ctx);
  assert.equal((run.result as { pairs: number }).pairs, 0);
  saveJobSettings(ctx.db, { consolidate: { thresholds: { [model]: 0.8 } } });
  run = await runConsolidateJob(ctx);
  assert.equal((run.result as { threshold: number }).threshold, 0.8);
  assert.equal((run.result as { counts: { merged: number } }).counts.merged, 1);
  assert.deepEqual(live(ctx), [fixtureMerge(DENTIST_1, DENTIST_2)]);
});

test("a pair whose merge fails a check is skipped with why and the two memories' text (Analytics names them)", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const texts = ["alpha beta gamma", "alpha beta gamma", "delta epsilon"];
  insertMemories(
    s.sqlite,
    texts.map((content) => ({ spaceId: "personal", content })),
    texts.map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  const r = await consolidate({ db: s.sqlite, embedder: new TestDimEmbedder() }, TEST_MODEL_A, {
    threshold: 0.92,
    preview: true,
    merge: async () => "As an AI I refuse.",
  });
  assert.equal(r.proposals.length, 0);
  assert.equal(r.skipped.length, 1);
  assert.match(r.skipped[0]!.reason, /refusal or meta text/);
  assert.deepEqual(r.skipped[0]!.originals, ["alpha beta gamma", "alpha beta gamma"]);
});
