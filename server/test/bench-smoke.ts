/**
 * TEST SUPPORT for the benchmarks' smoke tests (scripts/bench*.test.ts): run a bench script on tiny inputs in
 * a fresh data folder and parse the JSON it prints.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import assert from "node:assert/strict";

const root = path.resolve(import.meta.dirname, "../..");
/** The data folders made so far (a test file removes them in its after()). */
export const benchDirs: string[] = [];

export function runJson(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-bench-smoke-")),
): Promise<Record<string, any>> {
  benchDirs.push(dataDir);
  return new Promise((resolve, reject) => {
    // A TypeScript script runs under tsx; a compiled one (bundleHarness) as it is.
    const run = script.endsWith(".ts") ? ["--import", "tsx", script] : [script];
    const child = spawn(process.execPath, [...run, ...args], {
      cwd: root,
      env: { ...process.env, MEMO_DATA_DIR: dataDir, MEMO_OFFLINE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}:\n${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(new Error(`${script} printed no JSON: ${String(e)}\n${out.slice(-1000)}`));
      }
    });
  });
}

export const finite = (x: unknown, what: string) =>
  assert.ok(typeof x === "number" && Number.isFinite(x), `${what} is a finite number (${String(x)})`);
