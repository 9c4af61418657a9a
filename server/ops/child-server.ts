/**
 * One supervised child server process (the embedding server, the local chat server): spawned on a
 * loopback port, health-checked on an interval, killed when it hangs, restarted with exponential backoff
 * when it dies, given up on (state "failed") after a run of failed starts, and tied to this process (a
 * stdin pipe the child watches; killOnExit in ./child-process for the rest). Its users add what is
 * theirs: the command line, the status shape, and the error a caller sees when it is not available.
 */
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";
import { terminate } from "./child-process";

export type ChildServerState = "stopped" | "starting" | "ready" | "restarting" | "failed";

/** How to run the next start. */
export interface ChildLaunch {
  command: string;
  args: string[];
  /** "pipe" for a child that exits when its stdin closes (--watch-stdin); "ignore" for one that does not. */
  stdin: "pipe" | "ignore";
  /** Known up front (a port picked here), or null: learnt from the child's {"event":"listening","port"} line. */
  baseUrl: string | null;
  /** What serves it; undefined keeps the last known. The child's {"event":"ready","engine"} line updates it. */
  engine?: string;
}

/** The supervision settings its users take as options (each with its own defaults). */
export interface ChildServerTuning {
  healthIntervalMs?: number;
  healthTimeoutMs?: number;
  /** Consecutive failed health checks after which a ready child counts as hung and is killed. */
  maxHealthFailures?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** How long a started child may take to listen and answer /health (load its model) before it is killed and retried. */
  startTimeoutMs?: number;
  /** After this many starts in a row that ended before the child was ready, give up (state "failed"). */
  maxStartFailures?: number;
  log?: (msg: string) => void;
}

export interface ChildServerOptions extends Required<ChildServerTuning> {
  /** What logs and errors call it: "embedding server", "chat server". */
  name: string;
  /**
   * The command line for the next start. Throwing fails the start at once with that message (e.g. no
   * model file). Return it directly when nothing needs waiting for: the child is then spawned (and its
   * pid known) before start() returns.
   */
  launch: () => ChildLaunch | Promise<ChildLaunch>;
  /** The log line when start() starts it. */
  startMessage: () => string;
  /** Who is ready, for the "ready: <label> via <engine> at <url>" line. */
  readyLabel: () => string;
  /** Runs when a new child first passes /health, before it counts as ready (e.g. ask which model it serves). */
  beforeReady?: (baseUrl: string) => Promise<void>;
}

export class ChildServer {
  private child: ChildProcess | null = null;
  private _state: ChildServerState = "stopped";
  private _baseUrl: string | null = null;
  private _engine: string | null = null;
  private _restarts = 0;
  private _lastError: string | null = null;
  private _failedAt = 0;
  /** Why this supervisor killed the current child (kept in lastError when it exits). */
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
  /** A caller saw a transport error: do not hand out the URL until a health check passes again. */
  private suspect = false;
  private checking: Promise<void> | null = null;
  /** Bumped by each spawn and by stop(): a launch prepared for an older one is dropped. */
  private generation = 0;

  constructor(private readonly o: ChildServerOptions) {
    this.backoffMs = o.backoffMinMs;
  }

  get state(): ChildServerState {
    return this._state;
  }
  get baseUrl(): string | null {
    return this._baseUrl;
  }
  get engine(): string | null {
    return this._engine;
  }
  get restarts(): number {
    return this._restarts;
  }
  get lastError(): string | null {
    return this._lastError;
  }
  /** When it last went to state "failed" (ms since the epoch). */
  get failedAt(): number {
    return this._failedAt;
  }
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Start it unless it is already running (or starting). */
  start(): void {
    if (this._state !== "stopped" && this._state !== "failed") return;
    this.stopping = false;
    this.startFailures = 0;
    this.o.log(this.o.startMessage());
    void this.spawnChild();
  }

  /** Forget the last run (restarts, backoff, engine, last error) before serving something else. */
  reset(): void {
    this._engine = this._lastError = null;
    this._restarts = 0;
    this.backoffMs = this.o.backoffMinMs;
  }

