/**
 * Import jobs as rows worked by the import runner (issue 55): people take turns batch by batch (fairness),
 * a job can be cancelled keeping or forgetting what it stored, a job resumes after a restart from its cursor
 * with nothing stored twice, a person has a limit on imports in flight, a large file is read in bounded
 * memory, and a file that breaks half-way fails the job keeping what was read before.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { after, test } from "node:test";
import { createPerson } from "../../auth/people";
import { runAs, mySpace } from "../../core/acting";
import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import { setAppContext } from "../../context";
import { checkInvariant } from "../../memory/store";
import { writeExport } from "../../test/export-generator";
import { queueImportFile, tempImportPath } from "../../test/import-jobs";
import { PacedEmbedder } from "../../test/paced-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { TEST_MODEL_A, TestDimEmbedder } from "../../test/test-dim-embedder";
import { cancelImport, checkImportAllowed, getImportJob, importRunner, waitForImport } from "../import-jobs";
import { insertImportJob } from "./job-rows";
import { planImport } from "./registry";
import { ImportRunner } from "./runner";

const stores: TempStore[] = [];
after(async () => {
  await importRunner().stop();
  setAppContext(undefined);
  for (const s of stores) s.close();
});

const OWNER = { personId: "owner", admin: true };

async function setup(msPerCall: number) {
  // The process's runner finishes the last test's work on its store before the context changes.
  await importRunner().whenIdle();
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const embedder = new PacedEmbedder(new TestDimEmbedder(), msPerCall);
  const ctx: MemoContext = { db: s.sqlite, embedder };
  setAppContext(ctx);
  const bo = createPerson(s.sqlite, {
    name: "Bo",
    login: `bo${stores.length}`,
    passwordHash: "unused",
    role: "member",
  });
  return { ctx, db: s.sqlite, embedder, bo: { personId: bo.id, admin: false } };
}

const liveIn = (db: MemoContext["db"], space: string) =>
  (db.prepare("SELECT count(*) AS n FROM memories WHERE space_id = ? AND soft_deleted = 0").get(space) as { n: number })
    .n;

/** Poll until `cond` holds (or fail after `ms`). */
async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("fairness: another person's small import finishes within seconds while a big one runs", async () => {
  const { ctx, db, bo } = await setup(15);
  const bigFile = tempImportPath("big");
  writeExport(bigFile, "claude", { exchanges: 6000 });
  const big = runAs(OWNER, () => queueImportFile(ctx, "claude", bigFile));
  await until(() => (runAs(OWNER, () => getImportJob(db, big.id))?.done ?? 0) > 0, "the big import to start");
  const smallFile = tempImportPath("small");
  writeExport(smallFile, "chatgpt", { exchanges: 3, from: 1_000_000 });
  const t0 = Date.now();
  const small = await runAs(bo, async () => {
    const j = queueImportFile(ctx, "chatgpt", smallFile, mySpace("personal"));
    return waitForImport(db, j.id);
  });
  const waited = Date.now() - t0;
  assert.equal(small.status, "done");
  assert.equal(small.imported, 3);
  assert.ok(waited < 5_000, `the small import took ${waited} ms`);
  const bigNow = runAs(OWNER, () => getImportJob(db, big.id))!;
  assert.equal(bigNow.status, "running", "the big import was still running when the small one finished");
  assert.ok(bigNow.imported < 6000);
  const bigDone = await runAs(OWNER, () => waitForImport(db, big.id));
  assert.deepEqual([bigDone.status, bigDone.imported, bigDone.duplicates], ["done", 6000, 0]);
  assert.equal(bigDone.detail, "6000 conversations, 6000 exchanges");
  assert.equal(bigDone.bytesDone, bigDone.bytesTotal);
  assert.ok(!fs.existsSync(bigFile), "the received file is removed once the job is done");
  assert.deepEqual(checkInvariant(db), []);
});

