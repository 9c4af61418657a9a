import assert from "node:assert/strict";
import { test } from "node:test";
import {
  accessConfig,
  clientAddress,
  decide,
  denialResponse,
  enforcePasswordChange,
  isLoopbackAddress,
  isLoopbackHostHeader,
  originProblem,
  type GateDeps,
  type GateRequest,
} from "./access";
import type { ApiTokenInfo, SessionInfo } from "./store";

const SESSION: SessionInfo = {
  idHash: "h",
  personId: "owner",
  admin: true,
  createdAt: "",
  lastSeenAt: "",
  expiresAt: "",
  ip: null,
  userAgent: null,
};
const TOKEN: ApiTokenInfo = {
  id: "t1",
  personId: "owner",
  admin: true,
  name: "script",
  prefix: "memo_abcdef",
  createdAt: "",
  lastUsedAt: null,
  revokedAt: null,
};
const deps = (o: Partial<{ password: boolean }> = {}): GateDeps => ({
  hasPassword: () => o.password ?? true,
  session: (t) => (t === "good-session" ? SESSION : null),
  token: (b) => (b === "memo_good" ? TOKEN : null),
});

function req(method: string, path: string, headers: Record<string, string> = {}): GateRequest {
  const url = new URL(path, "http://localhost:3000");
  return {
    method,
    pathname: url.pathname,
    pathAndQuery: url.pathname + url.search,
    url: url.toString(),
    headers: new Headers({ host: "127.0.0.1:3000", ...headers }),
  };
}

const LOOPBACK = accessConfig({});
const LAN = accessConfig({ MEMO_HOST: "0.0.0.0" });

test("loopback and network addresses", () => {
  for (const h of ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"]) assert.equal(isLoopbackAddress(h), true, h);
  for (const h of ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "memo.local", "128.0.0.1"])
    assert.equal(isLoopbackAddress(h), false, h);
  for (const h of ["localhost:3000", "127.0.0.1", "127.0.0.1:3300", "[::1]:3000", "memo.localhost:80"])
    assert.equal(isLoopbackHostHeader(h), true, h);
  for (const h of [
    "evil.example:3000",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "192.168.1.20:3000",
    "[::2]:3000",
  ])
    assert.equal(isLoopbackHostHeader(h), false, h);
});

test("loopback: no sign-in for any route class", () => {
  for (const p of ["/", "/settings", "/api/health", "/api/trpc/health.get", "/v1/models", "/mcp"]) {
    const r = decide(req("GET", p), deps(), LOOPBACK);
    assert.deepEqual(r, { ok: true, principal: { kind: "anonymous-loopback" } }, p);
  }
});

test("loopback: a request addressed to another host name is refused (DNS rebinding)", () => {
  const r = decide(req("GET", "/api/health", { host: "attacker.example:3000" }), deps(), LOOPBACK);
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.status, 403);
  assert.match(!r.ok ? r.message : "", /Host 'attacker.example:3000' refused/);
  assert.equal(
    decide(req("GET", "/", { host: "memo.home:3000" }), deps(), accessConfig({ MEMO_ALLOWED_HOSTS: "memo.home" })).ok,
    true,
  );
});

