/**
 * EmbedderSupervisor with the bundled USE-lite engine: start, crash → restart, hang → kill → restart,
 * ensureHealthy while down, stop; and main.ts following its parent (stdin closed).
 *
 *   node --import tsx --test server/embedder/supervisor.test.ts
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, test } from "node:test";
import { EmbedderSupervisor, EmbedderUnavailableError } from "./supervisor";

const MAIN = path.join(process.cwd(), "server", "embedder", "main.ts");

/** True while the process exists and is not a zombie (an orphan's zombie may linger in a container). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function embed(base: string, input: string[]): Promise<number[][]> {
  const res = await fetch(`${base}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { data: { index: number; embedding: number[] }[] };
  return body.data.sort((a, b) => a.index - b.index).map((d) => d.embedding);
}

// hermetic: a fixed port from the environment would make restarts race for it
delete process.env.MEMO_EMBED_PORT;

const logs: string[] = [];
const sup = new EmbedderSupervisor({
  choice: { kind: "use-lite", reason: "test" },
  healthIntervalMs: 300,
  healthTimeoutMs: 300,
  maxHealthFailures: 2,
  backoffMinMs: 100,
  backoffMaxMs: 400,
  log: (m) => logs.push(m),
});
const children = new Set<number>();

after(async () => {
  await sup.stop();
  for (const pid of children) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

test("starts the bundled USE-lite server and serves 512-d vectors", async () => {
  sup.start();
  const base = await sup.ensureHealthy(30_000);
  const st = sup.status();
  assert.equal(st.status, "ready");
  assert.equal(st.model, "universal-sentence-encoder-lite");
  assert.equal(st.dim, 512);
  assert.equal(st.fallback, true);
  assert.equal(st.restarts, 0);
  assert.ok(st.pid && alive(st.pid));
  const [a, b, a2] = await embed(base, [
    "the cat sat on the mat",
    "quarterly tax filing deadline",
    "the cat sat on the mat",
  ]);
  assert.equal(a!.length, 512);
  assert.deepEqual(a2, a);
  assert.notDeepEqual(b, a);
});

test("SIGKILL: ensureHealthy fails fast while it is down, then the supervisor restarts it", async () => {
  const pid = sup.pid!;
  process.kill(pid, "SIGKILL");
  await waitFor(() => sup.status().status !== "ready", 3_000, "the supervisor to notice the exit");
  assert.equal(alive(pid), false);
  // down (backoff + model load take far longer than 50 ms): a clear error, not a hang or a dead URL
  await assert.rejects(sup.ensureHealthy(50), (e: unknown) => {
    assert.ok(e instanceof EmbedderUnavailableError);
    assert.equal(e.code, "EMBEDDER_UNAVAILABLE");
    assert.match(e.message, /not available .*SIGKILL/);
    return true;
  });
  const base = await sup.ensureHealthy(20_000);
  const st = sup.status();
  assert.equal(st.status, "ready");
  assert.ok(st.restarts >= 1);
  assert.ok(st.pid && st.pid !== pid && alive(st.pid));
  assert.equal((await embed(base, ["back again"]))[0]!.length, 512);
});

test("a hung server (SIGSTOP) fails its health checks, is killed and restarted", async () => {
  const pid = sup.pid!;
  const restarts = sup.status().restarts;
  const stoppedAt = Date.now();
  process.kill(pid, "SIGSTOP");
  try {
    await waitFor(() => sup.status().restarts > restarts, 8_000, "the hung server to be replaced");
  } finally {
    if (alive(pid)) process.kill(pid, "SIGCONT"); // only if the supervisor failed to kill it
  }
  const detectedMs = Date.now() - stoppedAt;
  assert.match(
    sup.status().lastError ?? "",
    /exited \(SIGKILL\) after the supervisor killed it: .*stopped answering \/health/,
  );
  assert.ok(logs.some((l) => /stopped answering \/health/.test(l)));
  assert.equal(alive(pid), false, "the hung process was killed");
  // 2 failed checks at a 300 ms interval with a 300 ms timeout, plus a 100–400 ms backoff
  assert.ok(detectedMs < 4_000, `replaced after ${detectedMs} ms`);
  const base = await sup.ensureHealthy(20_000);
  assert.ok(sup.pid && sup.pid !== pid && alive(sup.pid));
  assert.equal((await embed(base, ["unstuck"]))[0]!.length, 512);
});

test("stop() kills the child and nothing restarts it", async () => {
  const pid = sup.pid!;
  await sup.stop();
  assert.equal(sup.pid, null);
  assert.equal(sup.status().status, "stopped");
  assert.equal(alive(pid), false);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(sup.pid, null);
  assert.equal(sup.status().status, "stopped");
});

/** Spawn main.ts (USE-lite) with --watch-stdin; resolves once it listens. */
async function spawnMain(extra: string[] = []) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "--port", "0", "--watch-stdin", ...extra], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child.pid!);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on("line", (line) => {
      if (line.includes('"listening"')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", () => reject(new Error("main.ts exited before listening")));
  });
  return { child, exited, port };
}

test("main.ts --watch-stdin exits when its stdin closes", async () => {
  const { child, exited, port } = await spawnMain();
  const health = await fetch(`http://127.0.0.1:${port}/health`);
  await health.text();
  assert.ok([200, 503].includes(health.status), `it serves (${health.status})`);
  child.stdin!.end();
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    exited,
    new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), 5_000))),
  ]).finally(() => clearTimeout(timer));
  assert.deepEqual(result, { code: 0, signal: null });
  assert.equal(alive(child.pid!), false);
});

test("main.ts --watch-stdin exits when its parent is SIGKILLed", async () => {
  // An intermediate parent spawns main.ts with a stdin pipe and its stdout in a file (so a write to a dead
  // parent's pipe cannot be what ends it), reports the pid, and is killed once the model has loaded.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "memo-watch-stdin-"));
  const out = path.join(tmp, "main.out");
  try {
    const script = `
      const fs = require("node:fs");
      const { spawn } = require("node:child_process");
      const c = spawn(process.execPath, ["--import", "tsx", ${JSON.stringify(MAIN)}, "--port", "0", "--watch-stdin"],
        { stdio: ["pipe", fs.openSync(${JSON.stringify(out)}, "w"), "ignore"] });
      console.log(JSON.stringify({ pid: c.pid }));
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    children.add(parent.pid!);
    const grandchild = await new Promise<number>((resolve, reject) => {
      readline
        .createInterface({ input: parent.stdout! })
        .on("line", (l) => resolve((JSON.parse(l) as { pid: number }).pid));
      parent.once("exit", () => reject(new Error("parent exited early")));
    });
    children.add(grandchild);
    await waitFor(
      () => fs.existsSync(out) && fs.readFileSync(out, "utf8").includes('"ready"'),
      20_000,
      "main.ts to load",
    );
    assert.ok(alive(grandchild));
    parent.kill("SIGKILL");
    await waitFor(() => !alive(grandchild), 5_000, "main.ts to follow its dead parent");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
