import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { evalChecks } from "../server/test/eval-report";
import { EVAL_SUITES } from "./eval-suites";

test("every *.eval.ts file is in an eval suite, and every suite has its npm run eval:<suite> command", () => {
  const evals = fs.globSync(["server/**/*.eval.ts", "scripts/**/*.eval.ts", "app/**/*.eval.ts"]).sort();
  const listed = Object.values(EVAL_SUITES)
    .flatMap((s) => s.files)
    .sort();
  assert.deepEqual(listed, evals, "an eval file no suite runs is never run (npm test skips *.eval.ts)");
  const scripts = (JSON.parse(fs.readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
  for (const name of Object.keys(EVAL_SUITES))
    assert.equal(scripts[`eval:${name}`], `node --import tsx scripts/eval.ts ${name}`);
  // The names the evals had before the runner keep working.
  assert.ok(scripts["eval:retrieval"] && scripts["eval:locomo"]);
});

test("the report's checks: a floor is met at or above it, a ceiling at or below, a list by its length", () => {
  const checks = evalChecks({
    run: "r",
    figures: { right: 0.5, wrong: 0.49, stale: 0, back: ["x"], missing: "n/a" },
    atLeast: { right: 0.5, wrong: 0.5, missing: 0 },
    atMost: { stale: 0, back: 0 },
  });
  assert.deepEqual(
    checks.map((c) => [c.figure, c.bound, c.value, c.ok]),
    [
      ["right", "≥", 0.5, true],
      ["wrong", "≥", 0.49, false],
      ["missing", "≥", null, false],
      ["stale", "≤", 0, true],
      ["back", "≤", 1, false],
    ],
  );
});
