/**
 * ChildServer (the supervisor under the embedding server and the local chat server) around a real child
 * process, the TEST DOUBLE server/test/tiny-child-server.ts started through server/ops/child-main.ts:
 * start → ready, SIGKILL → restart with a doubling backoff, a hang (SIGSTOP) → killed and replaced, a
 * caller's transport error → not handed out until a check passes, stop(); and the start faults: a crash
 * loop, a launch that throws, a child that never becomes healthy or never listens.
 *
 *   node --import tsx --test server/ops/child-server.test.ts
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ChildServer, type ChildLaunch, type ChildServerOptions } from "./child-server";

const DOUBLE = path.join(process.cwd(), "server", "test", "tiny-child-server.ts");
const servers: ChildServer[] = [];
const pids = new Set<number>();

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone, as it should be */
    }
  }
});

function double(...args: string[]): ChildLaunch {
  return {
    command: process.execPath,
    args: ["--import", "tsx", DOUBLE, "--port", "0", "--watch-stdin", ...args],
    stdin: "pipe",
    baseUrl: null,
  };
}

function server(opts: Partial<ChildServerOptions> = {}): { s: ChildServer; logs: string[] } {
  const logs: string[] = [];
  const s = new ChildServer({
    name: "tiny server",
    launch: () => double(),
    startMessage: () => "serving nothing in particular",
    readyLabel: () => "tiny-child",
    healthIntervalMs: 300,
    healthTimeoutMs: 300,
    maxHealthFailures: 2,
    backoffMinMs: 100,
    backoffMaxMs: 400,
    startTimeoutMs: 30_000,
    maxStartFailures: 3,
    log: (m) => logs.push(m),
    ...opts,
  });
  servers.push(s);
  return { s, logs };
}

