/**
 * Issue 33 item 2: every answer forbids framing and sniffing and keeps the referrer on this site; pages get
 * a CSP whose script nonce is new per request and reaches Next (through the request's CSP header). The
 * browser side (a page on another origin framing /settings; every page rendering with no CSP violation) is
 * e2e/security-headers.spec.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { NextConfig } from "next";
import { NextRequest } from "next/server";
import { proxy } from "../../proxy";
import { setDb } from "../db";
import { openTempStore, type TempStore } from "../test/temp-store";
import { contentSecurityPolicy, STATIC_SECURITY_HEADERS } from "./security-headers";

let store: TempStore;
before(() => {
  store = openTempStore();
  setDb(store);
});
after(() => {
  setDb(undefined);
  store.close();
});

test("next.config.mjs sends the same framing, sniffing and referrer headers on every path", async () => {
  // Imported by URL: the .mjs config has no type declarations of its own.
  const file = pathToFileURL(path.resolve(import.meta.dirname, "../../next.config.mjs")).href;
  const nextConfig = ((await import(file)) as { default: NextConfig }).default;
  const rules = await nextConfig.headers!();
  assert.equal(rules.length, 1);
  assert.equal(rules[0]!.source, "/:path*");
  assert.deepEqual(Object.fromEntries(rules[0]!.headers.map((h) => [h.key, h.value])), STATIC_SECURITY_HEADERS);
});

test("the policy: frame-ancestors 'none', scripts by nonce only, no 'unsafe-eval' in production", () => {
  const csp = contentSecurityPolicy("abc123", false);
  assert.match(csp, /(^|; )frame-ancestors 'none'(;|$)/);
  assert.match(csp, /(^|; )script-src 'self' 'nonce-abc123' 'strict-dynamic'(;|$)/);
  assert.match(csp, /(^|; )object-src 'none'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-eval/);
  assert.doesNotMatch(csp.split("; ").find((d) => d.startsWith("script-src"))!, /unsafe-inline/);
  assert.match(contentSecurityPolicy("abc123", true), /'unsafe-eval'/, "development only");
});

test("proxy: each page answer gets a fresh nonce, handed to Next on the request; refusals carry every header", async () => {
  const nonces = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const res = proxy(new NextRequest("http://127.0.0.1:3000/settings", { headers: { host: "127.0.0.1:3000" } }));
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /frame-ancestors 'none'/);
    nonces.add(/'nonce-([^']+)'/.exec(csp)![1]!);
    // NextResponse.next({ request: { headers } }) marks the overridden request headers so Next sees them.
    assert.equal(res.headers.get("x-middleware-request-content-security-policy"), csp);
  }
  assert.equal(nonces.size, 3);
  const denied = proxy(
    new NextRequest("http://127.0.0.1:3000/settings", { headers: { host: "evil.example" } }), // DNS rebinding
  );
  assert.equal(denied.status, 403);
  for (const [k, v] of Object.entries(STATIC_SECURITY_HEADERS)) assert.equal(denied.headers.get(k), v, k);
  assert.match(denied.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
});
