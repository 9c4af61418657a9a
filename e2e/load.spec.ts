import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

/**
 * Reliability under load over real HTTP through Next (issue 8): `npm run load -- --short` holds — 50 concurrent
 * chat turns, searches, an ingestion and a long write on its own Memo (started from this run's build, with its
 * own chat TEST DOUBLE), with no failed request, no SQLITE_BUSY, a consistent store and no provider key in the
 * log. It shares nothing with the e2e app: it runs in the "own Memo" project, beside the app's specs
 * (playwright.config.ts).
 */
test("npm run load -- --short: 50 concurrent chat turns, searches, an ingestion and a long write, nothing failed", async ({}, testInfo) => {
  test.setTimeout(240_000);
  const out = path.join(os.tmpdir(), `memo-load-${process.pid}-${Date.now()}.json`);
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/load.ts", "--short", "--app", "next", "--json", "--out", out],
    {
      env: { ...process.env, MEMO_NEXT_DIST_DIR: process.env.MEMO_E2E_DIST_DIR },
      encoding: "utf8",
      timeout: 220_000,
    },
  );
  expect(fs.existsSync(out), `the load script wrote its report\n${r.stderr}\n${r.stdout}`.slice(-4000)).toBe(true);
  const report = JSON.parse(fs.readFileSync(out, "utf8")) as {
    ok: boolean;
    failedRequests: number;
    sqliteBusy: number;
    secretInLogs: boolean;
    chat: { turns: number; failed: number };
    search: { requests: number; failed: number };
    ingestion: { status: string };
    longWrite: { status: number };
    store: { consistent: boolean };
    shutdown: { code: number };
    errors: string[];
  };
  fs.rmSync(out, { force: true });
  await testInfo.attach("load-report.json", {
    body: JSON.stringify(report, null, 2),
    contentType: "application/json",
  });
  expect(report.errors).toEqual([]);
  expect(report.failedRequests).toBe(0);
  expect(report.sqliteBusy).toBe(0);
  expect(report.secretInLogs).toBe(false);
  expect(report.chat.turns).toBeGreaterThanOrEqual(50);
  expect(report.search.requests).toBeGreaterThan(0);
  expect(report.ingestion.status).toBe("done");
  expect(report.longWrite.status).toBe(201);
  expect(report.store.consistent).toBe(true);
  expect(report.shutdown.code).toBe(0);
  expect(report.ok).toBe(true);
  expect(r.status).toBe(0);
});
