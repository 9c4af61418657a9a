import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { judge, longUnits, scanRepository } from "./lint-units";

/** The unit-length step of `npm run lint` (scripts/lint-units.ts): 120 lines a server function, 250 a component. */

/** A function whose span (first line to closing brace) is exactly `lines` lines. */
const fn = (name: string, lines: number) =>
  [`export function ${name}(): number {`, ...Array.from({ length: lines - 2 }, (_, i) => `  void ${i};`), "}"].join(
    "\n",
  );
const component = (name: string, lines: number) =>
  [
    `export function ${name}() {`,
    ...Array.from({ length: lines - 3 }, (_, i) => `  const v${i} = ${i};`),
    "  return <div />;",
    "}",
  ].join("\n");

test("a server function of 121 lines fails, one of 120 passes", () => {
  const source = `${fn("fits", 120)}\n\n${fn("tooLong", 121)}\n`;
  const found = longUnits("server/x/fixture.ts", source, "function");
  assert.deepEqual(
    found.map((u) => [u.name, u.line, u.lines]),
    [["tooLong", 122, 121]],
  );
  assert.equal(judge(found).ok, false);
  assert.match(judge(found).lines[0], /^server\/x\/fixture\.ts:122 function tooLong spans 121 lines \(limit 120\)$/);
  assert.equal(judge(longUnits("server/x/fixture.ts", fn("fits", 120), "function")).ok, true);
});

test("arrows, methods and callbacks are measured and named too", () => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `    void ${i};`).join("\n");
  const source = [
    `export const arrow = () => {\n${body(121)}\n};`,
    `class Learner {\n  call() {\n${body(121)}\n  }\n}`,
    `register({ handler: async () => {\n${body(121)}\n} });`,
  ].join("\n");
  assert.deepEqual(
    longUnits("scripts/fixture.ts", source, "function").map((u) => u.name),
    ["arrow", "Learner.call", "handler"],
  );
});

test("an app component of 251 lines fails, one of 250 passes, and non-components are not components", () => {
  const source = `${component("Fits", 250)}\n${component("TooLong", 251)}\n${fn("helperNotComponent", 300)}\n`;
  const found = longUnits("app/x/fixture.tsx", source, "component");
  assert.deepEqual(
    found.map((u) => [u.name, u.lines, u.limit]),
    [["TooLong", 251, 250]],
  );
  assert.match(judge(found).lines[0], /component TooLong spans 251 lines \(limit 250\)/);
});

const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test("the repository scan skips tests and server/test/, and the command exits 1 naming file:line", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memo-lint-units-"));
  dirs.push(root);
  const put = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  put("server/a/long.ts", `\n${fn("longOne", 130)}\n`);
  put("server/a/long.test.ts", fn("longTest", 300));
  put("server/test/double.ts", fn("longDouble", 300));
  put("app/page.tsx", component("Page", 260));
  assert.deepEqual(
    scanRepository(root).map((u) => `${u.file}:${u.line} ${u.name}`),
    ["server/a/long.ts:2 longOne", "app/page.tsx:1 Page"],
  );
  const script = path.join(import.meta.dirname, "lint-units.ts");
  const r = spawnSync(process.execPath, ["--import", "tsx", script, root], {
    cwd: path.join(import.meta.dirname, ".."),
    encoding: "utf8",
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /server\/a\/long\.ts:2 function longOne spans 130 lines \(limit 120\)/);
});
