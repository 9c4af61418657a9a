/**
 * models:pull against a local mirror (TEST DOUBLE, server/test/mirror-server.ts) serving a GGUF this test
 * writes: a slow download (> 15 s in all, the old total timeout) that drops once mid-body completes by
 * resuming with Range and is verified; a wrong --sha256 fails clearly and leaves no file; a run killed
 * half-way is resumed by the next one.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { writeTinyNomicGguf } from "../server/test/gguf/write-gguf";
import { MirrorServer } from "../server/test/mirror-server";

const NAME = "nomic-embed-text-v1.5.Q8_0.gguf";
let work: string;
let source: string;
let sha: string;
let size: number;

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "memo-pull-"));
  source = path.join(work, "source.gguf");
  writeTinyNomicGguf(source);
  const data = fs.readFileSync(source);
  sha = createHash("sha256").update(data).digest("hex");
  size = data.length;
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

function pull(dataDir: string, args: string[], opts: { killWhen?: () => boolean } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join("scripts", "models-pull.ts"), ...args], {
      env: { ...process.env, MEMO_DATA_DIR: dataDir, MEMO_MODEL_URL: "", MEMO_MODEL_SHA256: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const poll = opts.killWhen
      ? setInterval(() => {
          if (opts.killWhen!()) {
            clearInterval(poll!);
            child.kill("SIGKILL");
          }
        }, 20)
      : null;
    child.on("exit", (code, signal) => {
      if (poll) clearInterval(poll);
      resolve({ code, signal, out });
    });
  });
}

const modelFile = (dataDir: string) => path.join(dataDir, "models", NAME);
const sizeOf = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);

test("a slow mirror that drops the connection once: the pull resumes with Range, completes and verifies", {
  timeout: 120_000,
}, async () => {
  // Just over 15 s in all (the old code's total timeout): about 15.5 s of body plus the retry's 1 s backoff.
  const mirror = await MirrorServer.start({
    file: source,
    name: NAME,
    bytesPerSec: Math.ceil(size / 15.5),
    dropAtOffset: Math.floor(size * 0.4),
  });
  const dataDir = path.join(work, "slow");
  try {
    const t0 = Date.now();
    const r = await pull(dataDir, ["--url", mirror.url, "--sha256", sha]);
    const secs = (Date.now() - t0) / 1000;
    assert.equal(r.code, 0, r.out);
    assert.ok(secs > 15, `the download took ${secs.toFixed(1)} s; it must outlast the old 15 s total timeout`);
    assert.equal(mirror.requests.length, 2, JSON.stringify(mirror.requests));
    assert.equal(mirror.requests[0]!.range, null);
    assert.equal(mirror.requests[0]!.sent, Math.floor(size * 0.4));
    assert.equal(mirror.requests[1]!.range, `bytes=${Math.floor(size * 0.4)}-`);
    assert.equal(mirror.requests[1]!.status, 206);
    assert.match(r.out, /connection dropped at \d+ bytes/);
    assert.match(r.out, /sha256 ok/);
    // Without a terminal: one progress line per 10%, with speed and ETA.
    const lines = r.out.split("\n").filter((l) => /^\[[#.]+\]/.test(l));
    assert.ok(lines.length >= 10 && lines.length <= 12, lines.join("\n"));
    assert.match(lines[0]!, /MB\/s {2}ETA /);
    const got = fs.readFileSync(modelFile(dataDir));
    assert.equal(createHash("sha256").update(got).digest("hex"), sha);
    assert.equal(fs.existsSync(`${modelFile(dataDir)}.part`), false);
  } finally {
    await mirror.close();
  }
});

test("a wrong --sha256 fails with 'sha256 mismatch', exits non-zero and leaves no model file", {
  timeout: 60_000,
}, async () => {
  const mirror = await MirrorServer.start({ file: source, name: NAME });
  const dataDir = path.join(work, "wrong");
  try {
    const wrong = "0".repeat(64);
    const r = await pull(dataDir, ["--url", mirror.url, "--sha256", wrong]);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /sha256 mismatch: expected 0{64}, got [0-9a-f]{64}/);
    assert.equal(fs.existsSync(modelFile(dataDir)), false);
    assert.equal(fs.existsSync(`${modelFile(dataDir)}.part`), false);
    // Not a hash at all: refused before anything is fetched.
    const bad = await pull(dataDir, ["--url", mirror.url, "--sha256", "xyz"]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.out, /--sha256 must be 64 hex digits/);
    assert.equal(mirror.requests.length, 1);
  } finally {
    await mirror.close();
  }
});

test("a run killed half-way is resumed by the next run from the kept .part", { timeout: 60_000 }, async () => {
  const mirror = await MirrorServer.start({ file: source, name: NAME, bytesPerSec: Math.ceil(size / 4) });
  const dataDir = path.join(work, "killed");
  const part = `${modelFile(dataDir)}.part`;
  try {
    const first = await pull(dataDir, ["--url", mirror.url, "--sha256", sha], {
      killWhen: () => sizeOf(part) > size * 0.3,
    });
    assert.equal(first.signal, "SIGKILL");
    const kept = sizeOf(part);
    assert.ok(kept > 0 && kept < size, `kept ${kept} of ${size}`);
    assert.equal(fs.existsSync(modelFile(dataDir)), false);
    mirror.setRate(0);
    const second = await pull(dataDir, ["--url", mirror.url, "--sha256", sha]);
    assert.equal(second.code, 0, second.out);
    assert.equal(mirror.requests.at(-1)!.range, `bytes=${kept}-`);
    assert.equal(mirror.requests.at(-1)!.sent, size - kept);
    assert.match(second.out, /resuming at/);
    assert.equal(
      createHash("sha256")
        .update(fs.readFileSync(modelFile(dataDir)))
        .digest("hex"),
      sha,
    );
  } finally {
    await mirror.close();
  }
});
