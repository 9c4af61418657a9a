import path from "node:path";
import { embedPort } from "../core/config";
import type { EmbedderStatus } from "../core/context";
import { EmbedderUnavailableError } from "../core/errors";
import { freePort, killOnExit } from "../ops/child-process";
import { ChildServer, type ChildLaunch, type ChildServerTuning } from "../ops/child-server";
import { chooseEmbeddingModel, embedThreads, findLlamaServer, type EmbeddingModelChoice } from "./models";

export type { EmbedderState, EmbedderStatus } from "../core/context";

export { EmbedderUnavailableError } from "../core/errors";

/**
 * Also the supervision settings (ChildServerTuning). After maxStartFailures failed starts in a row
 * (exited, could not be spawned, or timed out before it was ready) it gives up: state "failed", writes
 * fail at once with the reason. A later ensureHealthy() tries again, at most every `retryFailedAfterMs`.
 */
export interface SupervisorOptions extends ChildServerTuning {
  /** Model to serve; default: chooseEmbeddingModel(). */
  choice?: EmbeddingModelChoice;
  /** Force the Node engine even when a native llama-server exists. */
  preferNode?: boolean;
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
}

function nativeLaunch(native: string, model: string, port: number): ChildLaunch {
  return {
    command: native,
    args: llamaServerArgs(model, port, process.env.MEMO_EMBED_CTX ?? "2048", embedThreads()),
    stdin: "ignore",
    baseUrl: `http://127.0.0.1:${port}`,
    engine: `native llama-server (${native})`,
  };
}

/** llama-server's command line as an embedding server on loopback: context and batches of `ctx` tokens. */
export function llamaServerArgs(model: string, port: number, ctx: string, threads: number): string[] {
  const t = String(threads);
  return [
    ...["-m", model, "--embeddings", "--host", "127.0.0.1", "--port", String(port)],
    ...["-c", ctx, "-b", ctx, "-ub", ctx, "-t", t, "-tb", t],
  ];
}

/**
 * Spawns the embedding server as a child process and keeps it alive (server/ops/child-server.ts):
 * health-checked on an interval, killed when it hangs, restarted with exponential backoff when it dies.
 * Writers call ensureHealthy() first, which waits briefly for a restart and otherwise fails with a clear error.
 */
export class EmbedderSupervisor {
  private readonly server: ChildServer;
  private model: string | null = null;
  private dim: number | null = null;
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
    this.server = new ChildServer({
      ...this.opts,
      name: "embedding server",
      launch: () => this.launch(),
      startMessage: () =>
        this.choice.kind === "gguf"
          ? `serving GGUF ${this.choice.path} (${this.choice.reason})`
          : `serving the bundled Universal Sentence Encoder lite: ${this.choice.reason}`,
      readyLabel: () => `${this.model} (${this.dim}-d)`,
      beforeReady: (baseUrl) => this.learnModel(baseUrl),
    });
  }

  status(): EmbedderStatus {
    const s = this.server;
    return {
      status: s.state,
      model: this.model,
      dim: this.dim,
      engine: s.engine,
      baseUrl: s.baseUrl,
      pid: s.pid,
      restarts: s.restarts,
      lastError: s.lastError,
      modelReason: this.choice.reason,
      fallback: this.choice.kind === "use-lite",
    };
  }

  get pid(): number | null {
    return this.server.pid;
  }

  start(): void {
    this.server.start();
  }

  /** The command line: a native llama-server for a GGUF when there is one, else server/embedder/main.ts. */
  private launch(): ChildLaunch | Promise<ChildLaunch> {
    const native = this.choice.kind === "gguf" && !this.opts.preferNode ? findLlamaServer() : undefined;
    if (native && this.choice.kind === "gguf") {
      const model = this.choice.path;
      const port = embedPort();
      return port ? nativeLaunch(native, model, port) : freePort().then((p) => nativeLaunch(native, model, p));
    }
    const script =
      this.opts.script ?? path.join(/* turbopackIgnore: true */ process.cwd(), "server", "embedder", "main.ts");
    const args = ["--import", "tsx", script, "--port", String(embedPort()), "--watch-stdin"];
    if (this.choice.kind === "gguf") args.push("--model", this.choice.path);
    if (process.env.MEMO_EMBED_THREADS) args.push("--threads", process.env.MEMO_EMBED_THREADS);
    if (process.env.MEMO_EMBED_CTX) args.push("--ctx-size", process.env.MEMO_EMBED_CTX);
    if (this.opts.scriptArgs) args.push(...this.opts.scriptArgs);
    return { command: this.opts.nodePath ?? process.execPath, args, stdin: "pipe", baseUrl: null };
  }

  private async learnModel(baseUrl: string): Promise<void> {
    try {
      const res = await fetch(`${baseUrl}/v1/models`, { signal: AbortSignal.timeout(this.opts.healthTimeoutMs) });
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

  /**
   * Resolve with the base URL once healthy; wait up to waitMs, then fail with a clear error. A server
   * that failed its last health check, or that a caller just found not answering, is not handed out
   * until a check passes again (or it is replaced). In state "failed" this fails at once.
   */
  async ensureHealthy(waitMs = 10_000): Promise<string> {
    const s = this.server;
    if (s.healthy()) return s.baseUrl!;
    if (s.state === "stopped") this.start();
    if (s.state === "failed" && Date.now() - s.failedAt >= this.opts.retryFailedAfterMs) {
      this.opts.log("trying to start the embedding server again");
      this.start();
    }
    const url = await s.waitHealthy(waitMs);
    if (url) return url;
    throw new EmbedderUnavailableError(
      `The embedding server is not available (${s.state}${s.lastError ? `: ${s.lastError}` : ""}). Nothing was written; try again shortly.`,
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
    if (this.server.state !== "stopped") return; // already restarted (on `choice`) by a waiting caller
    this.model = this.dim = null;
    this.server.reset();
    this.start();
  }

  /** A call to the embedder failed at the transport level: check health now instead of at the next tick. */
  reportFailure(): void {
    this.server.reportFailure();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

const g = globalThis as unknown as { __memoEmbedder?: EmbedderSupervisor };

/** The process-wide supervisor (started lazily). */
export function getEmbedder(): EmbedderSupervisor {
  if (!g.__memoEmbedder) {
    g.__memoEmbedder = new EmbedderSupervisor();
    g.__memoEmbedder.start();
    killOnExit("__memoEmbedderExitHook", () => g.__memoEmbedder?.pid);
  }
  return g.__memoEmbedder;
}

export function setEmbedder(s: EmbedderSupervisor | undefined): void {
  g.__memoEmbedder = s;
}
