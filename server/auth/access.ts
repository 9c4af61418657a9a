import { BIND_HEADER, normalizeAddress, PEER_HEADER } from "./peer";
import { SESSION_COOKIE, type ApiTokenInfo, type SessionInfo } from "./store";

/**
 * Who may do what (docs/architecture.md#access-and-security). This is the one decision every request goes through — from proxy.ts for
 * pages and most routes, and from `requireAccess` in the few route handlers the proxy skips (streamed
 * uploads). Pure over a small request shape so it can be tested without a server.
 *
 * - Loopback (the default, 127.0.0.1): no sign-in. Requests must be addressed to a loopback host name
 *   (`Host: localhost`, 127.x, [::1], or MEMO_ALLOWED_HOSTS): a web page that rebinds its own DNS name to
 *   127.0.0.1 (DNS rebinding) is refused.
 * - Any other address (MEMO_HOST=0.0.0.0, or the server socket is found bound to one), or
 *   MEMO_REQUIRE_LOGIN=1: every page and API needs a session cookie (from /login) or an API token
 *   (`Authorization: Bearer memo_…`, created in Settings). With no owner password set, nothing is served.
 * - Always: a browser's POST/PUT/PATCH/DELETE must come from Memo's own origin (the Origin header, or
 *   Sec-Fetch-Site when there is none). Requests with a bearer token are exempt: browsers cannot add that
 *   header cross-site without a CORS preflight, which Memo never grants.
 */

export interface AccessConfig {
  /** The address from MEMO_HOST (what start.mjs binds). */
  host: string;
  /** MEMO_REQUIRE_LOGIN=1: sign-in even on loopback (e.g. behind a reverse proxy on the same machine). */
  forceLogin: boolean;
  /** Extra Host names accepted on loopback (MEMO_ALLOWED_HOSTS, comma-separated). */
  allowedHosts: string[];
  /** Extra origins allowed to send mutations (MEMO_ALLOWED_ORIGINS, comma-separated, e.g. https://memo.example.org). */
  allowedOrigins: string[];
  /** MEMO_TRUST_PROXY=1: take the client address from X-Forwarded-For and the origin from X-Forwarded-Host/Proto. */
  trustProxy: boolean;
  /** MEMO_SECURE_COOKIES=1: always mark the session cookie Secure (default: when the request came over https). */
  secureCookies: boolean;
}