test("cancel keeping what was stored: the job stops, its memories stay; forgetting: they go to the trash", async () => {
  const { ctx, db, bo } = await setup(10);
  for (const forget of [false, true]) {
    const file = tempImportPath("cancel");
    writeExport(file, "chatgpt", { exchanges: 3000, perConversation: 3, from: forget ? 10_000 : 0 });
    const space = forget ? "forget" : "keep";
    const job = runAs(OWNER, () => queueImportFile(ctx, "chatgpt", file, space));
    await until(() => (runAs(OWNER, () => getImportJob(db, job.id))?.imported ?? 0) >= 64, "some memories stored");
    // Another person cannot cancel it (it reads as missing to them).
    assert.throws(
      () => runAs(bo, () => cancelImport(db, job.id, forget)),
      (e) => e instanceof ServiceError && e.status === 404,
    );
    const r = runAs(OWNER, () => cancelImport(db, job.id, forget));
    assert.equal(r.job.status, "cancelled");
    assert.equal(r.job.cancel, forget ? "forget" : "keep");
    await importRunner().whenIdle();
    const after = runAs(OWNER, () => getImportJob(db, job.id))!;
    assert.equal(after.status, "cancelled");
    assert.ok(after.imported < 3000, "stopped before the end");
    assert.ok(!fs.existsSync(file), "its file is removed");
    if (forget) {
      assert.equal(r.forgotten, after.imported, "every memory it stored is forgotten");
      assert.equal(liveIn(db, space), 0);
    } else {
      assert.equal(r.forgotten, 0);
      assert.equal(liveIn(db, space), after.imported, "what it stored stays, and nothing more is written");
    }
    // A finished job cannot be cancelled.
    assert.throws(
      () => runAs(OWNER, () => cancelImport(db, job.id, false)),
      (e) => e instanceof ServiceError && e.status === 409,
    );
  }
  // An admin can cancel another person's import.
  const file = tempImportPath("bo");
  writeExport(file, "claude", { exchanges: 2000, from: 50_000 });
  const boJob = runAs(bo, () => queueImportFile(ctx, "claude", file, mySpace("personal")));
  const byAdmin = runAs(OWNER, () => cancelImport(db, boJob.id, false));
  assert.equal(byAdmin.job.status, "cancelled");
  assert.deepEqual(checkInvariant(db), []);
});

test("a restart resumes a job from its cursor, mid-conversation: nothing stored twice, nothing lost", async () => {
  const { ctx, db } = await setup(0);
  const file = tempImportPath("resume");
  // 5 exchanges a conversation and batches of 16: batches end inside conversations.
  writeExport(file, "chatgpt", { exchanges: 1000, perConversation: 5, from: 200_000 });
  const id = "3f0e2a52-0000-4000-8000-000000000001";
  insertImportJob(db, {
    id,
    personId: "owner",
    admin: true,
    kind: "chatgpt",
    label: "conversations.json",
    space: "resume",
    file,
    bytesTotal: fs.statSync(file).size,
    queuedAt: new Date().toISOString(),
  });
  const planWhole = async () => assert.fail("a ChatGPT file is streamed");
  const first = new ImportRunner({ context: () => ctx, planWhole, batchSize: 16 });
  first.wake();
  await until(() => (runAs(OWNER, () => getImportJob(db, id))?.done ?? 0) >= 300, "part of the file");
  await first.stop(); // the process ends: the job stays running in the store
  const mid = db
    .prepare("SELECT status, next_item AS item, next_group AS grp FROM import_jobs WHERE id = ?")
    .get(id) as {
    status: string;
    item: number;
    grp: number;
  };
  assert.equal(mid.status, "running");
  assert.ok(liveIn(db, "resume") < 1000);
  const second = new ImportRunner({ context: () => ctx, planWhole, batchSize: 16 });
  second.wake();
  await second.whenIdle();
  const done = runAs(OWNER, () => getImportJob(db, id))!;
  assert.deepEqual([done.status, done.imported, done.duplicates], ["done", 1000, 0]);
  assert.equal(done.detail, "200 conversations, 1000 exchanges");
  assert.equal(liveIn(db, "resume"), 1000);
  const distinct = db
    .prepare("SELECT count(DISTINCT content_hash) AS n FROM memories WHERE space_id = 'resume'")
    .get() as {
    n: number;
  };
  assert.equal(distinct.n, 1000, "no exchange stored twice");
  const listed = db.prepare("SELECT count(*) AS n FROM import_job_memories WHERE job_id = ?").get(id) as { n: number };
  assert.equal(listed.n, 1000, "the job lists every memory it wrote (what learning from it reads)");
  assert.deepEqual(checkInvariant(db), []);
  // A Memo export is planned whole, and resumes from its cursor too.
  assert.ok(planImport);
});

