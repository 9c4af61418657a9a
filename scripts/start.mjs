#!/usr/bin/env node
// `npm start`: build if the build is missing or older than the sources, then serve (`--build-only`: do not serve).
// PORT (default 3000), MEMO_HOST (default 127.0.0.1) and MEMO_DATA_DIR change port, address and data folder.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const host = process.env.MEMO_HOST ?? "127.0.0.1";
const port = process.env.PORT ?? "3000";
const loopback = ["127.0.0.1", "localhost", "::1"].includes(host) || host.startsWith("127.");
// On a network address every page and API needs a sign-in (server/auth/), so an owner password must exist first.
if (!loopback && !(await ownerPasswordSet())) {
  console.error(
    `Memo refuses to listen on ${host}: no owner password is set, and Memo holds your private history.\n` +
      `Set one with \`npm run set-password\` (with the same MEMO_DATA_DIR), then start again; every page and API will then need\n` +
      `a sign-in or an API token. To use Memo only on this machine, leave MEMO_HOST unset (127.0.0.1): no password needed.`,
  );
  process.exit(2);
}

/** Is an owner password stored? Read-only look at the store (a missing store or table: no). */
async function ownerPasswordSet() {
  const dir = path.resolve(process.env.MEMO_DATA_DIR ?? path.join(root, "data"));
  const file = process.env.MEMO_DB_PATH ?? path.join(dir, "memory", "memory.db");
  if (!fs.existsSync(file)) return false;
  try {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'auth_owner'").get() !== undefined &&
        db.prepare("SELECT 1 FROM auth_owner WHERE id = 1").get() !== undefined
      );
    } finally {
      db.close();
    }
  } catch (e) {
    console.error(`[memo] could not read ${file}: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
}

/** Files that are not part of the built app: tests, their harnesses and fixtures, docs (a change to them needs no build). */
const notBuilt = (p, name) => name.endsWith(".test.ts") || name.endsWith(".md") || p === path.join("server", "test");

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (notBuilt(p, e.name)) continue;
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

// The nomic GGUF is fetched by the server itself, in the background, when it is missing
// (server/services/model-download-service.ts): the app serves on the bundled model meanwhile.

const buildId = path.join(root, process.env.MEMO_NEXT_DIST_DIR || ".next", "BUILD_ID");
const sources = Math.max(
  newestMtime("app"),
  newestMtime("server"),
  newestMtime("public"),
  fs.statSync("package.json").mtimeMs,
  fs.statSync("next.config.mjs").mtimeMs,
  ...["proxy.ts", "instrumentation.ts"].filter((f) => fs.existsSync(f)).map((f) => fs.statSync(f).mtimeMs),
);
if (!fs.existsSync(buildId) || fs.statSync(buildId).mtimeMs < sources) {
  console.log("[memo] building the app (first start or sources changed)…");
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
} else if (process.argv.includes("--build-only")) {
  console.log("[memo] the build is up to date");
}
// `--build-only` (.ci/run's build phase): build when stale, as above, and stop there.
if (process.argv.includes("--build-only")) process.exit(0);

console.log(`[memo] serving on http://${host.includes(":") ? `[${host}]` : host}:${port}`);
const child = spawn(
  process.execPath,
  [path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", port, "-H", host],
  {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  },
);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
