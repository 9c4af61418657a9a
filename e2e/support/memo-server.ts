import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A Memo of its own on loopback for specs that stop and start the app: its own data folder, served from
 * the build the main e2e server made (`next start` directly, as e2e/support/lan-server.ts does), chatting
 * with the e2e OpenAI-compatible TEST DOUBLE. kill() is a crash (SIGKILL); start() again on the same data
 * folder is the next start.
 */
export interface MemoServer {
  url: string;
  dataDir: string;
  start(): Promise<void>;
  /** SIGKILL: the process dies mid-work, as in a power cut. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

export function memoServer(offset = 3): MemoServer {
  const port = Number(process.env.MEMO_E2E_PORT) + offset;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-e2e-own-"));
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let out = "";
  const exited = () => new Promise((r) => (child?.exitCode !== null ? r(null) : child.once("exit", r)));
  return {
    url,
    dataDir,
    log: () => out,
    async start() {
      child = spawn(
        process.execPath,
        ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"],
        {
          env: {
            ...process.env,
            MEMO_DATA_DIR: dataDir,
            MEMO_HOST: "127.0.0.1",
            MEMO_OFFLINE: "1",
            MEMO_DETECT_LOCAL: "0",
            NEXT_TELEMETRY_DISABLED: "1",
            MEMO_NEXT_DIST_DIR: process.env.MEMO_E2E_DIST_DIR,
            MEMO_PROVIDER: "openai",
            MEMO_OPENAI_BASE_URL: `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}/v1`,
            MEMO_OPENAI_MODEL: "fixture-echo",
            MEMO_OPENAI_API_KEY: "sk-e2e-fixture",
            MEMO_PROVIDER_TIMEOUT_SEC: "60",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      child.stdout!.on("data", (d) => (out += d));
      child.stderr!.on("data", (d) => (out += d));
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`Memo exited (${child.exitCode}): ${out.slice(-3000)}`);
        try {
          if ((await fetch(`${url}/api/health`)).status === 200) return;
        } catch {
          /* not listening yet */
        }
        if (Date.now() > deadline) throw new Error(`Memo did not become healthy: ${out.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async kill() {
      if (child && child.exitCode === null) {
        const done = exited();
        child.kill("SIGKILL");
        await done;
      }
    },
    async stop() {
      if (child && child.exitCode === null) {
        const done = exited();
        child.kill("SIGTERM");
        await Promise.race([done, new Promise((r) => setTimeout(r, 8000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