  private async spawnChild(): Promise<void> {
    this._state = this._restarts > 0 ? "restarting" : "starting";
    this.healthFailures = 0;
    this.killReason = null;
    this.childReady = false;
    this.suspect = false;
    this.startedAt = Date.now();
    const generation = ++this.generation;
    let launch: ChildLaunch;
    try {
      const next = this.o.launch();
      launch = next instanceof Promise ? await next : next;
    } catch (e) {
      if (generation !== this.generation) return;
      this._lastError = e instanceof Error ? e.message : String(e);
      this.fail();
      return;
    }
    if (generation !== this.generation || this.stopping) return; // stop() (or another start) came meanwhile
    const env: NodeJS.ProcessEnv = { ...process.env, OMP_WAIT_POLICY: "PASSIVE" };
    const child = spawn(launch.command, launch.args, { env, stdio: [launch.stdin, "pipe", "pipe"] });
    this._baseUrl = launch.baseUrl;
    if (launch.engine !== undefined) this._engine = launch.engine;
    this.child = child;
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      try {
        const ev = JSON.parse(line) as { event?: string; port?: number; engine?: string };
        if (ev.event === "listening" && ev.port) this._baseUrl = `http://127.0.0.1:${ev.port}`;
        if (ev.event === "ready" && ev.engine) this._engine = ev.engine;
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
      this._lastError = `could not start the ${this.o.name}: ${e.message}`;
      if (child.pid === undefined && this.child === child) this.childGone(child, this._lastError);
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      const tail = stderrTail.trim().split("\n").slice(-3).join(" | ");
      const cause = this.killReason;
      this.childGone(
        child,
        `${this.o.name} exited (${signal ?? `code ${code}`})${cause ? ` after the supervisor killed it: ${cause}` : tail ? `: ${tail}` : ""}`,
      );
    });
    this.ensureHealthTimer();
  }

  private fail(): void {
    this._state = "failed";
    this._failedAt = Date.now();
    this._baseUrl = null;
    for (const w of this.waiters) w();
  }

  /** The current child is gone (exited, or never started): restart it with backoff, or give up. */
  private childGone(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    this.killReason = null;
    if (this.stopping) {
      this._state = "stopped";
      return;
    }
    this._lastError = why;
    if (!this.childReady) this.startFailures++;
    if (this.startFailures >= this.o.maxStartFailures) {
      this.o.log(`${why}; giving up after ${this.startFailures} failed starts in a row`);
      this.fail();
      return;
    }
    this.o.log(`${why}; restarting in ${this.backoffMs} ms`);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    this._state = "restarting";
    this._baseUrl = null;
    if (this.restartTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.o.backoffMaxMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this._restarts++;
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
        const settled = this._state === "ready" && this.healthFailures === 0;
        this.healthTimer = setTimeout(tick, settled ? this.o.healthIntervalMs : 100);
        this.healthTimer.unref();
      }
    };
    this.healthTimer = setTimeout(tick, 50);
    this.healthTimer.unref();
  }

  /** One health check at a time (the timer, reportFailure() and waitHealthy() may all ask at once). */
  private checkHealth(): Promise<void> {
    this.checking ??= this.checkHealthOnce().finally(() => (this.checking = null));
    return this.checking;
  }

  private async checkHealthOnce(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (!this._baseUrl) {
      // Not even listening yet: the start timeout applies all the same.
      if (this._state !== "ready" && Date.now() - this.startedAt > this.o.startTimeoutMs) {
        this._lastError = `${this.o.name} did not start listening within ${this.o.startTimeoutMs} ms`;
        this.killChild(this._lastError);
      }
      return;
    }
    let ok = false;
    try {
      const res = await fetch(`${this._baseUrl}/health`, { signal: AbortSignal.timeout(this.o.healthTimeoutMs) });
      ok = res.ok;
      await res.body?.cancel();
    } catch {
      ok = false;
    }
    if (child !== this.child) return;
    if (ok) {
      if (this._state !== "ready" && this.o.beforeReady) await this.o.beforeReady(this._baseUrl);
      if (child !== this.child) return;
      if (this._state !== "ready") {
        this._state = "ready";
        this.childReady = true;
        this.startFailures = 0;
        this.o.log(`ready: ${this.o.readyLabel()} via ${this._engine} at ${this._baseUrl}`);
      }
      this.healthFailures = 0;
      this.suspect = false;
      if (Date.now() - this.startedAt > 30_000) this.backoffMs = this.o.backoffMinMs;
      for (const w of this.waiters) w();
      return;
    }
    if (this._state === "ready") {
      this.healthFailures++;
      if (this.healthFailures >= this.o.maxHealthFailures) {
        this._lastError = `${this.o.name} stopped answering /health (${this.healthFailures} checks)`;
        this.o.log(`${this._lastError}; killing it`);
        this.killChild(this._lastError);
      }
    } else if (Date.now() - this.startedAt > this.o.startTimeoutMs) {
      // Also while /health answers 503 ("loading"): a model that never finishes loading is a failed start.
      this._lastError = `${this.o.name} did not become healthy within ${this.o.startTimeoutMs} ms`;
      this.killChild(this._lastError);
    }
  }

  private killChild(reason: string): void {
    const c = this.child;
    if (!c) return;
    this.killReason = reason;
    this._state = "restarting";
    try {
      c.kill("SIGKILL");
    } catch {
      /* already gone */
    }
  }

  /** Ready, and nothing suggests it stopped answering since its last health check. */
  healthy(): boolean {
    return this._state === "ready" && this._baseUrl !== null && this.healthFailures === 0 && !this.suspect;
  }

  /**
   * The base URL once healthy, waiting up to waitMs; null when it is not healthy by then, has failed, or
   * `signal` aborted. A server that failed its last health check, or that a caller just found not
   * answering, is not handed out until a check passes again (or it is replaced).
   */
  async waitHealthy(waitMs: number, signal?: AbortSignal): Promise<string | null> {
    if (this.healthy()) return this._baseUrl;
    if (this._state === "ready") void this.checkHealth(); // suspect: check now rather than at the next tick
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline && this._state !== "failed" && !signal?.aborted) {
      if (this.healthy()) return this._baseUrl;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          this.waiters.delete(wake);
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        const t = setTimeout(wake, Math.min(200, Math.max(1, deadline - Date.now())));
        this.waiters.add(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
    return this.healthy() ? this._baseUrl : null;
  }

  /** A call to the child failed at the transport level: check health now instead of at the next tick. */
  reportFailure(): void {
    if (this._state === "ready") this.suspect = true;
    void this.checkHealth();
  }

  /** SIGTERM the child (SIGKILL after 2 s) and keep it down until start() is called again. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.generation++;
    if (this.healthTimer) clearTimeout(this.healthTimer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.healthTimer = this.restartTimer = null;
    const c = this.child;
    if (!c) {
      this._state = "stopped";
      return;
    }
    await terminate(c);
    this.child = null;
    this._state = "stopped";
  }
}
