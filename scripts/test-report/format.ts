/**
 * The test-time report's tables (scripts/test-unit.mjs, e2e/support/timing-reporter.ts, .ci/run): one row per
 * test file or spec, slowest first. Timings are written to .cache/test-timing/ so .ci/run can print them again
 * at the end of a run beside the phase times.
 */
import fs from "node:fs";
import path from "node:path";

/**
 * One test file (node:test) or spec (Playwright): its wall time, its test count, how many failed; for a
 * node:test file also its CPU time (its process and the children it waited for).
 */
export interface FileTiming {
  file: string;
  ms: number;
  cpuMs?: number;
  tests: number;
  failed: number;
}

export const TIMING_DIR = path.join(".cache", "test-timing");

/** The `n` slowest rows as an aligned text table, with the total and the share the slowest take. */
export function formatSlowest(what: string, rows: FileTiming[], n = 15): string {
  const sorted = [...rows].sort((a, b) => b.ms - a.ms);
  const total = sorted.reduce((s, r) => s + r.ms, 0);
  const top = sorted.slice(0, n);
  const topMs = top.reduce((s, r) => s + r.ms, 0);
  const tests = sorted.reduce((s, r) => s + r.tests, 0);
  const width = Math.max(4, ...top.map((r) => r.file.length));
  return [
    `${top.length} slowest ${what} (of ${sorted.length} with ${tests} tests; they take ${seconds(topMs)} of ${seconds(total)} summed):`,
    ...top.map(
      (r) =>
        `  ${seconds(r.ms).padStart(8)}${r.cpuMs === undefined ? "" : ` ${seconds(r.cpuMs).padStart(8)} CPU`}  ${r.file.padEnd(width)}  ${String(r.tests).padStart(3)} tests${r.failed ? `, ${r.failed} FAILED` : ""}`,
    ),
  ].join("\n");
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Write a run's rows where .ci/run's summary reads them (`name`: "unit" or "e2e"). */
export function saveTimings(name: string, rows: FileTiming[]): string {
  fs.mkdirSync(TIMING_DIR, { recursive: true });
  const file = path.join(TIMING_DIR, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(rows, null, 1)}\n`);
  return file;
}

/** The rows a run saved, or null when that phase did not run. */
export function loadTimings(name: string): FileTiming[] | null {
  const file = path.join(TIMING_DIR, `${name}.json`);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as FileTiming[]) : null;
}
