/**
 * The jobs' HTTP routes and tRPC procedures, called in process on a temp store: run now answers with the
 * counts, a run in progress is a 409, an unknown job a 404, the history lists every run.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { POST as runRoute } from "../../app/api/v1/jobs/[job]/run/route";
import { GET as runsRoute } from "../../app/api/v1/jobs/runs/route";
import { createCaller } from "../api/root";
import { insertMemories } from "../memory/store";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { openTempStore } from "../test/temp-store";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../test/test-dim-embedder";
import { runExclusive } from "../core/job-runner";

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

const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
const ctx: MemoContext = { db: s.sqlite, embedder: new TestDimEmbedder() };
setAppContext(ctx);
after(() => {
  setAppContext(undefined);
  s.close();
  fs.rmSync(process.env.MEMO_DATA_DIR!, { recursive: true, force: true });
});

const post = (job: string) =>
  runRoute(new Request(`http://127.0.0.1/api/v1/jobs/${job}/run`, { method: "POST" }), {
    params: Promise.resolve({ job }),
  });

test("POST /api/v1/jobs/decay/run answers with what the run did", async () => {
  const [old] = insertMemories(
    ctx.db,
    [{ spaceId: "personal", content: "an old note", importance: 2 }],
    [hashedVector("an old note", 4)],
    TEST_MODEL_A,
  );
  ctx.db.prepare("UPDATE memories SET created_at = '2020-01-01T00:00:00.000Z' WHERE id = ?").run(old);
  const res = await post("decay");
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    counts: Record<string, number>;
    run: { status: string; job: string; result: { changes: { decayed: { id: string }[] } } };
  };
  assert.deepEqual(body.counts, { promoted: 0, decayed: 1, softDeleted: 0, purged: 0, merged: 0 });
  assert.equal(body.run.status, "ok");
  assert.deepEqual(
    body.run.result.changes.decayed.map((d) => d.id),
    [old],
  );
  // Again the same day: idempotent.
  const again = (await (await post("decay")).json()) as { counts: Record<string, number> };
  assert.equal(again.counts.decayed, 0);
});

test("a job already running is a 409; an unknown job a 404", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const running = runExclusive(ctx.db, "consolidate", async () => {
    await gate;
    return { status: "ok", result: {} };
  });
  const res = await post("consolidate");
  assert.equal(res.status, 409);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /in progress/);
  release();
  await running;
  assert.equal((await post("reindex")).status, 404);
  assert.equal((await post("nope")).status, 404);
});

test("consolidation without a chat provider answers 200 with the run skipped and why", async () => {
  const res = await post("consolidate");
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    counts: { merged: number };
    run: { status: string; result: { skippedMerging: string } };
  };
  assert.equal(body.run.status, "skipped");
  assert.match(body.run.result.skippedMerging, /nothing was merged: no chat provider/i);
});

test("GET /api/v1/jobs/runs lists the runs newest first, filtered and limited", async () => {
  const all = (await (await runsRoute(new Request("http://127.0.0.1/api/v1/jobs/runs"))).json()) as {
    runs: { job: string; status: string }[];
    reindex: { active: boolean };
  };
  assert.ok(all.runs.length >= 4);
  assert.equal(all.reindex.active, false);
  const decay = (await (
    await runsRoute(new Request("http://127.0.0.1/api/v1/jobs/runs?job=decay&limit=1"))
  ).json()) as { runs: { job: string }[] };
  assert.deepEqual(
    decay.runs.map((r) => r.job),
    ["decay"],
  );
  assert.equal((await runsRoute(new Request("http://127.0.0.1/api/v1/jobs/runs?job=bogus"))).status, 400);
  assert.equal((await runsRoute(new Request("http://127.0.0.1/api/v1/jobs/runs?limit=0"))).status, 400);
});

test("tRPC: jobs.run, jobs.runs, jobs.status and the settings", async () => {
  const caller = createCaller({ memo: ctx, headers: new Headers() });
  const r = await caller.jobs.run({ job: "decay" });
  assert.equal(r.run.job, "decay");
  assert.deepEqual(Object.keys(r.counts).sort(), ["decayed", "merged", "promoted", "purged", "softDeleted"]);
  const runs = await caller.jobs.runs({ limit: 2 });
  assert.equal(runs.length, 2);
  const st = await caller.jobs.status();
  assert.equal(st.model, TEST_MODEL_A);
  assert.equal(st.threshold, 0.92);
  assert.deepEqual(st.running, { decay: null, consolidate: null });
  const saved = await caller.jobs.saveSettings({
    decay: { idleDays: 21 },
    consolidate: { thresholds: { [TEST_MODEL_A]: 0.95 } },
  });
  assert.equal(saved.settings.decay.idleDays, 21);
  assert.equal((await caller.jobs.settings()).threshold, 0.95);
  await assert.rejects(caller.jobs.saveSettings({ decay: { time: "3am" } }), /HH:MM/);
});
