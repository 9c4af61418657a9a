/**
 * TEST SETUP, preloaded by scripts/test-unit.ts into every test file's process: when the file's process exits,
 * one JSON line with its CPU time — its own (process.cpuUsage) plus that of the child processes it started and
 * waited for (embedding servers, harnesses, apps: cutime + cstime in /proc/self/stat) — appended to
 * MEMO_TEST_CPU_FILE. Wall time alone misleads on a shared machine; CPU time says what a file costs.
 * Plain JavaScript: it loads before tsx.
 */
import fs from "node:fs";
import path from "node:path";

const out = process.env.MEMO_TEST_CPU_FILE;
const file = process.argv[1];
if (out && process.env.NODE_TEST_CONTEXT && file) {
  process.on("exit", () => {
    const own = process.cpuUsage();
    let children = 0;
    try {
      const stat = fs.readFileSync("/proc/self/stat", "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd on
      children = ((Number(f[13]) + Number(f[14])) * 1000) / 100; // cutime + cstime, 1/100 s ticks
    } catch {
      // not Linux: the file's own CPU only
    }
    const cpuMs = Math.round((own.user + own.system) / 1000 + children);
    fs.appendFileSync(out, `${JSON.stringify({ file: path.relative(process.cwd(), file), cpuMs })}\n`);
  });
}
