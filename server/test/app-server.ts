/**
 * TEST HARNESS: the app's HTTP API in this test process, for integration tests that send real HTTP requests
 * (fetch, the official openai and MCP SDK clients) as the e2e suite did, without a browser or a Next build.
 *
 * It runs the real start-up (server/boot.ts: store and migrations in a fresh data folder of its own, the
 * supervised embedding server with the bundled model, ANN index, ingestion queue, chat persistence, fact
 * learner, job scheduler), then serves every route.ts under app/ from a node:http server on an OS-assigned
 * port. What Next puts in front of the handlers is reproduced only where an answer depends on it:
 *   - the route for a URL: static segments win over [param] segments, params are URL-decoded;
 *   - a bare 405 for a method the route does not export;
 *   - the access gate (server/auth/gate.ts, what proxy.ts runs) for the paths proxy.ts's matcher covers;
 *   - the peer and bind headers (server/auth/peer.ts, installed as instrumentation.ts does);
 *   - the request's abort signal when the client disconnects.
 * Pages, layouts and the Content-Security-Policy are the browser suite's (e2e/).
 *
 * One app per test process (the store and its queues are process-wide): call startAppServer once per file.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";

export interface AppServer {
  /** http://127.0.0.1:PORT */
  url: string;
  dataDir: string;
  /** Stop serving and stop the app's background work and children; removes the data folder. */
  close(): Promise<void>;
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

interface Route {
  segments: string[];
  file: string;
  module?: Record<string, unknown>;
}

/** Start the app on a fresh data folder; `env` adds settings (a chat provider, say) before anything reads them. */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-app-server-"));
  Object.assign(process.env, {
    MEMO_DATA_DIR: dataDir,
    MEMO_HOST: "127.0.0.1",
    MEMO_OFFLINE: "1", // no background model download: the bundled model serves
    MEMO_DETECT_LOCAL: "0", // never probe the machine's 11434/1234/8080
    MEMO_KEEP_SIGNAL_HANDLERS: "1", // boot's SIGTERM handler must not remove the test runner's
    ...env,
  });
  const { installPeerHeaders } = await import("../auth/peer");
  const { gateResponse } = await import("../auth/gate");
  const { boot } = await import("../boot");
  const { config } = await import("../../proxy");
  installPeerHeaders();
  boot();

  const { routeFiles } = await import("./route-harness");
  const routes: Route[] = routeFiles().map((r) => ({ segments: r.pattern.split("/").filter(Boolean), file: r.file }));
  const gated = config.matcher.map((m) => new RegExp(`^${m}$`));

  const server = http.createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      console.error("[app-server]", e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      for (const x of Array.isArray(v) ? v : [v]) headers.append(k, x);
    }
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const method = req.method ?? "GET";
    const request = new Request(url, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>),
      signal: aborted.signal,
      duplex: "half",
    } as RequestInit);

    const found = match(routes, url.pathname);
    let response: Response;
    if (!found) response = new Response("Not Found", { status: 404 });
    else {
      const denied = gated.some((re) => re.test(url.pathname)) ? gateResponse(request) : null;
      if (denied) response = denied;
      else {
        found.route.module ??= (await import(found.route.file)) as Record<string, unknown>;
        const handler = found.route.module[method] as Handler | undefined;
        response = handler
          ? await handler(request, { params: Promise.resolve(found.params) })
          : new Response(null, { status: 405, headers: { Allow: allowed(found.route.module) } });
      }
    }
    // An answer given before the body was read whole (a 413 on a large upload): this connection ends with it, as
    // Next's does, so the client does not send its next request down a socket whose upload was cut off.
    await send(response, res, !req.complete);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(url);
  } catch (e) {
    // Stop what boot() started, so that the failing test file ends instead of waiting on the children.
    server.closeAllConnections();
    server.close();
    await stopApp().catch(() => undefined);
    throw e;
  }
  return {
    url,
    dataDir,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stopApp();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * As the e2e run's web server check does: /api/health answers 503 until the embedding server is ready, and
 * the tests start on a 200 (up to 120 s: the model loads in a worker thread, slower on a busy machine).
 */
async function waitUntilHealthy(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const res = await fetch(`${url}/api/health`);
    last = `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`;
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the app was not healthy after ${timeoutMs} ms; last: ${last}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The route for a path: every segment matches; at the first difference a static segment beats a [param]. */
function match(routes: Route[], pathname: string): { route: Route; params: Record<string, string> } | null {
  const parts = pathname.split("/").filter(Boolean);
  let best: { route: Route; params: Record<string, string>; rank: string } | null = null;
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let rank = "";
    let ok = true;
    for (const [i, seg] of route.segments.entries()) {
      const dyn = /^\[(\w+)\]$/.exec(seg);
      if (dyn) {
        params[dyn[1]!] = decodeURIComponent(parts[i]!);
        rank += "1";
      } else if (seg === parts[i]) rank += "0";
      else {
        ok = false;
        break;
      }
    }
    if (ok && (!best || rank < best.rank)) best = { route, params, rank };
  }
  return best;
}

function allowed(mod: Record<string, unknown>): string {
  return ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    .filter((m) => typeof mod[m] === "function")
    .join(", ");
}

/** Write a web Response to the socket, streaming its body (SSE replies arrive piece by piece). */
async function send(response: Response, res: http.ServerResponse, closeAfter: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    if (k !== "set-cookie") headers[k] = v;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  if (closeAfter) headers.connection = "close";
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away mid-body: the reader was cancelled
  }
  res.end();
}

/** What boot() started, stopped so that the test process can end: queues, scheduler, learner, children. */
async function stopApp(): Promise<void> {
  const { appContext } = await import("../context");
  const { getDb } = await import("../db");
  const { getEmbedder } = await import("../embedder/supervisor");
  const { startScheduler } = await import("../jobs/scheduler");
  const { queueFor } = await import("../ingest/queue");
  const { persistQueue } = await import("../chat/exchange-queue");
  const { factLearner } = await import("../chat/fact-learner");
  const { stopAnnIndex } = await import("../memory/index/ann-registry");
  const { stopLocalChatServer } = await import("../chat/local-server");
  const { stopModelDownload } = await import("../services/model-download-service");
  const { getLocalDetector } = await import("../chat/detect-local");
  const memo = appContext();
  await Promise.all([
    queueFor(memo).stop(),
    startScheduler({ context: appContext, log: () => undefined }).stop(),
    factLearner().stop(),
    persistQueue().drain(),
  ]);
  getLocalDetector().stop();
  stopAnnIndex(memo.db);
  await Promise.all([getEmbedder().stop(), stopLocalChatServer(), stopModelDownload()]);
  getDb().sqlite.close();
}
