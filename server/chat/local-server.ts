/**
 * The supervised local chat server (SPEC §8): a child process on its own loopback port serving a GGUF chat
 * model through llama.cpp and speaking the OpenAI chat-completions API. A native `llama-server` is used
 * when MEMO_LLAMA_SERVER points at one; otherwise server/chat/llama-chat-main.ts on node-llama-cpp.
 * Like the embedding server's supervisor: health-checked on an interval, killed when it hangs, restarted
 * with exponential backoff when it dies, and it dies with the app (its stdin is a pipe from us; native
 * servers are killed on exit).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";

export type LocalServerState = "stopped" | "starting" | "ready" | "restarting" | "failed";

export interface LocalServerStatus {
  state: LocalServerState;
  modelPath: string;
  model: string;
  engine: string | null;
  baseUrl: string | null;
  pid: number | null;
  restarts: number;
  lastError: string | null;
}

export interface LocalServerOptions {
  modelPath: string;
  /** Force the Node engine even when MEMO_LLAMA_SERVER is set. */
  preferNode?: boolean;
  threads?: number;
  contextSize?: number;
  healthIntervalMs?: number;
  healthTimeoutMs?: number;
  maxHealthFailures?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** How long loading the model may take before the process is killed and retried. */
  startTimeoutMs?: number;
  /** After this many failed starts in a row, give up (state "failed") until start() is called again. */
  maxStartFailures?: number;
  log?: (msg: string) => void;
}

export class LocalServerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LocalServerUnavailableError";
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A native llama-server to use for chat: MEMO_LLAMA_SERVER only (an explicit choice). */
export function nativeLlamaServer(): string | undefined {
  const p = process.env.MEMO_LLAMA_SERVER;
  return p && fs.existsSync(p) ? p : undefined;
}

export class LocalChatServer {
  private child: ChildProcess | null = null;
  private state: LocalServerState = "stopped";
  private baseUrl: string | null = null;
  private engine: string | null = null;
  private restarts = 0;
  private startFailures = 0;
  private lastError: string | null = null;
  private killReason: string | null = null;
  private healthFailures = 0;
  private backoffMs: number;
  private healthTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private stopping = false;
  private readonly o: Required<Omit<LocalServerOptions, "threads" | "contextSize">> & Pick<LocalServerOptions, "threads" | "contextSize">;

  constructor(options: LocalServerOptions) {
    this.o = {
      preferNode: false,
      healthIntervalMs: 2000,
      healthTimeoutMs: 1500,
      maxHealthFailures: 3,
      backoffMinMs: 250,
      backoffMaxMs: 8000,
      startTimeoutMs: 600_000,
      maxStartFailures: 5,
      log: (m) => console.log(`[chat-server] ${m}`),
      ...options,
      modelPath: path.resolve(options.modelPath),
    };
    this.backoffMs = this.o.backoffMinMs;
  }

