/**
 * A node:test reporter, used beside `spec` (not instead of it) by scripts/test-unit.ts: each test file's wall
 * time (from its process's start to its exit, as the runner measures it), its test count and failures, one
 * JSON line per file appended to MEMO_TEST_TIMING_FILE. Plain JavaScript: node loads reporters without tsx.
 */
import fs from "node:fs";
import path from "node:path";

export default async function* timingReporter(source) {
  const files = new Map(); // absolute path → { file, ms, tests, failed }
  const entry = (file) => {
    let e = files.get(file);
    if (!e) {
      e = { file: path.relative(process.cwd(), file), ms: 0, tests: 0, failed: 0 };
      files.set(file, e);
    }
    return e;
  };
  for await (const { type, data } of source) {
    if ((type !== "test:pass" && type !== "test:fail" && type !== "test:complete") || !data.file) continue;
    // The file itself is a nesting-0 test named by its path, seen on test:complete only.
    if (data.nesting === 0 && path.resolve(data.name) === data.file) {
      if (type === "test:complete") {
        const e = entry(data.file);
        e.ms = Math.round(data.details?.duration_ms ?? 0);
        if (data.details?.passed === false && e.failed === 0) e.failed = 1; // the file failed outside a test
      }
      continue;
    }
    if (type === "test:complete" || data.details?.type === "suite") continue;
    const e = entry(data.file);
    e.tests++;
    if (type === "test:fail" && !data.todo && !data.skip) e.failed++;
  }
  const out = process.env.MEMO_TEST_TIMING_FILE;
  if (!out) return;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.appendFileSync(out, [...files.values()].map((r) => `${JSON.stringify(r)}\n`).join(""));
  yield ""; // a reporter yields output; the table is printed by scripts/test-unit.ts
}
