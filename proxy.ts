import { NextResponse, type NextRequest } from "next/server";
import { gateResponse } from "@/server/auth/gate";

/**
 * Access control for every page and API (server/auth/access.ts has the rules): sign-in when Memo listens on
 * a network address, the Host check on loopback, and the Origin check on every mutation. Runs in the
 * Node.js runtime (Next 16's default for proxy), so it reads sessions and tokens from the store directly.
 *
 * Not matched: static build assets, and the three routes that stream large bodies — Next buffers (and
 * past 10 MB truncates) the body of every request the proxy runs for, which would break 50 MB uploads
 * and 256 MB imports. Those handlers call `requireAccess` themselves before reading the body;
 * server/auth/routes.test.ts checks that every route is covered one way or the other.
 */
export function proxy(req: NextRequest) {
  return gateResponse(req) ?? NextResponse.next();
}

export const config = {
  matcher: [
    "/((?!_next/static/|_next/image|favicon\\.ico$|icon\\.svg$|api/v1/documents$|api/v1/import$|api/v1/import/chatgpt$|api/v1/memories/batch$).*)",
  ],
};