test("Origin check on mutations, on loopback too", () => {
  const post = (h: Record<string, string>) => decide(req("POST", "/api/v1/remember", h), deps(), LOOPBACK);
  assert.equal(post({}).ok, true, "no Origin: not a browser (curl, scripts)");
  assert.equal(post({ origin: "http://127.0.0.1:3000" }).ok, true, "same origin");
  assert.equal(post({ "sec-fetch-site": "same-origin" }).ok, true);
  for (const h of <Record<string, string>[]>[
    { origin: "https://evil.example" },
    { origin: "null" },
    { origin: "http://127.0.0.1:4000" },
    { "sec-fetch-site": "cross-site" },
    { "sec-fetch-site": "same-site" },
    { origin: "chrome-extension://abc" },
  ]) {
    const r = post(h);
    assert.equal(r.ok, false, JSON.stringify(h));
    assert.equal(!r.ok && r.status, 403);
    assert.match(!r.ok ? r.message : "", /cross-site request refused/);
  }
  // Reads are never blocked by Origin (the same-origin policy keeps their answers from other sites).
  assert.equal(decide(req("GET", "/api/health", { origin: "https://evil.example" }), deps(), LOOPBACK).ok, true);
  // A bearer token exempts (browsers cannot send one cross-site without a CORS preflight).
  assert.equal(
    decide(
      req("POST", "/v1/chat/completions", { origin: "https://evil.example", authorization: "Bearer unused" }),
      deps(),
      LOOPBACK,
    ).ok,
    true,
  );
  // Allowed origins (a reverse proxy's public name).
  assert.equal(
    decide(
      req("POST", "/api/v1/search", { origin: "https://memo.example.org" }),
      deps(),
      accessConfig({ MEMO_ALLOWED_ORIGINS: "https://memo.example.org/" }),
    ).ok,
    true,
  );
});

test("network address: every route class needs a session or a token", async () => {
  const cases: [string, string, number, RegExp][] = [
    ["GET", "/", 303, /^http:\/\/localhost:3000\/login\?next=%2F$/],
    ["GET", "/memory/search?q=a%20b", 303, /\/login\?next=%2Fmemory%2Fsearch%3Fq%3Da%2520b$/],
    ["POST", "/settings", 401, /Sign in required/],
    ["GET", "/api/health", 401, /"status":401/],
    ["POST", "/api/trpc/memory.add", 401, /sign in first/],
    ["GET", "/v1/models", 401, /"type":"authentication_error"/],
    ["POST", "/mcp", 401, /"jsonrpc":"2.0"/],
  ];
  for (const [method, path, status, body] of cases) {
    const rq = req(method, path);
    const r = decide(rq, deps(), LAN);
    assert.equal(r.ok, false, path);
    if (r.ok) continue;
    const res = denialResponse(rq, r);
    assert.equal(res.status, status, path);
    if (status === 303) assert.match(res.headers.get("location")!, body);
    else {
      assert.match(await res.text(), body, path);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="memo"');
    }
  }
  const cookie = { cookie: "theme=dark; memo_session=good-session" };
  assert.equal(decide(req("GET", "/settings", cookie), deps(), LAN).ok, true);
  assert.equal(
    decide(req("POST", "/api/trpc/memory.add", { ...cookie, origin: "http://127.0.0.1:3000" }), deps(), LAN).ok,
    true,
  );
  assert.equal(decide(req("GET", "/settings", { cookie: "memo_session=forged" }), deps(), LAN).ok, false);
  assert.deepEqual(decide(req("POST", "/mcp", { authorization: "Bearer memo_good" }), deps(), LAN), {
    ok: true,
    principal: { kind: "token", token: TOKEN },
  });
  const bad = decide(req("GET", "/v1/models", { authorization: "Bearer memo_revoked", ...cookie }), deps(), LAN);
  assert.equal(!bad.ok && bad.message, "invalid or revoked API token");
  // A session does not excuse a cross-site mutation.
  assert.equal(
    decide(req("POST", "/api/v1/forget", { ...cookie, origin: "https://evil.example" }), deps(), LAN).ok,
    false,
  );
});

test("network address: the sign-in page and endpoints are public; nothing is served without a password", () => {
  for (const p of ["/login", "/api/auth/login", "/api/auth/logout"])
    assert.equal(decide(req(p === "/login" ? "GET" : "POST", p), deps(), LAN).ok, true, p);
  const r = decide(req("GET", "/api/health", { cookie: "memo_session=good-session" }), deps({ password: false }), LAN);
  assert.equal(!r.ok && r.status, 503);
  assert.match(!r.ok ? r.message : "", /npm run set-password/);
  // Sign-in is a mutation: login CSRF is refused too.
  assert.equal(decide(req("POST", "/api/auth/login", { origin: "https://evil.example" }), deps(), LAN).ok, false);
});