test("a person's imports in flight are limited: past the limit a clear 429; another person is not held by it", async () => {
  const { ctx, db, bo } = await setup(20);
  process.env.MEMO_IMPORT_MAX_IN_FLIGHT = "1";
  try {
    const file = tempImportPath("limit");
    writeExport(file, "claude", { exchanges: 3000, from: 300_000 });
    const job = runAs(OWNER, () => queueImportFile(ctx, "claude", file, "limit"));
    assert.throws(
      () => runAs(OWNER, () => checkImportAllowed(db)),
      (e) =>
        e instanceof ServiceError &&
        e.status === 429 &&
        /you have 1 import queued or running \(at most 1 at once, MEMO_IMPORT_MAX_IN_FLIGHT\)/.test(e.message),
    );
    const second = tempImportPath("limit2");
    writeExport(second, "claude", { exchanges: 1, from: 400_000 });
    assert.throws(() => runAs(OWNER, () => queueImportFile(ctx, "claude", second, "limit")), /429|queued or running/);
    runAs(bo, () => checkImportAllowed(db));
    runAs(OWNER, () => cancelImport(db, job.id, true));
    runAs(OWNER, () => checkImportAllowed(db)); // allowed again once it ended
  } finally {
    delete process.env.MEMO_IMPORT_MAX_IN_FLIGHT;
  }
});

test("a large file is read in bounded memory: the heap held while importing stays far below what parsing it whole takes", async () => {
  const { ctx, db } = await setup(0);
  const file = tempImportPath("large");
  // 150 conversations, each with an attachment list of 7,000 small objects (left out by the importer).
  const size = writeExport(file, "claude", { exchanges: 150, padding: 7_000, from: 500_000 });
  assert.ok(size > 16 * 1024 * 1024, `the file is ${size} bytes`);
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  const held = () => (gc(), process.memoryUsage().heapUsed);
  const base = held();
  // What holding the parsed file takes (what the import did before: JSON.parse of the whole body).
  let whole: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
  const wholeHeld = held() - base;
  whole = null;
  void whole;
  const base2 = held();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, held() - base2)), 200);
  try {
    const job = runAs(OWNER, () => queueImportFile(ctx, "claude", file, "large"));
    const done = await runAs(OWNER, () => waitForImport(db, job.id));
    assert.deepEqual([done.status, done.imported], ["done", 150]);
  } finally {
    clearInterval(sampler);
  }
  assert.ok(wholeHeld > 64 * 1024 * 1024, `parsing the file whole holds ${wholeHeld} bytes`);
  assert.ok(peak < 32 * 1024 * 1024, `the import held at most ${peak} bytes more (parsing it whole: ${wholeHeld})`);
});

test("a file that breaks half-way fails the job with where, keeping what was read before; not a list is a 400", async () => {
  const { ctx, db } = await setup(0);
  const file = tempImportPath("broken");
  writeExport(file, "claude", { exchanges: 3000, from: 600_000 });
  fs.appendFileSync(file, "garbage"); // after the closing bracket
  const text = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, `${text.slice(0, Math.floor(text.length * 0.7))}{"uuid": oops}]`);
  const job = runAs(OWNER, () => queueImportFile(ctx, "claude", file, "broken"));
  const done = await runAs(OWNER, () => waitForImport(db, job.id));
  assert.equal(done.status, "failed");
  assert.equal(done.errorStatus, 400);
  assert.match(
    done.error!,
    /the file is not valid JSON after conversation \d+ .*; the \d+ memories read before it are kept/,
  );
  assert.ok(done.imported > 0 && liveIn(db, "broken") === done.imported);
  const obj = tempImportPath("object");
  fs.writeFileSync(obj, JSON.stringify({ conversations: [] }));
  const notList = await runAs(OWNER, () => waitForImport(db, queueImportFile(ctx, "claude", obj, "broken").id));
  assert.match(notList.error!, /must be a JSON array of conversations/);
});
