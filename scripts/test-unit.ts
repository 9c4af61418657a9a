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
 * The longest files start first (their time from the last whole run in .cache/test-timing/unit.json, else the
 * LONG list below), so the run does not end with one long file alone on a machine with idle cores: `node --test`
 * on the command line runs files in name order, so the files are handed to node:test's run() in this order.
 * Each file's CPU time (its process and the children it waited for, scripts/test-report/file-cpu.mjs) is
 * reported beside its wall time.
 *
 *   MEMO_TEST_CONCURRENCY=N   files at once (default 3: many tests wait on timers, children and I/O)
 *   --with-e2e                (`npm test`) `playwright test` beside the shared files; the files in SERIAL after both
 *   extra arguments           test files (default: every server/, scripts/ and app/ *.test.ts) and node --test flags
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { PassThrough } from "node:stream";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { type FileTiming, formatSlowest, loadTimings, saveTimings, seconds, TIMING_DIR } from "./test-report/format";
import { TEST_FILE_PRELOADS } from "./test-report/node-test";
import timingReporter from "./test-report/node-timing-reporter.mjs";

/** Files that run alone, after the others, and why. */
const SERIAL: Record<string, string> = {
  "server/embedder/faults.test.ts":
    "the real embedding server killed and hung: its replacement must be back within 5 s, a wall-clock promise",
  "server/embedder/llama-embed.test.ts":
    "a killed llama.cpp embedding server restarted within the supervisor's deadlines",
  "scripts/bench-extraction.test.ts":
    "the extraction bench times replies and counts what was learned in the gaps between them",
};

/**
 * Files that take longest (≥ 15 s each on this 2-core machine in a whole run beside the e2e run: a clean-clone CI
 * run at e660088), longest first: the start order when no earlier whole run's timings are saved (a clean clone).
 */
const LONG = [
  "server/ops/crash-safety.test.ts",
  "server/services/import/runner.test.ts",
  "scripts/bench.test.ts",
  "server/chat/live-loop-smoke.test.ts",
  "server/auth/login.test.ts",
  "server/http/bad-input.test.ts",
  "server/ingest/ingest.test.ts",
  "server/ops/restart.test.ts",
  "server/auth/sign-in-throttle.test.ts",
  "server/ingest/crafted-files.test.ts",
  "server/chat/turn.test.ts",
  "server/auth/people.test.ts",
  "server/chat/llama-chat.test.ts",
  "scripts/models-pull.test.ts",
  "server/ops/secrets-in-logs.test.ts",
  "server/ops/child-server.test.ts",
  "server/ingest/ingest-rate.test.ts",
  "server/chat/facts-that-change.test.ts",
  "server/test/retrieval-eval/life-harness.test.ts",
  "server/auth/side-channel.test.ts",
  "server/chat/live-loop-recall.test.ts",
  "server/memory/retrieval/retrieval-slice.test.ts",
  "server/mcp/mcp-clients.test.ts",
  "server/memory/index/ann-corrupt.test.ts",
  "server/embedder/supervisor.test.ts",
];

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
const args = process.argv.slice(2);
/** `--with-e2e` (`npm test`): the Playwright e2e run beside the shared files, the files that run alone after both. */
const withE2e = args.includes("--with-e2e");
const flags = args.filter((a) => a.startsWith("--") && a !== "--with-e2e");
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
const cpuLines = path.join(TIMING_DIR, `unit-cpu-${process.pid}.jsonl`);
fs.mkdirSync(TIMING_DIR, { recursive: true });
fs.rmSync(timingLines, { force: true });
fs.rmSync(cpuLines, { force: true });
process.env.MEMO_TEST_TIMING_FILE = timingLines;
process.env.MEMO_TEST_CPU_FILE = cpuLines;
const started = performance.now();

/** Longest first: the last whole run's times, else the LONG list's order, then the rest by name. */
function longestFirst(list: string[]): string[] {
  const saved = new Map((loadTimings("unit") ?? []).map((r) => [r.file, r.ms]));
  const known = (f: string) => saved.get(f) ?? (LONG.includes(f) ? 1e9 - LONG.indexOf(f) : 0);
  return [...list].sort((a, b) => known(b) - known(a) || a.localeCompare(b));
}

