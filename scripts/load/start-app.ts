/**
 * Starting Memo for `npm run load` (scripts/load.ts): its own data folder and port, the OpenAI-compatible
 * fixture as chat provider, healthy before the load begins, stopped with SIGTERM after it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../server/ops/child-process";

/** The fixture provider's key: it must never appear in Memo's log. */
export const KEY = "sk-load-test-SECRET-0d4f8a2c";

/** Traffic goes to this machine only. */
export function loopbackOnly(url: string): void {
  const host = new URL(url).hostname;
  if (!(host === "localhost" || host === "[::1]" || host === "::1" || /^127\./.test(host))) {
    throw new Error(`the load script only sends traffic to this machine (127.0.0.1 / localhost), not to ${host}`);
  }
}

export interface StartedApp {
  url: string;
  dataDir: string;
  log: () => string;
  stop: () => Promise<{ ms: number; code: number | null }>;
}

/** Start Memo on its own data folder and port, with the fixture as its chat provider. */
export async function startApp(
  app: "start" | "next",
  fixtureUrl: string,
  log: (m: string) => void,
): Promise<StartedApp> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-load-"));
  const env = {
    ...process.env,
    PORT: String(port),
    MEMO_HOST: "127.0.0.1",
    MEMO_DATA_DIR: dataDir,
    MEMO_OFFLINE: "1",
    MEMO_EMBED_MODEL: process.env.MEMO_EMBED_MODEL ?? "use-lite",
    NEXT_TELEMETRY_DISABLED: "1",
    MEMO_PROVIDER: "openai",
    MEMO_OPENAI_BASE_URL: fixtureUrl,
    MEMO_OPENAI_MODEL: "fixture-echo",
    MEMO_OPENAI_API_KEY: KEY,
  };
  const args =
    app === "start"
      ? ["scripts/start.mjs"]
      : ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  log(`starting Memo (${app === "start" ? "scripts/start.mjs" : "next start"}) on ${url}, data in ${dataDir}`);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`Memo exited (${child.exitCode}) before it was ready:\n${out.slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - t0 > 240_000) throw new Error(`Memo was not healthy after 240 s:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`Memo healthy after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return {
    url,
    dataDir,
    log: () => out,
    async stop() {
      const t = Date.now();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      return { ms: Date.now() - t, code: child.exitCode };
    },
  };
}
