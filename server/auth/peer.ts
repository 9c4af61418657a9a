import http from "node:http";

/**
 * Next.js does not tell route handlers or the proxy who is connected or which address the server is bound
 * to: it only fills `x-forwarded-for` from the socket when the client did not send one, so that header is
 * the client's to choose. This installs (once per process, from instrumentation.ts) a hook on Node's HTTP
 * server that stamps every incoming request, before Next sees it, with two headers the client cannot
 * forge (whatever it sent under these names is overwritten):
 *
 *   x-memo-peer  the socket's remote address (the per-address key of sign-in rate limiting)
 *   x-memo-bind  the address the server socket is bound to (0.0.0.0 → login required; server/auth/access.ts)
 */
export const PEER_HEADER = "x-memo-peer";
export const BIND_HEADER = "x-memo-bind";

const g = globalThis as unknown as { __memoPeerHook?: boolean };

export function installPeerHeaders(): void {
  if (g.__memoPeerHook) return;
  g.__memoPeerHook = true;
  const emit = http.Server.prototype.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  http.Server.prototype.emit = function patchedEmit(
    this: http.Server,
    event: string | symbol,
    ...args: unknown[]
  ): boolean {
    if (event === "request") stamp(this, args[0] as http.IncomingMessage);
    return emit.call(this, event, ...args);
  } as typeof http.Server.prototype.emit;
}

function stamp(server: http.Server, req: http.IncomingMessage): void {
  try {
    const addr = server.address();
    req.headers[PEER_HEADER] = normalizeAddress(req.socket?.remoteAddress ?? "unknown");
    req.headers[BIND_HEADER] = addr && typeof addr === "object" ? normalizeAddress(addr.address) : "unknown";
  } catch {
    delete req.headers[PEER_HEADER];
    delete req.headers[BIND_HEADER];
  }
}

/** `::ffff:127.0.0.1` (IPv4 on a dual-stack socket) → `127.0.0.1`. */
export function normalizeAddress(a: string): string {
  return a.startsWith("::ffff:") && a.includes(".") ? a.slice(7) : a;
}