/**
 * One node:test run over `batch` in the given order, `atOnce` files at a time, each in its own process: spec
 * output as usual and the timing reporter beside it. Resolves false when a test (or a file) failed.
 */
async function runBatch(batch: string[], atOnce: number): Promise<boolean> {
  if (batch.length === 0) return true;
  let ok = true;
  const stream = run({
    files: batch.map((f) => path.resolve(f)),
    concurrency: atOnce,
    isolation: "process",
    execArgv: [...TEST_FILE_PRELOADS, ...flags],
  });
  stream.on("test:fail", (data) => {
    if (!data.todo && !data.skip) ok = false;
  });
  const timing = new PassThrough({ objectMode: true });
  stream.pipe(timing);
  const timed = (async () => {
    for await (const _ of timingReporter(timing)) void _;
  })();
  const shown = stream.pipe(new spec());
  shown.pipe(process.stdout, { end: false });
  await Promise.all([new Promise((r) => shown.on("end", r)), timed]);
  return ok;
}

/**
 * `playwright test` as a child, its lines prefixed "[e2e] ". The unit files mostly wait on timers, children and
 * I/O, and one browser and one app leave a core partly idle: run side by side, the two fill both cores.
 */
function startE2e(): Promise<boolean> {
  const env = { ...process.env };
  delete env.MEMO_TEST_TIMING_FILE;
  delete env.MEMO_TEST_CPU_FILE;
  const child = spawn(process.execPath, [path.join(root, "node_modules", "playwright", "cli.js"), "test"], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  const prefix = (from: NodeJS.ReadableStream, to: NodeJS.WriteStream) =>
    readline.createInterface({ input: from }).on("line", (l) => to.write(`[e2e] ${l}\n`));
  prefix(child.stdout!, process.stdout);
  prefix(child.stderr!, process.stderr);
  return new Promise((resolve) => child.on("exit", (code) => resolve(code === 0)));
}

const serial = files.filter((f) => f in SERIAL);
const e2e = withE2e ? startE2e() : Promise.resolve(true);
const parallelOk = await runBatch(longestFirst(files.filter((f) => !(f in SERIAL))), concurrency);
if (withE2e)
  console.log("\n[test:unit] the shared files are done; waiting for the e2e run before the files that run alone");
const e2eOk = await e2e;
if (serial.length) console.log(`\n[test:unit] ${serial.length} files that run alone: ${serial.join(", ")}`);
const serialOk = await runBatch(serial, 1);

const rows: FileTiming[] = fs.existsSync(timingLines)
  ? fs
      .readFileSync(timingLines, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as FileTiming)
  : [];
fs.rmSync(timingLines, { force: true });
const cpuOf = new Map(
  (fs.existsSync(cpuLines) ? fs.readFileSync(cpuLines, "utf8").split("\n").filter(Boolean) : []).map((l) => {
    const r = JSON.parse(l) as { file: string; cpuMs: number };
    return [r.file, r.cpuMs] as const;
  }),
);
fs.rmSync(cpuLines, { force: true });
for (const r of rows) if (cpuOf.has(r.file)) r.cpuMs = cpuOf.get(r.file);
if (!named.length) saveTimings("unit", rows);
const cpu = childrenCpuMs();
console.log(
  `\n[test:unit] ${files.length} files in ${seconds(performance.now() - started)} wall${cpu === null ? "" : `, ${seconds(cpu)} CPU${withE2e ? " (the e2e run's included)" : ""}`} (${concurrency} at once, ${serial.length} alone)`,
);
console.log(formatSlowest("unit test files", rows));
if (withE2e)
  console.log(`[test:unit] the e2e run ${e2eOk ? "passed" : "FAILED"} (its report is above, as [e2e] lines)`);
process.exit(parallelOk && serialOk && e2eOk ? 0 : 1);

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
