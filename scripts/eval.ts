/**
 * `npm run eval:<suite>` (e.g. `npm run eval:live-loop`): a quality eval — a node:test file named `*.eval.ts`, which
 * `npm test` never runs (it runs their smokes) — with its floors checked by its assertions, and a JSON report of
 * what it measured: `.cache/eval/<suite>.json`, or `--out FILE`. docs/testing.md#evals-quality-measured-when-its-subject-changes says when each must be run.
 *
 *   node --import tsx scripts/eval.ts <suite> [--out FILE.json]     suites: below
 *
 * The suite's files run side by side (each in its own process, its own data folder: server/test/own-data-dir.ts);
 * each measured run appends its figures and bounds to the report (server/test/eval-report.ts). Exit status 1 when
 * an assertion (a floor) failed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { EVAL_SUITES } from "./eval-suites";
import { NODE_TEST_ARGS } from "./test-report/node-test";

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
const { values, positionals } = parseArgs({ options: { out: { type: "string" } }, allowPositionals: true });
const name = positionals[0] ?? "";
const suite = EVAL_SUITES[name];
if (!suite || positionals.length !== 1) {
  console.error(
    `usage: node --import tsx scripts/eval.ts <suite> [--out FILE.json]; suites: ${Object.keys(EVAL_SUITES).join(", ")}`,
  );
  process.exit(2);
}
const out = values.out ?? path.join(".cache", "eval", `${name}.json`);
fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
const lines = path.join(root, ".cache", "eval", `${name}-${process.pid}.jsonl`);
fs.mkdirSync(path.dirname(lines), { recursive: true });
fs.rmSync(lines, { force: true });

const started = performance.now();
const r = spawnSync(process.execPath, [...NODE_TEST_ARGS, `--test-concurrency=${suite.files.length}`, ...suite.files], {
  stdio: "inherit",
  env: { ...process.env, MEMO_EVAL_REPORT: lines },
});
const runs = fs.existsSync(lines)
  ? fs
      .readFileSync(lines, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { run: string; checks: { ok: boolean }[] })
  : [];
fs.rmSync(lines, { force: true });
const report = {
  suite: name,
  about: suite.about,
  files: suite.files,
  passed: r.status === 0,
  wallMs: Math.round(performance.now() - started),
  finishedAt: new Date().toISOString(),
  runs,
};
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
const failed = runs.flatMap((x) => x.checks.filter((c) => !c.ok).map((c) => ({ run: x.run, ...c })));
console.log(
  `\n[eval:${name}] ${report.passed ? "passed" : "FAILED"}: ${runs.length} runs measured, ${failed.length} bounds missed, ${(report.wallMs / 1000).toFixed(1)} s; report in ${out}`,
);
for (const f of failed) console.log(`  ${JSON.stringify(f)}`);
process.exit(r.status === 0 ? 0 : 1);
