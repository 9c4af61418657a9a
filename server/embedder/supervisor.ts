import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { embedPort } from "../config";
import { chooseEmbeddingModel, embedThreads, findLlamaServer, type EmbeddingModelChoice } from "./models";

export type EmbedderState = "stopped" | "starting" | "ready" | "restarting" | "failed";

export interface EmbedderStatus {
  status: EmbedderState;
  model: string | null;
  dim: number | null;
  engine: string | null;
  baseUrl: string | null;
  pid: number | null;
  restarts: number;
  lastError: string | null;
  /** Why this model was chosen (e.g. the offline fallback and how to get the real one). */
  modelReason: string | null;
  fallback: boolean;
}

export class EmbedderUnavailableError extends Error {
  readonly code = "EMBEDDER_UNAVAILABLE";
  constructor(message: string) {
    super(message);
    this.name = "EmbedderUnavailableError";
  }
}

export interface SupervisorOptions {
  /** Model to serve; default: chooseEmbeddingModel(). */
  choice?: EmbeddingModelChoice;
  /** Force the Node engine even when a native llama-server exists. */
  preferNode?: boolean;
  healthIntervalMs?: number;
  healthTimeoutMs?: number;
  /** Consecutive failed health checks after which a running server counts as hung and is killed. */
  maxHealthFailures?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** How long a started process may take to load its model before it is killed and retried. */
  startTimeoutMs?: number;
  log?: (msg: string) => void;
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

/**
 * Spawns the embedding server as a child process and keeps it alive: health-checked on an interval,
 * killed when it hangs, restarted with exponential backoff when it dies. Writers call ensureHealthy()
 * first, which waits briefly for a restart and otherwise fails with a clear error.
 */
export class EmbedderSupervisor {
  private child: ChildProcess | null = null;
  private state: EmbedderState = "stopped";
  private baseUrl: string | null = null;
  private model: string | null = null;
  private dim: number | null = null;
  private engine: string | null = null;
  private restarts = 0;
  private lastError: string | null = null;
  /** Why the supervisor itself killed the current child (kept in lastError when it exits). */
  private killReason: string | null = null;
  private healthFailures = 0;
  private backoffMs: number;
  private healthTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private waiters = new Set<() => void>();
  private stopping = false;
  private readonly opts: Required<Omit<SupervisorOptions, "choice" | "log">> & { log: (m: string) => void };
  private readonly choice: EmbeddingModelChoice;

  constructor(options: SupervisorOptions = {}) {
    this.choice = options.choice ?? chooseEmbeddingModel();
    this.opts = {
      preferNode: options.preferNode ?? false,
      healthIntervalMs: options.healthIntervalMs ?? 2000,
      healthTimeoutMs: options.healthTimeoutMs ?? 1500,
      maxHealthFailures: options.maxHealthFailures ?? 2,
      backoffMinMs: options.backoffMinMs ?? 250,
      backoffMaxMs: options.backoffMaxMs ?? 4000,
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      log: options.log ?? ((m) => console.log(`[embedder] ${m}`)),
    };
    this.backoffMs = this.opts.backoffMinMs;
  }

  status(): EmbedderStatus {
    return {
      status: this.state,
      model: this.model,
      dim: this.dim,
      engine: this.engine,
      baseUrl: this.baseUrl,
      pid: this.child?.pid ?? null,
      restarts: this.restarts,
      lastError: this.lastError,
      modelReason: this.choice.reason,
      fallback: this.choice.kind === "use-lite",
    };
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): void {
    if (this.state !== "stopped" && this.state !== "failed") return;
    this.stopping = false;
    this.opts.log(
      this.choice.kind === "gguf"
        ? `serving GGUF ${this.choice.path} (${this.choice.reason})`
        : `serving the bundled Universal Sentence Encoder lite: ${this.choice.reason}`,
    );
    void this.spawnChild();
  }