function list(v: string | undefined): string[] {
  return (v ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

export function accessConfig(env: Record<string, string | undefined> = process.env): AccessConfig {
  return {
    host: env.MEMO_HOST?.trim() || "127.0.0.1",
    forceLogin: env.MEMO_REQUIRE_LOGIN === "1",
    allowedHosts: list(env.MEMO_ALLOWED_HOSTS),
    allowedOrigins: list(env.MEMO_ALLOWED_ORIGINS).map((o) => o.replace(/\/+$/, "")),
    trustProxy: env.MEMO_TRUST_PROXY === "1",
    secureCookies: env.MEMO_SECURE_COOKIES === "1",
  };
}

/** A bind address that only this machine can reach. */
export function isLoopbackAddress(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/** A Host header naming this machine: localhost, *.localhost, 127.x.y.z or [::1], with any port. */
export function isLoopbackHostHeader(hostHeader: string): boolean {
  const h = hostHeader.trim().toLowerCase();
  const name = h.startsWith("[") ? h.slice(0, h.indexOf("]") + 1) : h.replace(/:\d+$/, "");
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    name === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

export interface GateRequest {
  method: string;
  pathname: string;
  /** The path and query, for the redirect back after sign-in. */
  pathAndQuery: string;
  /** The absolute URL as the server sees it (the proxy needs an absolute Location; Next makes a same-origin one relative). */
  url: string;
  headers: Headers;
}

export interface GateDeps {
  hasPassword(): boolean;
  /** People besides the owner exist (issue 32): accounts are on, even on loopback. */
  hasPeople?(): boolean;
  session(token: string): SessionInfo | null;
  token(bearer: string): ApiTokenInfo | null;
}

export type RouteClass = "page" | "api" | "openai" | "mcp";

export function routeClass(pathname: string): RouteClass {
  if (pathname === "/api" || pathname.startsWith("/api/")) return "api";
  if (pathname === "/v1" || pathname.startsWith("/v1/")) return "openai";
  if (pathname === "/mcp" || pathname.startsWith("/mcp/")) return "mcp";
  return "page";
}

/** Reachable without a session: the sign-in page and the endpoints it posts to. */
export function isPublicPath(pathname: string): boolean {
  return pathname === "/login" || pathname === "/api/auth/login" || pathname === "/api/auth/logout";
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function loginRequired(headers: Headers, cfg: AccessConfig): boolean {
  if (cfg.forceLogin || !isLoopbackAddress(cfg.host)) return true;
  const bound = headers.get(BIND_HEADER);
  return bound !== null && bound !== "unknown" && !isLoopbackAddress(bound);
}

export function readCookie(headers: Headers, name: string): string | undefined {
  const raw = headers.get("cookie");
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const v = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(v);
      } catch {
        return v;
      }
    }
  }
  return undefined;
}

export function bearerOf(headers: Headers): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return m ? m[1]! : null;
}

/** The client's address: the socket's (x-memo-peer), or with MEMO_TRUST_PROXY=1 the last X-Forwarded-For hop. */
export function clientAddress(headers: Headers, cfg: AccessConfig): string {
  if (cfg.trustProxy) {
    const hops = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (hops.length) return normalizeAddress(hops[hops.length - 1]!);
  }
  return headers.get(PEER_HEADER) ?? "unknown";
}

export function requestIsHttps(headers: Headers, cfg: AccessConfig): boolean {
  return cfg.secureCookies || (headers.get("x-forwarded-proto") ?? "").split(",")[0]!.trim().toLowerCase() === "https";
}

/**
 * Is this unsafe-method request from Memo's own pages (or a non-browser client)? A browser always sends
 * Origin on a cross-origin POST; Sec-Fetch-Site backs it up. No Origin and no Sec-Fetch-Site: not a browser
 * (curl, scripts, Playwright's request API), which CSRF cannot use.
 */
export function originProblem(req: GateRequest, cfg: AccessConfig): string | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const origin = req.headers.get("origin");
  if (origin !== null) {
    if (origin === "null") return "cross-site request refused (Origin: null)";
    let originHost: string;
    try {
      const u = new URL(origin);
      if (u.protocol !== "http:" && u.protocol !== "https:") return `cross-site request refused (Origin: ${origin})`;
      originHost = u.host.toLowerCase();
    } catch {
      return "cross-site request refused (malformed Origin)";
    }
    const hosts = [req.headers.get("host")];
    if (cfg.trustProxy) hosts.push(...(req.headers.get("x-forwarded-host") ?? "").split(",").map((s) => s.trim()));
    if (hosts.some((h) => h && h.toLowerCase() === originHost)) return null;
    if (cfg.allowedOrigins.includes(origin.toLowerCase().replace(/\/+$/, ""))) return null;
    return `cross-site request refused: Origin ${origin} is not this server (set MEMO_ALLOWED_ORIGINS to allow it)`;
  }
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none")
    return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  return null;
}

export type Principal =
  | { kind: "anonymous-loopback" }
  | { kind: "public" }
  | { kind: "session"; session: SessionInfo }
  | { kind: "token"; token: ApiTokenInfo };

export type GateResult =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      status: 401 | 403 | 503;
      message: string;
      redirectToLogin: boolean;
      /** The person must choose their own password first: a page request goes to the change page. */
      redirectToPasswordChange?: boolean;
    };

/** The decision for one request. */
export function decide(req: GateRequest, deps: GateDeps, cfg: AccessConfig): GateResult {
  const required = loginRequired(req.headers, cfg) || (deps.hasPeople?.() ?? false);
  const deny = (status: 401 | 403 | 503, message: string, redirectToLogin = false): GateResult => ({
    ok: false,
    status,
    message,
    redirectToLogin,
  });

  if (!required) {
    const host = req.headers.get("host");
    if (
      host !== null &&
      !isLoopbackHostHeader(host) &&
      !cfg.allowedHosts.includes(host.toLowerCase().replace(/:\d+$/, "")) &&
      !cfg.allowedHosts.includes(host.toLowerCase())
    ) {
      return deny(
        403,
        `Host '${host}' refused: Memo listens on loopback and answers only requests addressed to localhost (add the name to MEMO_ALLOWED_HOSTS to allow it)`,
      );
    }
  }

  const bearer = bearerOf(req.headers);
  if (bearer !== null && required) {
    const token = deps.token(bearer);
    if (!token) return deny(401, "invalid or revoked API token");
    return { ok: true, principal: { kind: "token", token } };
  }

  // A bearer header exempts from the Origin check even on loopback (browsers cannot send one cross-site).
  if (bearer === null) {
    const problem = originProblem(req, cfg);
    if (problem) return deny(403, problem);
  }

  if (!required) return { ok: true, principal: { kind: "anonymous-loopback" } };
  if (isPublicPath(req.pathname)) return { ok: true, principal: { kind: "public" } };
  if (!deps.hasPassword()) {
    return deny(
      503,
      "Memo listens on a network address but no owner password is set; run `npm run set-password` on the server",
    );
  }
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? deps.session(cookie) : null;
  if (session) return { ok: true, principal: { kind: "session", session } };
  return deny(
    401,
    "sign in first: open /login in a browser, or send an API token (Authorization: Bearer memo_…) created in Settings",
    true,
  );
}

