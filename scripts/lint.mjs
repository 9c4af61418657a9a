#!/usr/bin/env node
// `npm run lint`: Biome (format check + lint, zero warnings), then the dependency rule (dependency-cruiser), then
// the one write path (server/memory/store/write-path.test.ts: memories and facts written only by their homes), then
// the unit lengths (scripts/lint-units.ts: server/scripts functions ≤ 120 lines, app components ≤ 250).
// dependency-cruiser refuses Node < 22; when npm was started by an older Node (these machines ship 20), the
// Node 24 that .ci/run installs (MEMO_NODE24_DIR, default ~/.local/node24) runs the checks instead.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let node = process.execPath;
if (Number(process.versions.node.split(".")[0]) < 22) {
  const candidate = path.join(
    process.env.MEMO_NODE24_DIR ?? path.join(os.homedir(), ".local", "node24"),
    "bin",
    "node",
  );
  if (!fs.existsSync(candidate)) {
    console.error(
      `npm run lint needs Node 22 or newer (this is ${process.version}); install Node 24 as README "Quick start" says.`,
    );
    process.exit(1);
  }
  node = candidate;
}
const bin = (pkg, file) => path.join("node_modules", pkg, file);
const steps = [
  [bin("@biomejs/biome", "bin/biome"), "check", "--error-on-warnings", "."],
  [
    bin("dependency-cruiser", "bin/dependency-cruiser.mjs"),
    "server",
    "app",
    "scripts",
    "--config",
    ".dependency-cruiser.cjs",
  ],
  ["--import", "tsx", "--test", "--test-reporter=dot", "server/memory/store/write-path.test.ts"],
  ["--import", "tsx", path.join("scripts", "lint-units.ts")],
];
for (const args of steps) {
  const r = spawnSync(node, args, { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
