/**
 * The background-job registry (job-kinds.ts) and what reads it: "Run now" runs the job asked for (never another
 * job's runner), every job has an entry and every scheduled job a section of the job settings whose saved values
 * are read back, and the scheduler reports a next run for each scheduled job.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { JOB_NAMES } from "../core/job-runner";
import type { MemoContext } from "../core/context";
import { openTempStore } from "../test/temp-store";
import { TEST_MODEL_A, TestDimEmbedder } from "../test/test-dim-embedder";
import { countsLine, JOB_KINDS, RUNNABLE_JOBS, SCHEDULED_JOBS } from "./job-kinds";
import { JOB_RUNNERS, runJobNow } from "./jobs";
import { JobScheduler } from "./scheduler";
import { z } from "zod";
import { loadSetting } from "../core/settings-load";
import { writeSetting } from "../core/settings-store";
import { DEFAULT_JOB_SETTINGS, jobSettingsSchema, loadJobSettings, saveJobSettings } from "./settings";

const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
const ctx: MemoContext = { db: s.sqlite, embedder: new TestDimEmbedder() };
after(() => s.close());

test("every job has an entry; every runnable or scheduled job a runner; Run now runs the job asked for", async () => {
  assert.deepEqual(Object.keys(JOB_KINDS).sort(), [...JOB_NAMES].sort());
  for (const job of new Set([...RUNNABLE_JOBS, ...SCHEDULED_JOBS])) assert.equal(typeof JOB_RUNNERS[job], "function");
  for (const job of RUNNABLE_JOBS) {
    const run = await runJobNow(ctx, job, { trigger: "manual", merge: null });
    assert.equal(run.job, job, `Run now for ${job} ran ${run.job}`);
    assert.notEqual(run.status, "failed", `${job}: ${run.error}`);
  }
  // The re-index is started by the embedding-model check, never on request.
  assert.ok(!(RUNNABLE_JOBS as string[]).includes("reindex"));
});

test("each scheduled job's settings section is one the settings schema has, with `enabled` and `time`", () => {
  for (const job of SCHEDULED_JOBS) {
    const { section } = JOB_KINDS[job].startedBy;
    const fields = Object.keys(jobSettingsSchema.shape[section].shape);
    assert.ok(fields.includes("enabled") && fields.includes("time"), `${job}: ${section} has ${fields}`);
  }
});

test("the household merge keeps the saved values of every section, one the defaults gained included", () => {
  // A section added beside the existing ones (as a new job's would be) keeps what was saved in it: the one
  // loader (loadSetting, core/settings-load.ts) walks every section of the schema, field by field.
  const schema = jobSettingsSchema.extend({ digest: z.object({ enabled: z.boolean(), time: z.string() }) });
  const base = { ...structuredClone(DEFAULT_JOB_SETTINGS), digest: { enabled: true, time: "06:00" } };
  const saved = { decay: { time: "04:00" }, consolidate: { thresholds: { m: 0.9 } }, digest: { enabled: false } };
  writeSetting(s.sqlite, "jobs", saved);
  const merged = loadSetting(s.sqlite, "jobs", schema, base);
  assert.deepEqual(merged.digest, { enabled: false, time: "06:00" });
  assert.equal(merged.decay.time, "04:00");
  assert.equal(merged.decay.idleDays, DEFAULT_JOB_SETTINGS.decay.idleDays);
  assert.equal(merged.consolidate.thresholds.m, 0.9);
  assert.deepEqual(merged.lifetime, DEFAULT_JOB_SETTINGS.lifetime);
  // A section saved as something else than a record is the default's.
  writeSetting(s.sqlite, "jobs", { decay: "x", digest: null });
  assert.deepEqual(loadSetting(s.sqlite, "jobs", schema, base).decay, DEFAULT_JOB_SETTINGS.decay);
  // Through the store: each scheduled job's section, saved, is read back.
  for (const job of SCHEDULED_JOBS) {
    const { section } = JOB_KINDS[job].startedBy;
    saveJobSettings(s.sqlite, { [section]: { enabled: false, time: "05:45" } });
    const read = loadJobSettings(s.sqlite)[section];
    assert.deepEqual([read.enabled, read.time], [false, "05:45"], job);
  }
  saveJobSettings(s.sqlite, {
    decay: { enabled: true, time: "03:00" },
    consolidate: { enabled: true, time: "after-decay" },
  });
});

test("the scheduler reports a next run for every scheduled job; each run's counts are named by its job", async () => {
  const sched = new JobScheduler({ context: () => ctx });
  sched.start();
  assert.deepEqual(Object.keys(sched.nextRuns()).sort(), [...SCHEDULED_JOBS].sort());
  for (const job of SCHEDULED_JOBS) assert.ok(sched.nextRuns()[job], `${job} is scheduled by default`);
  await sched.stop();
  assert.equal(
    countsLine("decay", { promoted: 2, decayed: 1 }),
    "2 promoted by recall · 1 decayed while idle · 0 soft-deleted · 0 purged",
  );
  assert.equal(countsLine("consolidate", { merged: 3, softDeleted: 6 }), "3 merged · 6 soft-deleted");
  assert.equal(countsLine("reindex", { embedded: 40 }), "40 re-embedded");
  assert.equal(countsLine("no such job", { merged: 1 }), "");
});
