import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";

/**
 * `npm start` on a network address (scripts/start.mjs) refuses to run without an owner password, and
 * `npm run set-password` (scripts/set-password.ts) is how one is set.
 */

const root = path.resolve(import.meta.dirname, "..");
const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "memo-start-test-"));
  dirs.push(d);
  return d;
}

function run(
  args: string[],
  env: Record<string, string>,
  input?: string,
  timeoutMs = 30_000,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, MEMO_OFFLINE: "1", MEMO_DETECT_LOCAL: "0", NEXT_TELEMETRY_DISABLED: "1", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`timed out: ${out}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    child.stdin.end(input ?? "");
  });
}

const setPassword = (dataDir: string, input: string, extra: string[] = []) =>
  run(["--import", "tsx", "scripts/set-password.ts", ...extra], { MEMO_DATA_DIR: dataDir }, input);

test("on 0.0.0.0 with an empty data folder, npm start refuses and says how to set a password", async () => {
  for (const host of ["0.0.0.0", "192.168.1.20", "::"]) {
    const data = tempDir();
    const r = await run(["scripts/start.mjs"], { MEMO_HOST: host, MEMO_DATA_DIR: data, PORT: "39123" });
    assert.equal(r.code, 2, r.out);
    assert.match(
      r.out,
      new RegExp(`Memo refuses to listen on ${host.replace(/\./g, "\\.")}: no owner password is set`),
    );
    assert.match(r.out, /npm run set-password/);
    assert.deepEqual(fs.readdirSync(data), [], "nothing was created");
  }
});

test("set-password reads stdin, stores only an scrypt hash, and then npm start goes on to serve", async () => {
  const data = tempDir();
  const pw = "tr0ub4dor & 3 horses";
  const weak = await setPassword(data, "short\n");
  assert.equal(weak.code, 1);
  assert.match(weak.out, /at least 8 characters/);

  const r = await setPassword(data, `${pw}\n`);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /Owner password set .*scrypt, N=2\^17, r=8, p=1/);
  const file = path.join(data, "memory", "memory.db");
  const db = new Database(file, { readonly: true });
  const row = db.prepare("SELECT password_hash FROM auth_owner").get() as { password_hash: string };
  db.close();
  assert.match(row.password_hash, /^scrypt\$17\$8\$1\$/);
  for (const f of fs.readdirSync(path.dirname(file))) {
    const bytes = fs.readFileSync(path.join(path.dirname(file), f));
    assert.equal(bytes.includes(Buffer.from(pw)), false, `the password is not in ${f}`);
  }

  // start.mjs now passes the check: it announces the address and hands over to `next start` (here on an
  // empty build folder made to look fresh, so next exits at once instead of serving).
  const dist = `.next-starttest-${process.pid}`;
  fs.mkdirSync(path.join(root, dist), { recursive: true });
  dirs.push(path.join(root, dist));
  fs.writeFileSync(path.join(root, dist, "BUILD_ID"), "test");
  const started = await run(["scripts/start.mjs"], {
    MEMO_HOST: "0.0.0.0",
    MEMO_DATA_DIR: data,
    PORT: "39124",
    MEMO_NEXT_DIST_DIR: dist,
  });
  assert.doesNotMatch(started.out, /refuses/);
  assert.match(started.out, /\[memo\] serving on http:\/\/0\.0\.0\.0:39124/);

  const removed = await setPassword(data, "", ["--remove"]);
  assert.equal(removed.code, 0, removed.out);
  const again = await run(["scripts/start.mjs"], { MEMO_HOST: "0.0.0.0", MEMO_DATA_DIR: data, PORT: "39125" });
  assert.equal(again.code, 2);
});

test("a build newer than the app's sources is not redone when only a test file or a test harness changed", async () => {
  const dist = `.next-starttest-stale-${process.pid}`;
  fs.mkdirSync(path.join(root, dist), { recursive: true });
  dirs.push(path.join(root, dist));
  const buildId = path.join(root, dist, "BUILD_ID");
  fs.writeFileSync(buildId, "test");
  // A test file and a harness edited after the build (their times set ahead of it, then put back).
  const edited = ["server/chat/turn.test.ts", "server/test/temp-store.ts"].map((f) => path.join(root, f));
  const times = edited.map((f) => fs.statSync(f));
  const later = new Date(Date.now() + 60_000);
  try {
    for (const f of edited) fs.utimesSync(f, later, later);
    fs.utimesSync(buildId, new Date(Date.now() + 30_000), new Date(Date.now() + 30_000));
    // A stale build would start `next build` here: stop at its first line rather than build.
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ["scripts/start.mjs", "--build-only"], {
        cwd: root,
        env: { ...process.env, MEMO_NEXT_DIST_DIR: dist, MEMO_DATA_DIR: tempDir() },
      });
      let text = "";
      child.stdout.on("data", (d) => {
        text += d;
        if (text.includes("building")) child.kill("SIGKILL");
      });
      child.on("exit", () => resolve(text));
    });
    assert.match(out, /the build is up to date/);
  } finally {
    edited.forEach((f, i) => fs.utimesSync(f, times[i]!.atime, times[i]!.mtime));
  }
});
