import { getDb } from "../db";
import { accessConfig, decide, denialResponse, type GateRequest, type GateResult, type Principal } from "./access";
import { hasOwnerPassword, sessionFromToken, tokenFromBearer } from "./store";

/** The access decision for a request, against the store (sessions, tokens, owner password). */
export function checkAccess(req: { method: string; url: string; headers: Headers }): {
  request: GateRequest;
  result: GateResult;
} {
  const url = new URL(req.url);
  const request: GateRequest = {
    method: req.method,
    pathname: url.pathname,
    pathAndQuery: url.pathname + url.search,
    url: url.toString(),
    headers: req.headers,
  };
  const db = getDb().sqlite;
  const result = decide(
    request,
    {
      hasPassword: () => hasOwnerPassword(db),
      session: (t) => sessionFromToken(db, t),
      token: (b) => tokenFromBearer(db, b),
    },
    accessConfig(),
  );
  return { request, result };
}

/** null when the request may go on, else the refusal to send. */
export function gateResponse(req: { method: string; url: string; headers: Headers }): Response | null {
  const { request, result } = checkAccess(req);
  return result.ok ? null : denialResponse(request, result);
}

/**
 * For the route handlers that proxy.ts does not run for (it would buffer their streamed bodies): check
 * access before reading a byte of the body, then run the handler.
 */
export async function requireAccess(req: Request, handler: () => Promise<Response> | Response): Promise<Response> {
  const denied = gateResponse(req);
  if (denied) return denied;
  return handler();
}

/** Who is calling (tRPC procedures that manage access use this: an API token may not mint tokens or change the password). */
export function principalOf(headers: Headers, url = "http://localhost/api/trpc"): Principal | null {
  const { result } = checkAccess({ method: "GET", url, headers });
  return result.ok ? result.principal : null;
}
