/**
 * `npm run test:unit [-- file…]`: the node:test unit and integration tests, several files at once, then the few
 * that must run alone (SERIAL below), one at a time; prints the 15 slowest files at the end and saves every
 * file's time in .cache/test-timing/unit.json (for .ci/run's summary).
 *
 * Each test file runs in its own process (node:test's default isolation), so environment variables and globals
 * never leak between files. What files can still share is the machine: each file makes its own data folder
 * (fs.mkdtempSync under os.tmpdir(), e.g. server/test/temp-store.ts; a file that names none gets a fresh
 * MEMO_DATA_DIR from server/test/own-data-dir.ts, preloaded here) and takes its ports from the OS (listen(0)),
 * never a fixed name or number. A file that cannot (it measures wall-clock behaviour a busy
 * neighbour would distort) goes into SERIAL with the reason.
 *
 *   MEMO_TEST_CONCURRENCY=N   files at once (default 3: many tests wait on timers, children and I/O)
 *   extra arguments           test files (default: every server/, scripts/ and app/ *.test.ts) and node --test flags
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { type FileTiming, formatSlowest, saveTimings, seconds, TIMING_DIR } from "./test-report/format";
import { NODE_TEST_ARGS } from "./test-report/node-test";

/** Files that run alone, after the others, and why. */
const SERIAL: Record<string, string> = {
  "server/embedder/faults.test.ts":
    "the real embedding server killed and hung: its replacement must be back within 5 s, a wall-clock promise",
  "server/embedder/llama-embed.test.ts":
    "a killed llama.cpp embedding server restarted within the supervisor's deadlines",
  "server/auth/sign-in-throttle.test.ts":
    "the login route's holds last 1 s, 2 s, 4 s of real time; guesses slowed by busy neighbours outlive them",
  "scripts/bench-extraction.test.ts":
    "the extraction bench times replies and counts what was learned in the gaps between them",
};

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith("--"));
const named = args.filter((a) => !a.startsWith("--"));
const files = (named.length ? named : fs.globSync(["server/**/*.test.ts", "scripts/**/*.test.ts", "app/**/*.test.ts"]))
  .map((f) => path.relative(root, path.resolve(f)))
  .sort();
const concurrency = Number(process.env.MEMO_TEST_CONCURRENCY ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`MEMO_TEST_CONCURRENCY must be a whole number ≥ 1, not ${process.env.MEMO_TEST_CONCURRENCY}`);
  process.exit(2);
}

const timingLines = path.join(TIMING_DIR, `unit-${process.pid}.jsonl`);
fs.rmSync(timingLines, { force: true });
const started = performance.now();

/** One `node --test` over `batch`, spec output as usual and the timing reporter beside it. */
function runBatch(batch: string[], atOnce: number): boolean {
  if (batch.length === 0) return true;
  const r = spawnSync(
    process.execPath,
    [
      ...NODE_TEST_ARGS,
      `--test-concurrency=${atOnce}`,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=./scripts/test-report/node-timing-reporter.mjs",
      "--test-reporter-destination=stdout",
      ...flags,
      ...batch,
    ],
    { stdio: "inherit", env: { ...process.env, MEMO_TEST_TIMING_FILE: timingLines } },
  );
  return r.status === 0;
}

const serial = files.filter((f) => f in SERIAL);
const parallelOk = runBatch(
  files.filter((f) => !(f in SERIAL)),
  concurrency,
);
if (serial.length) console.log(`\n[test:unit] ${serial.length} files that run alone: ${serial.join(", ")}`);
const serialOk = runBatch(serial, 1);

const rows: FileTiming[] = fs.existsSync(timingLines)
  ? fs
      .readFileSync(timingLines, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as FileTiming)
  : [];
fs.rmSync(timingLines, { force: true });
if (!named.length) saveTimings("unit", rows);
const cpu = childrenCpuMs();
console.log(
  `\n[test:unit] ${files.length} files in ${seconds(performance.now() - started)} wall${cpu === null ? "" : `, ${seconds(cpu)} CPU`} (${concurrency} at once, ${serial.length} alone)`,
);
console.log(formatSlowest("unit test files", rows));
process.exit(parallelOk && serialOk ? 0 : 1);

/** CPU time (user + system) of every finished child process and theirs (Linux: /proc), or null elsewhere. */
function childrenCpuMs(): number | null {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd on
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime + cstime, in 1/100 s ticks
  } catch {
    return null;
  }
}
