import { getDb } from "../db";
import type { Acting } from "../core/acting";
import { OWNER_ID } from "../core/space-name";
import {
  accessConfig,
  decide,
  denialResponse,
  enforcePasswordChange,
  loginRequired,
  type GateRequest,
  type GateResult,
  type Principal,
} from "./access";
import { otherPeopleCount } from "./people";
import { hasOwnerPassword, sessionFromToken, tokenFromBearer } from "./store";

/**
 * The access decision for a request, against the store (sessions, tokens, owner password), with the
 * must-change-password rule: what the gate answers.
 */
export function checkAccess(req: { method: string; url: string; headers: Headers }): {
  request: GateRequest;
  result: GateResult;
} {
  const { request, result } = identify(req);
  return { request, result: enforcePasswordChange(request, result) };
}

/** Who is calling, and whether sign-in lets them in at all (not yet whether they must change their password first). */
function identify(req: { method: string; url: string; headers: Headers }): {
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
      hasPeople: () => otherPeopleCount(db) > 0,
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

/**
 * Who is calling (tRPC procedures that manage access use this: an API token may not mint tokens or change the
 * password). A person who must change their password is still who they are here: the gate refuses their
 * other requests, and `mustChangePassword(principal)` lets the handlers behind it refuse them again.
 */
export function principalOf(headers: Headers, url = "http://localhost/api/trpc"): Principal | null {
  const { result } = identify({ method: "GET", url, headers });
  return result.ok ? result.principal : null;
}

/** Sign-in is required for this request: a network address, MEMO_REQUIRE_LOGIN=1, or people besides the owner. */
export function loginRequiredHere(headers: Headers): boolean {
  return loginRequired(headers, accessConfig()) || otherPeopleCount(getDb().sqlite) > 0;
}

/** Acts as nobody: owns no space, so every id looks missing, and is no admin. */
export const NOBODY: Acting = { personId: "", admin: false };

/** The person a principal acts as: the owner at the machine (loopback, no people), else the session's or token's person. */
export function actingOf(p: Principal | null): Acting {
  if (!p || p.kind === "public") return NOBODY;
  if (p.kind === "anonymous-loopback") return { personId: OWNER_ID, admin: true };
  const x = p.kind === "session" ? p.session : p.token;
  return { personId: x.personId, admin: x.admin };
}
