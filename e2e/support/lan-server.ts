import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A second Memo for the access-control specs, bound to 0.0.0.0 like a home-server install: its own data
 * folder with an owner password set by `npm run set-password` (stdin), served from the build the main
 * e2e server made (`next start` directly: start.mjs could decide to rebuild that folder under the running
 * main server; its own password check is tested in scripts/start.test.ts). Provider keys are set in its
 * environment so tests can look for them in everything the browser receives.
 */
export const LAN_PASSWORD = "correct horse battery staple";
export const SECRET_KEYS = ["sk-e2e-lan-OPENAI-secret-7f3a9c", "sk-ant-e2e-lan-ANTHROPIC-secret-41d2"];

export interface LanServer {
  url: string;
  dataDir: string;
  dbFile: string;
  stop(): Promise<void>;
  log(): string;
}

/**
 * `offset`: its port past the e2e app's. One per spec that starts one (auth 2, household 4, facts 5; memo-server.ts
 * takes 3): specs of the two projects run at once (playwright.config.ts).
 */
export async function startLanServer(offset: number): Promise<LanServer> {
  const port = Number(process.env.MEMO_E2E_PORT) + offset;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-e2e-lan-"));
  const env = { ...process.env, MEMO_DATA_DIR: dataDir, MEMO_OFFLINE: "1", NEXT_TELEMETRY_DISABLED: "1" };
  const set = spawnSync(process.execPath, ["--import", "tsx", "scripts/set-password.ts"], {
    env,
    input: `${LAN_PASSWORD}\n`,
    encoding: "utf8",
  });
  if (set.status !== 0) throw new Error(`set-password failed: ${set.stderr}${set.stdout}`);

  let out = "";
  const child: ChildProcess = spawn(
    process.execPath,
    ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "0.0.0.0"],
    {
      env: {
        ...env,
        MEMO_HOST: "0.0.0.0",
        MEMO_NEXT_DIST_DIR: process.env.MEMO_E2E_DIST_DIR,
        MEMO_PROVIDER: "openai",
        MEMO_OPENAI_BASE_URL: `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}/v1`,
        MEMO_OPENAI_MODEL: "fixture-echo",
        MEMO_OPENAI_API_KEY: SECRET_KEYS[0],
        MEMO_ANTHROPIC_API_KEY: SECRET_KEYS[1],
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the LAN server exited (${child.exitCode}): ${out}`);
    try {
      const res = await fetch(`${url}/login`);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`the LAN server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dataDir,
    dbFile: path.join(dataDir, "memory", "memory.db"),
    log: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
