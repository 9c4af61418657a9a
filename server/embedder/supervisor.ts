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
  /**
   * After this many failed starts in a row (exited, could not be spawned, or timed out before it was
   * ready), give up: state "failed", writes fail at once with the reason. A later ensureHealthy() tries
   * again, at most every `retryFailedAfterMs`.
   */
  maxStartFailures?: number;
  retryFailedAfterMs?: number;
  /**
   * Run this Node script instead of server/embedder/main.ts (same command line: --port, --watch-stdin,
   * --model; same {"event":"listening"} line). Tests point it at a test double under server/test/.
   */
  script?: string;
  /** Extra arguments for `script`. */
  scriptArgs?: string[];
  /** The program that runs the script (default: this Node); tests give a missing one to see a spawn error. */
  nodePath?: string;
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
  /** Consecutive starts that ended before the child was ready. */
  private startFailures = 0;
  /** Whether the current child has been ready (answered /health) at least once. */
  private childReady = false;
  private failedAt = 0;
  /** A caller saw a transport error: do not hand out the URL until a health check passes again. */
  private suspect = false;
  private checking: Promise<void> | null = null;
  private readonly opts: Required<Omit<SupervisorOptions, "choice" | "log" | "script" | "scriptArgs" | "nodePath">> & {
    log: (m: string) => void;
    script?: string;
    scriptArgs?: string[];
    nodePath?: string;
  };
  private choice: EmbeddingModelChoice;

  constructor(options: SupervisorOptions = {}) {
    this.choice = options.choice ?? chooseEmbeddingModel();
    this.opts = {
      preferNode: options.preferNode ?? false,
      healthIntervalMs: options.healthIntervalMs ?? 1000,
      healthTimeoutMs: options.healthTimeoutMs ?? 1500,
      maxHealthFailures: options.maxHealthFailures ?? 2,
      backoffMinMs: options.backoffMinMs ?? 250,
      // At most 2 s between a death and the next start: with the model's load time the server is back
      // within ~3 s (measured with USE-lite); maxStartFailures bounds a crash loop instead.
      backoffMaxMs: options.backoffMaxMs ?? 2000,
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      maxStartFailures: options.maxStartFailures ?? 5,
      retryFailedAfterMs: options.retryFailedAfterMs ?? 30_000,
      script: options.script,
      scriptArgs: options.scriptArgs,
      nodePath: options.nodePath,
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
    this.startFailures = 0;
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
    this.childReady = false;
    this.suspect = false;
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
      const script = this.opts.script ?? path.join(/* turbopackIgnore: true */ process.cwd(), "server", "embedder", "main.ts");
      const args = ["--import", "tsx", script, "--port", String(embedPort()), "--watch-stdin"];
      if (this.choice.kind === "gguf") args.push("--model", this.choice.path);
      if (process.env.MEMO_EMBED_THREADS) args.push("--threads", process.env.MEMO_EMBED_THREADS);
      if (process.env.MEMO_EMBED_CTX) args.push("--ctx-size", process.env.MEMO_EMBED_CTX);
      if (this.opts.scriptArgs) args.push(...this.opts.scriptArgs);
      child = spawn(this.opts.nodePath ?? process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
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
    // A stdin pipe to a child that died is an EPIPE here, not a crash of the app.
    child.stdin?.on("error", () => undefined);
    child.on("error", (e) => {
      // A spawn that failed (missing or non-executable program) emits 'error' and may never emit 'exit':
      // treat it as a failed start, or the state would stay "starting" for good.
      this.lastError = `could not start the embedding server: ${e.message}`;
      if (child.pid === undefined && this.child === child) this.childGone(child, this.lastError);
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
      const cause = this.killReason;
      this.childGone(
        child,
        `embedding server exited (${signal ?? `code ${code}`})${cause ? ` after the supervisor killed it: ${cause}` : tail ? `: ${tail}` : ""}`,
      );
    });
    this.ensureHealthTimer();
  }

  /** The current child is gone (exited, or never started): restart it with backoff, or give up. */
  private childGone(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    this.killReason = null;
    if (this.stopping) {
      this.state = "stopped";
      return;
    }
    this.lastError = why;
    if (!this.childReady) this.startFailures++;
    if (this.startFailures >= this.opts.maxStartFailures) {
      this.state = "failed";
      this.failedAt = Date.now();
      this.baseUrl = null;
      this.opts.log(`${why}; giving up after ${this.startFailures} failed starts in a row`);
      for (const w of this.waiters) w();
      return;
    }
    this.opts.log(`${why}; restarting in ${this.backoffMs} ms`);
    this.scheduleRestart();
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
        // Poll quickly until ready (or while a ready server is failing checks), then at the configured interval.
        const settled = this.state === "ready" && this.healthFailures === 0;
        this.healthTimer = setTimeout(tick, settled ? this.opts.healthIntervalMs : 100);
        this.healthTimer.unref();
      }
    };
    this.healthTimer = setTimeout(tick, 50);
    this.healthTimer.unref();
  }

  /** One health check at a time (the timer, reportFailure() and ensureHealthy() may all ask at once). */
  private checkHealth(): Promise<void> {
    this.checking ??= this.checkHealthOnce().finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkHealthOnce(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (!this.baseUrl) {
      // Not even listening yet: the start timeout applies all the same.
      if (this.state !== "ready" && Date.now() - this.startedAt > this.opts.startTimeoutMs) {
        this.lastError = `embedding server did not start listening within ${this.opts.startTimeoutMs} ms`;
        this.killChild(this.lastError);
      }
      return;
    }
    let ok = false;
    try {
      const res = await fetch(`${this.baseUrl}/health`, { signal: AbortSignal.timeout(this.opts.healthTimeoutMs) });
      ok = res.ok;
      await res.body?.cancel();
    } catch {
      ok = false;
    }
    if (child !== this.child) return;
    if (ok) {
      if (this.state !== "ready") await this.learnModel();
      if (child !== this.child) return;
      if (this.state !== "ready") {
        this.state = "ready";
        this.childReady = true;
        this.startFailures = 0;
        this.opts.log(`ready: ${this.model} (${this.dim}-d) via ${this.engine} at ${this.baseUrl}`);
      }
      this.healthFailures = 0;
      this.suspect = false;
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
    } else if (Date.now() - this.startedAt > this.opts.startTimeoutMs) {
      // Also while /health answers 503 ("loading"): a model that never finishes loading is a failed start.
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

  /** Ready, and nothing suggests it stopped answering since its last health check. */
  private healthy(): boolean {
    return this.state === "ready" && this.baseUrl !== null && this.healthFailures === 0 && !this.suspect;
  }

  /**
   * Resolve with the base URL once healthy; wait up to waitMs, then fail with a clear error. A server
   * that failed its last health check, or that a caller just found not answering, is not handed out
   * until a check passes again (or it is replaced). In state "failed" this fails at once.
   */
  async ensureHealthy(waitMs = 10_000): Promise<string> {
    if (this.healthy()) return this.baseUrl!;
    if (this.state === "stopped") this.start();
    if (this.state === "failed" && Date.now() - this.failedAt >= this.opts.retryFailedAfterMs) {
      this.opts.log("trying to start the embedding server again");
      this.start();
    }
    if (this.state === "ready") void this.checkHealth(); // suspect: check now rather than at the next tick
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline && this.state !== "failed") {
      if (this.healthy()) return this.baseUrl!;
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

  /**
   * Serve another model (the first-start download finished): stop the current server and start one on
   * `choice`. Writes meanwhile wait in ensureHealthy() as they do for a restart.
   */
  async switchModel(choice: EmbeddingModelChoice): Promise<void> {
    // The new choice first: a write that finds the server stopped starts it on the new model, not the old.
    this.choice = choice;
    await this.stop();
    if (this.state !== "stopped") return; // already restarted (on `choice`) by a waiting caller
    this.model = this.dim = this.engine = this.lastError = null;
    this.restarts = 0;
    this.backoffMs = this.opts.backoffMinMs;
    this.start();
  }

  /** A call to the embedder failed at the transport level: check health now instead of at the next tick. */
  reportFailure(): void {
    if (this.state === "ready") this.suspect = true;
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