/** The page where a person whose password was set by an admin chooses their own (app/password/page.tsx). */
export const PASSWORD_CHANGE_PAGE = "/password";

/**
 * The tRPC procedures the change page calls: who is signed in, and the change itself. Nothing else is
 * served to a person who must change their password (sign-out and sign-in are public paths already).
 */
export const PASSWORD_CHANGE_PROCEDURES: ReadonlySet<string> = new Set(["access.me", "access.changeMyPassword"]);

export const PASSWORD_CHANGE_MESSAGE =
  "change your password first: it was set by an admin; open /password in a browser to choose your own (or sign out)";

/** Whether a principal's person still has the password an admin set (initial or reset) and must change it. */
export function mustChangePassword(p: Principal): boolean {
  if (p.kind === "session") return Boolean(p.session.mustChangePassword);
  if (p.kind === "token") return Boolean(p.token.mustChangePassword);
  return false;
}

/** What a person who must change their password may still reach: the change page and what it calls. */
export function allowedBeforePasswordChange(req: Pick<GateRequest, "pathname">): boolean {
  if (isPublicPath(req.pathname) || req.pathname === PASSWORD_CHANGE_PAGE) return true;
  const trpc = "/api/trpc/";
  if (!req.pathname.startsWith(trpc)) return false;
  // A batched call names its procedures comma-separated in the path: every one must be allowed.
  let names: string[];
  try {
    names = decodeURIComponent(req.pathname.slice(trpc.length)).split(",");
  } catch {
    return false;
  }
  return names.length > 0 && names.every((n) => PASSWORD_CHANGE_PROCEDURES.has(n));
}

/**
 * The must-change rule over a decision (issue 32: an initial password optionally to be changed at first
 * sign-in): a session (or token) of a person who must change their password is refused everywhere but the
 * change page, what it calls, and sign-out, with a 403 (pages: a redirect to the change page). Kept apart
 * from `decide`, which also answers "who is calling" for the procedures and handlers behind the gate.
 */
export function enforcePasswordChange(req: GateRequest, r: GateResult): GateResult {
  if (!r.ok || !mustChangePassword(r.principal) || allowedBeforePasswordChange(req)) return r;
  return {
    ok: false,
    status: 403,
    message: PASSWORD_CHANGE_MESSAGE,
    redirectToLogin: false,
    redirectToPasswordChange: true,
  };
}

/** The refusal as the route's clients expect it: pages redirect to /login, APIs answer in their own error shape. */
export function denialResponse(req: GateRequest, r: Extract<GateResult, { ok: false }>): Response {
  const cls = routeClass(req.pathname);
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (r.status === 401) headers["www-authenticate"] = 'Bearer realm="memo"';
  if (cls === "page") {
    const method = req.method.toUpperCase();
    const to = r.redirectToLogin ? "/login" : r.redirectToPasswordChange ? PASSWORD_CHANGE_PAGE : null;
    if (to && (method === "GET" || method === "HEAD")) {
      const next = req.pathAndQuery.startsWith("/") && !req.pathAndQuery.startsWith("//") ? req.pathAndQuery : "/";
      const location = new URL(`${to}?next=${encodeURIComponent(next)}`, req.url).toString();
      return new Response(null, { status: 303, headers: { ...headers, location } });
    }
    return new Response(
      `${r.status === 401 ? "Sign in required" : r.status === 403 ? "Forbidden" : "Unavailable"}: ${r.message}\n`,
      {
        status: r.status,
        headers: { ...headers, "content-type": "text/plain; charset=utf-8" },
      },
    );
  }
  if (cls === "openai") {
    const type = r.status === 401 ? "authentication_error" : r.status === 403 ? "permission_error" : "api_error";
    const code = r.status === 401 ? "invalid_api_key" : r.status === 403 ? "forbidden" : "unavailable";
    return Response.json({ error: { message: r.message, type, code, param: null } }, { status: r.status, headers });
  }
  if (cls === "mcp") {
    return Response.json(
      { jsonrpc: "2.0", error: { code: -32001, message: r.message }, id: null },
      { status: r.status, headers },
    );
  }
  return Response.json({ error: { status: r.status, message: r.message } }, { status: r.status, headers });
}