test("the socket's bound address (stamped by server/auth/peer.ts) can only make access stricter", () => {
  // Started some other way on 0.0.0.0 with MEMO_HOST unset: still sign-in.
  assert.equal(decide(req("GET", "/api/health", { "x-memo-bind": "0.0.0.0" }), deps(), LOOPBACK).ok, false);
  assert.equal(decide(req("GET", "/api/health", { "x-memo-bind": "::" }), deps(), LOOPBACK).ok, false);
  // A client claiming loopback does not lift the requirement on a network address.
  assert.equal(decide(req("GET", "/api/health", { "x-memo-bind": "127.0.0.1" }), deps(), LAN).ok, false);
  assert.equal(decide(req("GET", "/api/health", { "x-memo-bind": "127.0.0.1" }), deps(), LOOPBACK).ok, true);
  assert.equal(decide(req("GET", "/api/health"), deps(), accessConfig({ MEMO_REQUIRE_LOGIN: "1" })).ok, false);
});

test("client address: the socket's, or the proxy's last hop when MEMO_TRUST_PROXY=1", () => {
  const h = new Headers({ "x-memo-peer": "192.168.1.7", "x-forwarded-for": "6.6.6.6, 10.0.0.3" });
  assert.equal(clientAddress(h, LAN), "192.168.1.7", "X-Forwarded-For is the client's to forge");
  assert.equal(clientAddress(h, accessConfig({ MEMO_TRUST_PROXY: "1" })), "10.0.0.3");
  assert.equal(
    originProblem(
      req("PUT", "/api/x", { origin: "https://memo.example.org", "x-forwarded-host": "memo.example.org" }),
      accessConfig({ MEMO_TRUST_PROXY: "1" }),
    ),
    null,
  );
  assert.notEqual(
    originProblem(
      req("PUT", "/api/x", { origin: "https://memo.example.org", "x-forwarded-host": "memo.example.org" }),
      LAN,
    ),
    null,
  );
});

test("must change the password: only the change page, its two procedures and sign-out/in pass", () => {
  const held = { ...SESSION, personId: "p1", admin: false, mustChangePassword: true };
  const ok = { ok: true as const, principal: { kind: "session" as const, session: held } };
  const passes = (method: string, path: string) => enforcePasswordChange(req(method, path), ok).ok;
  for (const [m, p] of [
    ["GET", "/password?next=%2F"],
    ["GET", "/login"],
    ["POST", "/api/auth/logout"],
    ["GET", "/api/trpc/access.me"],
    ["POST", "/api/trpc/access.changeMyPassword"],
    ["GET", "/api/trpc/access.me%2Caccess.changeMyPassword"],
  ])
    assert.equal(passes(m!, p!), true, p);
  for (const [m, p] of [
    ["GET", "/"],
    ["GET", "/password/x"],
    ["GET", "/api/trpc/access.me,setup.status"],
    ["GET", "/api/trpc/"],
    ["GET", "/api/trpc/access.me%E0"],
    ["POST", "/api/trpc/access.createToken"],
    ["POST", "/api/v1/tokens"],
  ])
    assert.equal(passes(m!, p!), false, p);
  // Someone who has changed it, a token of theirs, or the owner at the machine: untouched.
  const free = {
    ok: true as const,
    principal: { kind: "session" as const, session: { ...held, mustChangePassword: false } },
  };
  assert.equal(enforcePasswordChange(req("GET", "/"), free), free);
  const tokenHeld = {
    ok: true as const,
    principal: { kind: "token" as const, token: { ...TOKEN, mustChangePassword: true } },
  };
  assert.equal(enforcePasswordChange(req("GET", "/v1/models"), tokenHeld).ok, false);
  const loop = { ok: true as const, principal: { kind: "anonymous-loopback" as const } };
  assert.equal(enforcePasswordChange(req("GET", "/"), loop), loop);
});
