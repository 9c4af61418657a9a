import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

/**
 * Reliability over real HTTP through Next (issue 8): a client that disconnects mid-reply cancels the
 * provider request — Next must pass the disconnect on to the route (server/chat/disconnect.test.ts checks
 * the routes themselves) — and `npm run load -- --short` holds: 50 concurrent chat turns, searches, an
 * ingestion and a long write on its own Memo (started from this run's build), with no failed request, no
 * SQLITE_BUSY, a consistent store and no provider key in the log.
 */
const fixture = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;

type Streams = { started: number; completed: number; abandoned: number; lastAbandonedAt: string | null };
const streams = async (): Promise<Streams> => (await (await fetch(`${fixture}/__fixture/streams`)).json()) as Streams;

test.describe("reliability", () => {
  for (const route of ["/api/chat", "/v1/chat/completions"] as const) {
    test(`a client that disconnects mid-reply from ${route} stops the provider request`, async ({ baseURL }) => {
      const before = await streams();
      const ac = new AbortController();
      const message = `[fixture:slow] tell me the long story of the lighthouse ${Date.now()}`;
      const body =
        route === "/api/chat"
          ? { message, space: "reliability" }
          : { model: "memo", stream: true, messages: [{ role: "user", content: message }] };
      const res = await fetch(`${baseURL}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: baseURL!, "x-memo-space": "reliability" },
        body: JSON.stringify(body),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let seen = "";
      while (!/"type":"delta"|"content":"Fixture/.test(seen)) {
        const { done, value } = await reader.read();
        expect(done).toBe(false);
        seen += new TextDecoder().decode(value);
      }
      const disconnectedAt = Date.now();
      ac.abort(); // the browser tab closes
      await expect.poll(async () => (await streams()).abandoned, { timeout: 5_000 }).toBe(before.abandoned + 1);
      const after = await streams();
      expect(after.completed).toBe(before.completed);
      // [fixture:slow] sends a piece every 300 ms for several seconds: it stopped right after the disconnect
      expect(Date.parse(after.lastAbandonedAt!) - disconnectedAt).toBeLessThan(1_500);
    });
  }

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
});
