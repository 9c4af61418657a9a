/**
 * The start-up every child server's main shares (server/embedder/main.ts, server/chat/llama-chat-main.ts),
 * as server/ops/child-server.ts expects it: the common command line, a loopback HTTP server whose /health
 * answers 503 while the model loads, 200 once it is loaded and 500 when loading failed; the
 * {"event":"listening"} and {"event":"ready"} lines on stdout; exit when stdin closes (--watch-stdin, so
 * it never outlives the app that started it); a clean exit on SIGTERM/SIGINT.
 */
import http from "node:http";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { sendError, sendJson } from "./node-json";

const COMMON = {
  port: { type: "string", default: "0" },
  host: { type: "string", default: "127.0.0.1" },
  model: { type: "string" },
  threads: { type: "string" },
  "ctx-size": { type: "string" },
  "watch-stdin": { type: "boolean", default: false },
} as const satisfies ParseArgsOptionsConfig;

/** The command line: --port, --host, --model, --threads, --ctx-size, --watch-stdin, and `extra`. */
export function childArgs<T extends ParseArgsOptionsConfig>(extra: T) {
  return parseArgs({ options: { ...COMMON, ...extra } }).values;
}

export interface ChildMainOptions {
  port: string;
  host: string;
  watchStdin: boolean;
  /** Load the model (once listening); resolves with the fields of the {"event":"ready"} line. */
  load: () => Promise<Record<string, unknown>>;
  /** The message /health and stderr give when load() fails (the process then exits with code 1). */
  loadError: (e: unknown) => string;
  /** Every request but /health, once loaded. What it throws becomes a 500 if nothing was sent yet. */
  handle: (req: http.IncomingMessage, res: http.ServerResponse, url: string) => Promise<void>;
  /** Free the model on SIGTERM/SIGINT (the process exits after at most 1 s regardless). */
  close: () => Promise<void>;
}

export function serveChild(o: ChildMainOptions): http.Server {
  let loaded = false;
  let loadError: string | undefined;
  const server = http.createServer(async (req, res) => {
    const url = req.url?.split("?")[0] ?? "/";
    try {
      if (req.method === "GET" && url === "/health") {
        if (loaded) return sendJson(res, 200, { status: "ok" });
        if (loadError) return sendError(res, 500, loadError, "server_error");
        return sendError(res, 503, "Loading model", "unavailable_error");
      }
      if (!loaded) return sendError(res, 503, loadError ?? "Loading model", "unavailable_error");
      await o.handle(req, res, url);
    } catch (e) {
      if (!res.headersSent) sendError(res, 500, e instanceof Error ? e.message : String(e), "server_error");
    }
  });

  server.listen(Number(o.port), o.host, () => {
    const addr = server.address();
    const port = typeof addr === "object" && addr ? addr.port : Number(o.port);
    process.stdout.write(`${JSON.stringify({ event: "listening", port, host: o.host })}\n`);
    o.load().then(
      (ready) => {
        loaded = true;
        process.stdout.write(`${JSON.stringify({ event: "ready", ...ready })}\n`);
      },
      (e: unknown) => {
        loadError = o.loadError(e);
        process.stderr.write(`${loadError}\n`);
        process.exitCode = 1;
        setTimeout(() => process.exit(1), 50);
      },
    );
  });

  if (o.watchStdin) {
    // The parent holds our stdin open; when it dies (even by SIGKILL) the pipe closes and we follow.
    process.stdin.on("end", () => process.exit(0));
    process.stdin.on("error", () => process.exit(0));
    process.stdin.resume();
  }
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.on(sig, () => {
      server.close();
      void o.close().finally(() => process.exit(0));
      setTimeout(() => process.exit(0), 1000).unref();
    });
  }
  return server;
}
