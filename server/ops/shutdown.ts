/**
 * Graceful shutdown (SIGTERM, SIGINT), bounded in time. In order:
 *  1. at once and together: chat turns and completions in flight get `graceMs` to finish, then are
 *     stopped (their partial replies kept, marked interrupted: server/chat/turn.ts); the ingestion queue
 *     stops (the running document stays `processing` and resumes at the next start, its chunks so far
 *     recognised by hash); the job scheduler stops and running jobs get `graceMs` (a consolidation pair is
 *     one transaction; a run cut short is recorded as interrupted by the next);
 *  2. the chat persistence queue gets `graceMs` to write what is queued (exchanges still queued after that
 *     are in `messages` and are written at the next start: exchange-queue.ts recoverUnpersisted), and writes
 *     waiting for their embeddings get `graceMs` to finish (the embedding server is stopped after them);
 *  3. the ANN index is saved; the embedding server and the local chat server are stopped;
 *  4. the store is closed (WAL checkpointed).
 * Whatever still runs after `timeoutMs` is abandoned: the process exits anyway (every write is a
 * transaction, so this is as safe as a crash, which the crash test covers).
 *
 * MEMO_SHUTDOWN_GRACE_MS (default 3000) and MEMO_SHUTDOWN_TIMEOUT_MS (default 10000) change the bounds.
 */
import type Database from "better-sqlite3";
import { drainRequests, markClosing } from "./inflight";

export interface ShutdownDeps {
  db: Database.Database;
  stopIngest: () => Promise<void>;
  stopScheduler: () => Promise<void>;
  drainPersist: () => Promise<void>;
  /** Resolves when no embedding request is in flight (writes that are embedding finish before the server stops). */
  embedIdle?: () => Promise<void>;
  saveIndex: () => void;
  stopChildren: () => Promise<void>;
  log?: (msg: string) => void;
  exit?: (code: number) => void;
  graceMs?: number;
  timeoutMs?: number;
}

/** Resolves true when `p` settles within `ms`, false otherwise (it keeps running). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((r) => (t = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(t);
  }
}

const envMs = (name: string, dflt: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v >= 0 ? v : dflt;
};

export async function shutdown(deps: ShutdownDeps, signal = "SIGTERM"): Promise<{ ms: number; notes: string[] }> {
  const log = deps.log ?? ((m) => console.log(`[memo] ${m}`));
  const exit = deps.exit ?? ((code) => process.exit(code));
  const graceMs = deps.graceMs ?? envMs("MEMO_SHUTDOWN_GRACE_MS", 3000);
  const timeoutMs = deps.timeoutMs ?? envMs("MEMO_SHUTDOWN_TIMEOUT_MS", 10_000);
  const t0 = Date.now();
  const notes: string[] = [];
  markClosing();
  log(`${signal}: shutting down (in-flight work gets ${graceMs} ms, everything ${timeoutMs} ms)`);
  const hard = setTimeout(() => {
    log(`shutdown did not finish within ${timeoutMs} ms; exiting anyway (${notes.join("; ") || "no detail"})`);
    exit(1);
  }, timeoutMs);
  hard.unref();
  const step = async (what: string, p: Promise<unknown>, ms: number) => {
    if (!(await within(p, ms))) notes.push(`${what}: still running after ${ms} ms, abandoned`);
  };
  try {
    const [requests] = await Promise.all([
      drainRequests(graceMs, 1000),
      step("ingestion", deps.stopIngest(), graceMs + 1000),
      step("background jobs", deps.stopScheduler(), graceMs + 1000),
    ]);
    if (requests.stopped)
      notes.push(
        `${requests.stopped} streaming repl${requests.stopped === 1 ? "y" : "ies"} stopped after the grace period (kept, marked interrupted)`,
      );
    await step("chat persistence", deps.drainPersist(), graceMs);
    if (deps.embedIdle) await step("embedding requests", deps.embedIdle(), graceMs);
    try {
      deps.saveIndex();
    } catch (e) {
      notes.push(
        `ANN index not saved (${e instanceof Error ? e.message : String(e)}); it is rebuilt at the next start`,
      );
    }
    await step("child processes", deps.stopChildren(), 3000);
    try {
      deps.db.close();
    } catch (e) {
      notes.push(`store close: ${e instanceof Error ? e.message : String(e)}`);
    }
  } catch (e) {
    notes.push(`shutdown error: ${e instanceof Error ? e.message : String(e)}`);
  }
  clearTimeout(hard);
  const ms = Date.now() - t0;
  log(`stopped in ${ms} ms${notes.length ? `: ${notes.join("; ")}` : ""}`);
  exit(0);
  return { ms, notes };
}

/**
 * Run `run` on SIGTERM and SIGINT, once. Next's own handler (next start) would exit the process as soon
 * as its HTTP server has closed — possibly in the middle of ours — so it is removed; ours does the whole
 * shutdown and exits. Repeated signals are ignored (Ctrl-C reaches the process twice: from the terminal
 * and forwarded by scripts/start.mjs); the shutdown's own time limit bounds it.
 */
export function onShutdownSignal(run: (signal: string) => Promise<unknown>): void {
  let started = false;
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    if (!process.env.MEMO_KEEP_SIGNAL_HANDLERS) process.removeAllListeners(sig);
    process.on(sig, () => {
      if (started) return;
      started = true;
      void run(sig);
    });
  }
}