  private async spawnChild(): Promise<void> {
    this.state = this.restarts > 0 ? "restarting" : "starting";
    this.healthFailures = 0;
    this.killReason = null;
    this.startedAt = Date.now();
    const env: NodeJS.ProcessEnv = { ...process.env, OMP_WAIT_POLICY: "PASSIVE" };
    const native = this.choice.kind === "gguf" && !this.opts.preferNode ? findLlamaServer() : undefined;
    let child: ChildProcess;
    if (native && this.choice.kind === "gguf") {
      const port = embedPort() || (await freePort());
      const ctx = process.env.MEMO_EMBED_CTX ?? "2048";
      child = spawn(
        native,
        ["-m", this.choice.path, "--embeddings", "--host", "127.0.0.1", "--port", String(port),
         "-c", ctx, "-b", ctx, "-ub", ctx, "-t", String(embedThreads()), "-tb", String(embedThreads())],
        { env, stdio: ["ignore", "pipe", "pipe"] },
      );
      this.baseUrl = `http://127.0.0.1:${port}`;
      this.engine = `native llama-server (${native})`;
    } else {
      const script = path.join(/* turbopackIgnore: true */ process.cwd(), "server", "embedder", "main.ts");
      const args = ["--import", "tsx", script, "--port", String(embedPort()), "--watch-stdin"];
      if (this.choice.kind === "gguf") args.push("--model", this.choice.path);
      if (process.env.MEMO_EMBED_THREADS) args.push("--threads", process.env.MEMO_EMBED_THREADS);
      if (process.env.MEMO_EMBED_CTX) args.push("--ctx-size", process.env.MEMO_EMBED_CTX);
      child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
      this.baseUrl = null; // learnt from the child's "listening" line
    }
    this.child = child;
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on("line", (line) => {
      if (!line.startsWith("{")) return;
      try {
        const ev = JSON.parse(line) as { event?: string; port?: number; model?: string; dim?: number; engine?: string };
        if (ev.event === "listening" && ev.port) this.baseUrl = `http://127.0.0.1:${ev.port}`;
        if (ev.event === "ready") this.engine = ev.engine ?? this.engine;
      } catch {
        /* not ours */
      }
    });
    let stderrTail = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    child.on("error", (e) => {
      this.lastError = `could not start the embedding server: ${e.message}`;
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      if (this.stopping) {
        this.state = "stopped";
        return;
      }
      const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
      const cause = this.killReason;
      this.killReason = null;
      this.lastError = `embedding server exited (${signal ?? `code ${code}`})${
        cause ? ` after the supervisor killed it: ${cause}` : tail ? `: ${tail}` : ""
      }`;
      this.opts.log(`${this.lastError}; restarting in ${this.backoffMs} ms`);
      this.scheduleRestart();
    });
    this.ensureHealthTimer();
  }

  private scheduleRestart(): void {
    this.state = "restarting";
    this.baseUrl = this.baseUrl && this.child ? this.baseUrl : null;
    if (this.restartTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.backoffMaxMs);
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
        // Poll quickly until ready, then at the configured interval.
        this.healthTimer = setTimeout(tick, this.state === "ready" ? this.opts.healthIntervalMs : 100);
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
    let loading = false;
    try {
      const res = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(this.opts.healthTimeoutMs) });
      ok = res.ok;
      loading = res.status === 503;
    } catch {
      ok = false;
    }
    if (child !== this.child) return;
    if (ok) {
      if (this.state !== "ready") await this.learnModel();
      if (this.state !== "ready") {
        this.state = "ready";
        this.opts.log(`ready: ${this.model} (${this.dim}-d) via ${this.engine} at ${this.baseUrl}`);
      }
      this.healthFailures = 0;
      if (Date.now() - this.startedAt > 30_000) this.backoffMs = this.opts.backoffMinMs;
      for (const w of this.waiters) w();
      return;
    }
    if (this.state === "ready") {
      this.healthFailures++;
      if (this.healthFailures >= this.opts.maxHealthFailures) {
        this.lastError = `embedding server stopped answering /health (${this.healthFailures} checks)`;
        this.opts.log(`${this.lastError}; killing it`);
        this.killChild(this.lastError);
      }
    } else if (!loading && Date.now() - this.startedAt > this.opts.startTimeoutMs) {
      this.lastError = `embedding server did not become healthy within ${this.opts.startTimeoutMs} ms`;
      this.killChild(this.lastError);
    }
  }

  private async learnModel(): Promise<void> {
    try {
      const res = await fetch(`${this.baseUrl}/v1/models`, { signal: AbortSignal.timeout(this.opts.healthTimeoutMs) });
      const body = (await res.json()) as { data?: { id: string; meta?: { n_embd?: number } }[] };
      const m = body.data?.[0];
      if (m) {
        this.model = path.basename(m.id).replace(/\.gguf$/i, "");
        this.dim = m.meta?.n_embd ?? this.dim;
      }
    } catch {
      /* dim is learnt from the first embedding then */
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
  async ensureHealthy(waitMs = 10_000): Promise<string> {
    if (this.state === "ready" && this.baseUrl) return this.baseUrl;
    if (this.state === "stopped") this.start();
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (this.state === "ready" && this.baseUrl) return this.baseUrl;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(200, Math.max(1, deadline - Date.now())));
        this.waiters.add(() => {
          clearTimeout(t);
          resolve();
        });
      });
      this.waiters.clear();
    }
    throw new EmbedderUnavailableError(
      `The embedding server is not available (${this.state}${this.lastError ? `: ${this.lastError}` : ""}). Nothing was written; try again shortly.`,
    );
  }

  /** A call to the embedder failed at the transport level: check health now instead of at the next tick. */
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

const g = globalThis as unknown as { __memoEmbedder?: EmbedderSupervisor; __memoEmbedderExitHook?: boolean };

/** The process-wide supervisor (started lazily). */
export function getEmbedder(): EmbedderSupervisor {
  if (!g.__memoEmbedder) {
    g.__memoEmbedder = new EmbedderSupervisor();
    g.__memoEmbedder.start();
    if (!g.__memoEmbedderExitHook) {
      g.__memoEmbedderExitHook = true;
      process.once("exit", () => {
        const pid = g.__memoEmbedder?.pid;
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
  return g.__memoEmbedder;
}

export function setEmbedder(s: EmbedderSupervisor | undefined): void {
  g.__memoEmbedder = s;
}
