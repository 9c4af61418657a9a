import { NextResponse, type NextRequest } from "next/server";
import { gateResponse } from "@/server/auth/gate";
import { contentSecurityPolicy, newNonce, STATIC_SECURITY_HEADERS } from "@/server/http/security-headers";

/**
 * Access control for every page and API (server/auth/access.ts has the rules): sign-in when Memo listens on
 * a network address, the Host check on loopback, and the Origin check on every mutation. Runs in the
 * Node.js runtime (Next 16's default for proxy), so it reads sessions and tokens from the store directly.
 *
 * Also the Content-Security-Policy (server/http/security-headers.ts), with a fresh script nonce per
 * request: set on the request too, which is where Next finds the nonce for the scripts it renders.
 * The other security headers come from next.config.mjs; a refusal made here carries them itself.
 *
 * Not matched: static build assets, and the routes that stream large bodies — Next buffers (and past
 * 10 MB truncates) the body of every request the proxy runs for, which would break 50 MB uploads and
 * 256 MB imports: documents, the memory batch, and every import route (`/api/v1/import` and
 * `/api/v1/import/<format>`, one per entry of server/services/import/formats.ts; only `jobs` under it is a page of
 * progress, matched). The pattern covers any format, so a new one needs no edit here (Next reads this
 * config at build time: it must stay a literal). Those handlers call `requireAccess` themselves before
 * reading the body; server/auth/routes.test.ts checks that every route is covered one way or the other,
 * and that every registered import format's route is skipped.
 */
export function proxy(req: NextRequest) {
  const csp = contentSecurityPolicy(newNonce());
  const denied = gateResponse(req);
  if (denied) {
    for (const [k, v] of Object.entries(STATIC_SECURITY_HEADERS)) denied.headers.set(k, v);
    denied.headers.set("Content-Security-Policy", csp);
    return denied;
  }
  const headers = new Headers(req.headers);
  headers.set("Content-Security-Policy", csp);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("Content-Security-Policy", csp);
  return res;
}

export const config = {
  matcher: [
    "/((?!_next/static/|_next/image|favicon\\.ico$|icon\\.svg$|api/v1/documents$|api/v1/import(?:/(?!jobs(?:/|$))[^/]+)?$|api/v1/memories/batch$).*)",
  ],
};