/** Whether the process exists (a direct child is reaped before its 'exit' event, so no zombie lingers). */
function alive(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch {
    return false;
  }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  for (const deadline = Date.now() + ms; !cond(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}

async function ready(s: ChildServer): Promise<string> {
  const url = await s.waitHealthy(60_000);
  assert.ok(url, `ready (${s.state}: ${s.lastError})`);
  return url;
}

async function whoami(url: string): Promise<number> {
  const res = await fetch(`${url}/whoami`, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200);
  return ((await res.json()) as { pid: number }).pid;
}

test("starts the child, learns its URL and engine from its lines, and logs it ready", async () => {
  const { s, logs } = server();
  assert.equal(s.state, "stopped");
  s.start();
  assert.equal(s.state, "starting");
  assert.ok(s.pid, "a launch given directly is spawned before start() returns (the app reports the pid at once)");
  const url = await ready(s);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(s.engine, "TEST DOUBLE tiny-child-server");
  assert.equal(s.restarts, 0);
  assert.equal(s.lastError, null);
  assert.ok(s.pid && alive(s.pid));
  pids.add(s.pid);
  assert.equal(await whoami(url), s.pid, "the URL is the child's");
  assert.deepEqual(logs, [
    "serving nothing in particular",
    `ready: tiny-child via TEST DOUBLE tiny-child-server at ${url}`,
  ]);
  s.start(); // already running: nothing happens
  assert.equal(logs.length, 2);
  await s.stop();
});

test("SIGKILL: not handed out while down, restarted with a backoff that doubles up to its cap", async () => {
  const { s, logs } = server();
  s.start();
  await ready(s);
  for (let i = 1; i <= 3; i++) {
    const pid = s.pid!;
    pids.add(pid);
    process.kill(pid, "SIGKILL");
    await waitFor(() => s.state !== "ready", 5_000, "the exit to be noticed");
    assert.equal(s.healthy(), false);
    assert.equal(s.baseUrl, null, "no URL of a dead child");
    assert.equal(await s.waitHealthy(1), null, "a caller is not given a dead URL");
    assert.match(s.lastError ?? "", /^tiny server exited \(SIGKILL\)$/);
    const url = await ready(s);
    assert.equal(s.restarts, i);
    assert.ok(s.pid !== pid && alive(s.pid!));
    assert.equal(await whoami(url), s.pid);
  }
  const delays = logs
    .filter((l) => l.includes("restarting in"))
    .map((l) => Number(/restarting in (\d+) ms/.exec(l)![1]));
  assert.deepEqual(delays, [100, 200, 400], "100 ms, doubled, capped at 400 ms");
  assert.equal(logs.filter((l) => l.startsWith("ready: ")).length, 4);
  await s.stop();
});

test("a hung child (SIGSTOP) fails its health checks, is killed and replaced", async () => {
  const { s, logs } = server();
  s.start();
  await ready(s);
  const pid = s.pid!;
  pids.add(pid);
  process.kill(pid, "SIGSTOP");
  await waitFor(() => s.restarts > 0 && s.state === "ready", 30_000, "the hung child to be replaced");
  assert.match(
    s.lastError ?? "",
    /tiny server exited \(SIGKILL\) after the supervisor killed it: tiny server stopped answering \/health \(2 checks\)/,
  );
  assert.ok(logs.includes("tiny server stopped answering /health (2 checks); killing it"));
  assert.equal(alive(pid), false, "the hung process was killed, not left behind");
  assert.equal(await whoami(await ready(s)), s.pid);
  await s.stop();
});

test("a caller's transport error: the URL is held back until a health check passes again", async () => {
  const { s } = server({ healthIntervalMs: 60_000 });
  s.start();
  const url = await ready(s);
  s.reportFailure();
  assert.equal(s.healthy(), false, "suspect at once");
  assert.equal(await s.waitHealthy(30_000), url, "the check it started passed");
  assert.equal(s.healthy(), true);
  assert.equal(s.restarts, 0, "a passing check is no reason to restart");
  await s.stop();
});

test("stop() ends the child (SIGTERM) and nothing restarts it; start() brings it back", async () => {
  const { s, logs } = server();
  s.start();
  await ready(s);
  const pid = s.pid!;
  pids.add(pid);
  await s.stop();
  assert.equal(s.state, "stopped");
  assert.equal(s.pid, null);
  assert.equal(alive(pid), false);
  await sleep(500);
  assert.equal(s.state, "stopped");
  assert.equal(s.pid, null);
  assert.ok(!logs.some((l) => l.includes("restarting")), "a stop is not a crash");
  s.start();
  await ready(s);
  assert.ok(s.pid && s.pid !== pid);
  await s.stop();
});

test("a crash loop ends in state 'failed' with the child's own words, after backoffs that double", async () => {
  const { s, logs } = server({ launch: () => double("--fault", "load-error"), backoffMinMs: 20, backoffMaxMs: 1000 });
  s.start();
  await waitFor(() => s.state === "failed", 60_000, `state failed (${s.state}: ${s.lastError})`);
  assert.match(
    s.lastError ?? "",
    /^tiny server exited \(code 1\): tiny-child-server: no model here \(--fault load-error\)$/,
  );
  assert.deepEqual(
    logs.filter((l) => / ms$| in a row$/.test(l)).map((l) => l.replace(/^.*; /, "")),
    ["restarting in 20 ms", "restarting in 40 ms", "giving up after 3 failed starts in a row"],
  );
  assert.equal(s.pid, null);
  assert.equal(s.baseUrl, null);
  assert.ok(s.failedAt > 0);
  assert.equal(await s.waitHealthy(60_000), null, "failed: no waiting");
  await s.stop();
});

test("a launch that throws fails the start at once, with its message, and spawns nothing", async () => {
  let launches = 0;
  const { s, logs } = server({
    launch: () => {
      launches++;
      throw new Error("the model file /nowhere.gguf does not exist");
    },
  });
  s.start();
  await waitFor(() => s.state === "failed", 5_000, "state failed");
  assert.equal(s.lastError, "the model file /nowhere.gguf does not exist");
  assert.equal(launches, 1, "not retried on its own");
  assert.equal(s.pid, null);
  assert.deepEqual(logs, ["serving nothing in particular"]);
});

test("a child that never becomes healthy, or never listens, is killed at the start timeout", async () => {
  // "loading" listens, then answers 503: its deadline must leave time to listen first, which a busy machine can
  // take over 1.5 s for (a parallel run at load 25 saw "did not start listening" instead); "silent" never listens.
  for (const [fault, startTimeoutMs, reason] of [
    ["loading", 6000, /did not become healthy within 6000 ms/],
    ["silent", 1500, /did not start listening within 1500 ms/],
  ] as const) {
    const { s } = server({ launch: () => double("--fault", fault), startTimeoutMs, maxStartFailures: 1 });
    s.start();
    await waitFor(() => s.pid !== null, 10_000, "a child");
    const pid = s.pid!;
    pids.add(pid);
    await waitFor(() => s.state === "failed", 60_000, `${fault}: state failed (${s.state}: ${s.lastError})`);
    assert.match(
      s.lastError ?? "",
      new RegExp(`^tiny server exited \\(SIGKILL\\) after the supervisor killed it: tiny server ${reason.source}$`),
    );
    assert.equal(alive(pid), false, `${fault}: killed`);
  }
});
