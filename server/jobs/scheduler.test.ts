/**
 * The scheduler and the job lease: two schedulers on two connections to one store file (as two server
 * processes would be) run each scheduled slot once; an overlapping run is refused; a lease left by a dead
 * process expires and its `running` row is marked interrupted; settings drive the schedule.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import os from "node:os";
import { after, test } from "node:test";
import { openDb } from "../db";
import { setMeta } from "../core/meta";
import type { MemoContext } from "../core/context";
import { openTempStore, type TempStore } from "../test/temp-store";
import { waitUntil } from "../test/wait-until";
import { hashedVector, TEST_MODEL_A, TestDimEmbedder } from "../test/test-dim-embedder";
import { insertMemories } from "../memory/store";
import { runConsolidateJob, runDecayJob } from "./jobs";
import { leaseHolder, tryTakeLease } from "../core/lease";
import { listRuns, runExclusive, type RunRecord } from "../core/job-runner";
import { JobScheduler, slotOf } from "./scheduler";
import { dailyCron, DEFAULT_JOB_SETTINGS, loadJobSettings, saveJobSettings } from "./settings";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

function twoProcesses(): { a: MemoContext; b: MemoContext; close(): void } {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const other = openDb(s.file).sqlite;
  const embedder = new TestDimEmbedder();
  return { a: { db: s.sqlite, embedder }, b: { db: other, embedder }, close: () => other.close() };
}

test("two schedulers sharing a store run each scheduled slot once", async () => {
  const p = twoProcesses();
  saveJobSettings(p.a.db, { consolidate: { enabled: false } });
  const seen: RunRecord[] = [];
  const mk = (ctx: MemoContext) =>
    new JobScheduler({ context: () => ctx, expressions: { decay: "* * * * * *" }, onRun: (r) => seen.push(r) });
  const s1 = mk(p.a);
  const s2 = mk(p.b);
  s1.start();
  s2.start();
  // Until two slots each have both schedulers' records (a tick a second; a busy machine only delays them).
  await waitUntil(() => listRuns(p.a.db, { job: "decay", limit: 100 }), {
    what: "two slots that both schedulers tried",
    done: (runs) => {
      const perSlot = new Map<string, number>();
      for (const r of runs) perSlot.set(String(r.result?.slot), (perSlot.get(String(r.result?.slot)) ?? 0) + 1);
      return [...perSlot.values()].filter((n) => n >= 2).length >= 2;
    },
    show: (runs) => runs.map((r) => [r.result?.slot, r.status]),
  });
  await Promise.all([s1.stop(), s2.stop()]);
  p.close();
  const runs = listRuns(p.a.db, { job: "decay", limit: 100 });
  const slots = new Map<string, RunRecord[]>();
  for (const r of runs) {
    const slot = r.result!.slot as string;
    slots.set(slot, [...(slots.get(slot) ?? []), r]);
  }
  assert.ok(slots.size >= 2, `ticks seen: ${slots.size}`);
  for (const [slot, rs] of slots) {
    assert.equal(
      rs.filter((r) => r.status === "ok").length,
      1,
      `slot ${slot} ran once: ${JSON.stringify(rs.map((r) => r.status))}`,
    );
    // The other scheduler's attempt is on record as skipped, with the reason.
    for (const r of rs.filter((x) => x.status !== "ok")) {
      assert.equal(r.status, "skipped");
      assert.match(r.result!.reason as string, /already ran|in progress/);
    }
  }
  assert.ok(seen.length >= 4, "both schedulers fired");
});

test("an overlapping run is refused while the first holds the lease", async () => {
  const p = twoProcesses();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = runExclusive(p.a.db, "consolidate", async () => {
    await gate;
    return { status: "ok", result: { counts: {} } };
  });
  await new Promise((r) => setImmediate(r));
  assert.match(leaseHolder(p.b.db, "consolidate")!.owner, new RegExp(`:${process.pid}$`));
  const second = await runConsolidateJob(p.b, { merge: null });
  assert.equal(second.status, "skipped");
  assert.match(second.refused!, /another consolidate run is in progress/);
  release();
  assert.equal((await first).status, "ok");
  assert.equal(leaseHolder(p.a.db, "consolidate"), null, "released when done");
  const third = await runConsolidateJob(p.b, { merge: null });
  assert.equal(third.refused, undefined);
  p.close();
  // Newest first: the third (no merge function: skipped merging), the refused one, the first.
  const runs = listRuns(p.a.db, { job: "consolidate" });
  assert.deepEqual(
    runs.map((r) => r.status),
    ["skipped", "skipped", "ok"],
  );
  assert.match(runs[1]!.result!.reason as string, /in progress/);
  assert.match(runs[0]!.result!.skippedMerging as string, /no merge function/);
});

test("a lease left by a dead process expires; its run is marked interrupted", async () => {
  const p = twoProcesses();
  const lease = tryTakeLease(p.a.db, "decay", 60_000)!;
  assert.ok(lease);
  assert.equal(tryTakeLease(p.b.db, "decay", 60_000), null, "held");
  // The holder "dies": its lease is left behind with a running row; make the lease expire.
  p.a.db
    .prepare("INSERT INTO job_runs (job, started_at, status) VALUES ('decay', ?, 'running')")
    .run(new Date().toISOString());
  setMeta(p.a.db, "lease:decay", JSON.stringify({ ...lease, expiresAt: Date.now() - 1 }));
  const run = await runDecayJob(p.b);
  assert.equal(run.status, "ok");
  const [latest, dead] = listRuns(p.a.db, { job: "decay" });
  assert.equal(latest!.id, run.id);
  assert.equal(dead!.status, "failed");
  assert.match(dead!.error!, /interrupted/);
  p.close();
});

test("a lease whose process on this host is gone is free at once (a crash does not block 'Run now' until it expires)", async () => {
  const p = twoProcesses();
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  const deadPid = Number(gone.stdout);
  const lease = {
    job: "consolidate",
    token: "t",
    owner: `${os.hostname()}:${deadPid}`,
    expiresAt: Date.now() + 5 * 60_000,
  };
  setMeta(p.a.db, "lease:consolidate", JSON.stringify(lease));
  assert.equal(leaseHolder(p.b.db, "consolidate"), null, "its holder died");
  const run = await runConsolidateJob(p.b, { merge: null });
  assert.equal(run.refused, undefined);
  // a live holder (the test runner's parent process) and a holder on another host still hold it
  for (const owner of [`${os.hostname()}:${process.ppid}`, `another-host:${deadPid}`]) {
    setMeta(p.a.db, "lease:consolidate", JSON.stringify({ ...lease, owner }));
    assert.equal(leaseHolder(p.b.db, "consolidate")?.owner, owner);
    assert.equal(tryTakeLease(p.b.db, "consolidate", 1000), null);
  }
  p.close();
});

test("a failing job is recorded as failed with its error, and the lease is released", async () => {
  const p = twoProcesses();
  const run = await runExclusive(p.a.db, "decay", async () => {
    throw new Error("disk on fire");
  });
  assert.equal(run.status, "failed");
  assert.equal(run.error, "disk on fire");
  assert.ok(run.finishedAt && run.durationMs !== null);
  assert.equal(leaseHolder(p.a.db, "decay"), null);
  p.close();
});

test("a decay tick runs consolidation right after it (default), each once per slot", async () => {
  const p = twoProcesses();
  const texts = ["alpha beta gamma", "alpha beta gamma", "delta"];
  insertMemories(
    p.a.db,
    texts.map((content) => ({ spaceId: "personal", content })),
    texts.map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  const merge = async (a: string) => `${a} (merged)`;
  const s1 = new JobScheduler({ context: () => p.a, runOptions: { merge } });
  const s2 = new JobScheduler({ context: () => p.b, runOptions: { merge } });
  const tick = new Date("2030-01-01T03:00:00.000Z");
  const [r1, r2] = await Promise.all([s1.tick("decay", tick), s2.tick("decay", tick)]);
  const all = [...r1!, ...r2!];
  assert.equal(all.filter((r) => r.job === "decay" && r.status === "ok").length, 1);
  assert.equal(all.filter((r) => r.job === "consolidate" && r.status === "ok").length, 1);
  const cons = all.find((r) => r.job === "consolidate" && r.status === "ok")!;
  assert.equal((cons.result!.counts as { merged: number }).merged, 1);
  assert.equal(cons.result!.slot, `after-decay ${slotOf(tick)}`);
  p.close();
});

test("schedules come from the settings; saving them reschedules", async () => {
  const p = twoProcesses();
  assert.deepEqual(loadJobSettings(p.a.db), DEFAULT_JOB_SETTINGS);
  assert.equal(dailyCron("03:00"), "0 0 3 * * *");
  const s = new JobScheduler({ context: () => p.a });
  s.start();
  const next = s.nextRuns();
  const d = new Date(next.decay!);
  assert.deepEqual([d.getHours(), d.getMinutes()], [3, 0], "decay at 03:00 local time");
  assert.equal(next.consolidate, next.decay, "consolidation right after decay");
  saveJobSettings(p.a.db, { decay: { time: "04:30" }, consolidate: { time: "05:15" } });
  s.reload();
  const n2 = s.nextRuns();
  assert.deepEqual([new Date(n2.decay!).getHours(), new Date(n2.decay!).getMinutes()], [4, 30]);
  assert.deepEqual([new Date(n2.consolidate!).getHours(), new Date(n2.consolidate!).getMinutes()], [5, 15]);
  saveJobSettings(p.a.db, { decay: { enabled: false }, consolidate: { time: "after-decay" } });
  s.reload();
  const n3 = s.nextRuns();
  assert.equal(n3.decay, null);
  assert.deepEqual(
    [new Date(n3.consolidate!).getHours(), new Date(n3.consolidate!).getMinutes()],
    [4, 30],
    "after a disabled decay: at its time",
  );
  saveJobSettings(p.a.db, { decay: { enabled: false }, consolidate: { enabled: false } });
  s.reload();
  assert.deepEqual(s.nextRuns(), { decay: null, consolidate: null });
  assert.throws(() => saveJobSettings(p.a.db, { decay: { time: "25:00" } }), /HH:MM/);
  assert.throws(() => saveJobSettings(p.a.db, { decay: { retentionDays: 0 } }));
  await s.stop();
  p.close();
});