  get modelPath(): string {
    return this.o.modelPath;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  status(): LocalServerStatus {
    return {
      state: this.state,
      modelPath: this.o.modelPath,
      model: path.basename(this.o.modelPath).replace(/\.gguf$/i, ""),
      engine: this.engine,
      baseUrl: this.baseUrl,
      pid: this.pid,
      restarts: this.restarts,
      lastError: this.lastError,
    };
  }

  start(): void {
    if (this.state !== "stopped" && this.state !== "failed") return;
    this.stopping = false;
    this.startFailures = 0;
    this.o.log(`serving chat model ${this.o.modelPath}`);
    void this.spawnChild();
  }

  private async spawnChild(): Promise<void> {
    this.state = this.restarts > 0 ? "restarting" : "starting";
    this.healthFailures = 0;
    this.killReason = null;
    this.startedAt = Date.now();
    const env: NodeJS.ProcessEnv = { ...process.env, OMP_WAIT_POLICY: "PASSIVE" };
    const native = this.o.preferNode ? undefined : nativeLlamaServer();
    const threads = this.o.threads ?? (Number(process.env.MEMO_CHAT_THREADS) || undefined);
    const ctx = this.o.contextSize ?? (Number(process.env.MEMO_CHAT_CTX) || undefined);
    let child: ChildProcess;
    if (!fs.existsSync(this.o.modelPath)) {
      this.lastError = `the chat model file ${this.o.modelPath} does not exist`;
      this.state = "failed";
      return;
    }
    if (native) {
      const port = await freePort();
      const args = ["-m", this.o.modelPath, "--host", "127.0.0.1", "--port", String(port), "-c", String(ctx ?? 4096)];
      if (threads) args.push("-t", String(threads));
      child = spawn(native, args, { env, stdio: ["ignore", "pipe", "pipe"] });
      this.baseUrl = `http://127.0.0.1:${port}`;
      this.engine = `native llama-server (${native})`;
    } else {
      const script = path.join(/* turbopackIgnore: true */ process.cwd(), "server", "chat", "llama-chat-main.ts");
      const args = ["--import", "tsx", script, "--port", "0", "--model", this.o.modelPath, "--watch-stdin"];
      if (threads) args.push("--threads", String(threads));
      if (ctx) args.push("--ctx-size", String(ctx));
      child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
      this.baseUrl = null; // learnt from the child's "listening" line
      this.engine = "llama.cpp via node-llama-cpp";
    }
    this.child = child;
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      try {
        const ev = JSON.parse(line) as { event?: string; port?: number; engine?: string };
        if (ev.event === "listening" && ev.port) this.baseUrl = `http://127.0.0.1:${ev.port}`;
        if (ev.event === "ready" && ev.engine) this.engine = ev.engine;
      } catch {
        /* not ours */
      }
    });
    let stderrTail = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    child.stdin?.on("error", () => undefined); // EPIPE from a child that died
    child.on("error", (e) => {
      this.lastError = `could not start the chat server: ${e.message}`;
      // A failed spawn may never emit 'exit': count it as a failed start (else the state stays "starting").
      if (child.pid === undefined && this.child === child) child.emit("exit", null, null);
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      if (this.stopping) {
        this.state = "stopped";
        return;
      }
      const wasReady = this.state === "ready";
      const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
      const cause = this.killReason;
      this.killReason = null;
      const spawnFailed = code === null && signal === null; // emitted by the 'error' handler above
      if (!spawnFailed) this.lastError = `chat server exited (${signal ?? `code ${code}`})${cause ? ` after the supervisor killed it: ${cause}` : tail ? `: ${tail}` : ""}`;
      if (!wasReady) this.startFailures++;
      if (this.startFailures >= this.o.maxStartFailures) {
        this.state = "failed";
        this.o.log(`${this.lastError}; giving up after ${this.startFailures} failed starts`);
        return;
      }
      this.o.log(`${this.lastError}; restarting in ${this.backoffMs} ms`);
      this.scheduleRestart();
    });
    this.ensureHealthTimer();
  }

  private scheduleRestart(): void {
    this.state = "restarting";
    if (this.restartTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.o.backoffMaxMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.restarts++;
      void this.spawnChild();
    }, delay);
    this.restartTimer.unref();
  }

  private ensureHealthTimer(): void {
    if (this.healthTimer) return;
    const tick = async () => {
      if (this.stopping) return;
      await this.checkHealth();
      if (!this.stopping) {
        this.healthTimer = setTimeout(tick, this.state === "ready" ? this.o.healthIntervalMs : 100);
        this.healthTimer.unref();
      }
    };
    this.healthTimer = setTimeout(tick, 50);
    this.healthTimer.unref();
  }

  private async checkHealth(): Promise<void> {
    const child = this.child;
    if (!child || !this.baseUrl) return;
    let ok = false;
    try {
      const res = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(this.o.healthTimeoutMs) });
      ok = res.ok;
    } catch {
      ok = false;
    }
    if (child !== this.child) return;
    if (ok) {
      if (this.state !== "ready") {
        this.state = "ready";
        this.startFailures = 0;
        this.o.log(`ready: ${path.basename(this.o.modelPath)} via ${this.engine} at ${this.baseUrl}`);
      }
      this.healthFailures = 0;
      if (Date.now() - this.startedAt > 30_000) this.backoffMs = this.o.backoffMinMs;
      return;
    }
    if (this.state === "ready") {
      this.healthFailures++;
      if (this.healthFailures >= this.o.maxHealthFailures) {
        this.lastError = `chat server stopped answering /health (${this.healthFailures} checks)`;
        this.o.log(`${this.lastError}; killing it`);
        this.killChild(this.lastError);
      }
    } else if (Date.now() - this.startedAt > this.o.startTimeoutMs) {
      // Also while /health answers 503 (loading): a load that never ends is a failed start.
      this.lastError = `chat server did not become healthy within ${this.o.startTimeoutMs} ms`;
      this.killChild(this.lastError);
    }
  }

  private killChild(reason: string): void {
    const c = this.child;
    if (!c) return;
    this.killReason = reason;
    this.state = "restarting";
    try {
      c.kill("SIGKILL");
    } catch {
      /* already gone */
    }
  }

  /** Resolve with the base URL once healthy; wait up to waitMs, then fail with a clear error. */
  async ensureHealthy(waitMs = 30_000, signal?: AbortSignal): Promise<string> {
    if (this.state === "ready" && this.baseUrl) return this.baseUrl;
    if (this.state === "stopped" || this.state === "failed") this.start();
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline && !signal?.aborted) {
      if (this.state === "ready" && this.baseUrl) return this.baseUrl;
      if (this.state === "failed") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const what = this.state === "starting" || this.state === "restarting" ? "is still loading the model" : `is ${this.state}`;
    throw new LocalServerUnavailableError(
      `The local chat server (${path.basename(this.o.modelPath)}) ${what}${this.lastError ? `: ${this.lastError}` : ""}.`,
    );
  }

  /** A request failed at the transport level: check health now instead of at the next tick. */
  reportFailure(): void {
    void this.checkHealth();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.healthTimer) clearTimeout(this.healthTimer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.healthTimer = this.restartTimer = null;
    const c = this.child;
    if (!c) {
      this.state = "stopped";
      return;
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        try {
          c.kill("SIGKILL");
        } catch {
          /* gone */
        }
      }, 2000);
      c.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      c.kill("SIGTERM");
    });
    this.child = null;
    this.state = "stopped";
  }
}

const g = globalThis as unknown as { __memoChatServer?: LocalChatServer; __memoChatServerExitHook?: boolean };

/** The process-wide local chat server for this model (restarted on another model when the setting changes). */
export function getLocalChatServer(modelPath: string): LocalChatServer {
  const want = path.resolve(modelPath);
  const cur = g.__memoChatServer;
  if (cur && cur.modelPath !== want) {
    void cur.stop();
    g.__memoChatServer = undefined;
  }
  if (!g.__memoChatServer) {
    g.__memoChatServer = new LocalChatServer({ modelPath: want });
    g.__memoChatServer.start();
    if (!g.__memoChatServerExitHook) {
      g.__memoChatServerExitHook = true;
      process.once("exit", () => {
        const pid = g.__memoChatServer?.pid;
        if (pid) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone */
          }
        }
      });
    }
  }
  return g.__memoChatServer;
}

/** The running local chat server, if one was started. */
export function currentLocalChatServer(): LocalChatServer | undefined {
  return g.__memoChatServer;
}

export async function stopLocalChatServer(): Promise<void> {
  const cur = g.__memoChatServer;
  g.__memoChatServer = undefined;
  await cur?.stop();
}
