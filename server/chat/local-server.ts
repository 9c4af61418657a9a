/**
 * The supervised local chat server: a child process on its own loopback port serving a GGUF chat model
 * through llama.cpp and speaking the OpenAI chat-completions API. A native `llama-server` is used when
 * MEMO_LLAMA_SERVER points at one; otherwise server/chat/llama-chat-main.ts on node-llama-cpp. Supervised
 * like the embedding server (server/ops/child-server.ts): health-checked on an interval, killed when it
 * hangs, restarted with exponential backoff when it dies, and it dies with the app (its stdin is a pipe
 * from us; native servers are killed on exit).
 */
import fs from "node:fs";
import path from "node:path";
import { freePort, killOnExit } from "../ops/child-process";
import { ggufFileProblem } from "./gguf-file";
import { ChildServer, type ChildLaunch, type ChildServerState, type ChildServerTuning } from "../ops/child-server";

export type LocalServerState = ChildServerState;

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

/** Also the supervision settings (ChildServerTuning); after maxStartFailures it stays "failed" until start() is called again. */
export interface LocalServerOptions extends ChildServerTuning {
  modelPath: string;
  /** Force the Node engine even when MEMO_LLAMA_SERVER is set. */
  preferNode?: boolean;
  threads?: number;
  contextSize?: number;
}

export class LocalServerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LocalServerUnavailableError";
  }
}

/** A native llama-server to use for chat: MEMO_LLAMA_SERVER only (an explicit choice). */
export function nativeLlamaServer(): string | undefined {
  const p = process.env.MEMO_LLAMA_SERVER;
  return p && fs.existsSync(p) ? p : undefined;
}

/**
 * What people see of the supervisor's last error: how the server ended, without the last lines it wrote to
 * stderr (llama.cpp quotes what it read from the model file there; the server log keeps them, for whoever
 * runs the machine).
 */
export function shownError(lastError: string | null): string | null {
  if (lastError === null) return null;
  const exited = /^(.*? exited \([^)]*\))(?:: .*)?$/s.exec(lastError);
  return exited ? `${exited[1]} (the server log says why)` : lastError;
}

export class LocalChatServer {
  private readonly server: ChildServer;
  private readonly o: Required<Omit<LocalServerOptions, "threads" | "contextSize">> &
    Pick<LocalServerOptions, "threads" | "contextSize">;

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
    this.server = new ChildServer({
      ...this.o,
      name: "chat server",
      launch: () => this.launch(),
      startMessage: () => `serving chat model ${this.o.modelPath}`,
      readyLabel: () => path.basename(this.o.modelPath),
    });
  }

  get modelPath(): string {
    return this.o.modelPath;
  }

  get pid(): number | null {
    return this.server.pid;
  }

  status(): LocalServerStatus {
    const s = this.server;
    return {
      state: s.state,
      modelPath: this.o.modelPath,
      model: path.basename(this.o.modelPath).replace(/\.gguf$/i, ""),
      engine: s.engine,
      baseUrl: s.baseUrl,
      pid: s.pid,
      restarts: s.restarts,
      lastError: shownError(s.lastError),
    };
  }

  start(): void {
    this.server.start();
  }

  /** The command line: MEMO_LLAMA_SERVER when set, else server/chat/llama-chat-main.ts. */
  private launch(): ChildLaunch | Promise<ChildLaunch> {
    const model = this.o.modelPath;
    // Only a GGUF is handed to llama.cpp: its loader's errors quote what it read.
    const problem = ggufFileProblem(model);
    if (problem) throw new Error(problem.replace(/ \(it does not exist\)$/, " does not exist"));
    const native = this.o.preferNode ? undefined : nativeLlamaServer();
    const threads = this.o.threads ?? (Number(process.env.MEMO_CHAT_THREADS) || undefined);
    const ctx = this.o.contextSize ?? (Number(process.env.MEMO_CHAT_CTX) || undefined);
    if (native) {
      return freePort().then((port): ChildLaunch => {
        const args = ["-m", model, "--host", "127.0.0.1", "--port", String(port), "-c", String(ctx ?? 4096)];
        if (threads) args.push("-t", String(threads));
        return {
          command: native,
          args,
          stdin: "ignore",
          baseUrl: `http://127.0.0.1:${port}`,
          engine: `native llama-server (${native})`,
        };
      });
    }
    const script = path.join(/* turbopackIgnore: true */ process.cwd(), "server", "chat", "llama-chat-main.ts");
    const args = ["--import", "tsx", script, "--port", "0", "--model", model, "--watch-stdin"];
    if (threads) args.push("--threads", String(threads));
    if (ctx) args.push("--ctx-size", String(ctx));
    return { command: process.execPath, args, stdin: "pipe", baseUrl: null, engine: "llama.cpp via node-llama-cpp" };
  }

  /** Resolve with the base URL once healthy; wait up to waitMs, then fail with a clear error. */
  async ensureHealthy(waitMs = 30_000, signal?: AbortSignal): Promise<string> {
    const s = this.server;
    if (s.healthy()) return s.baseUrl!;
    if (s.state === "stopped" || s.state === "failed") this.start();
    const url = await s.waitHealthy(waitMs, signal);
    if (url) return url;
    const what = s.state === "starting" || s.state === "restarting" ? "is still loading the model" : `is ${s.state}`;
    throw new LocalServerUnavailableError(
      `The local chat server (${path.basename(this.o.modelPath)}) ${what}${s.lastError ? `: ${shownError(s.lastError)}` : ""}.`,
    );
  }

  /** A request failed at the transport level: check health now instead of at the next tick. */
  reportFailure(): void {
    this.server.reportFailure();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

const g = globalThis as unknown as { __memoChatServer?: LocalChatServer };

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
    killOnExit("__memoChatServerExitHook", () => g.__memoChatServer?.pid);
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
