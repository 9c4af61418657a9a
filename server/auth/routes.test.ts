import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { config as proxyConfig } from "../../proxy";
import { setDb } from "../db";
import { openTempStore, type TempStore } from "../test/temp-store";
import { hashPassword } from "./password";
import { IMPORT_FORMATS } from "../services/import/formats";
import { setOwnerPasswordHash } from "./store";

/**
 * Every page and route handler is behind access control: either proxy.ts runs for it, or (the routes the
 * proxy skips so that their large bodies are not buffered) the handler refuses a request without a session
 * before reading its body. A new route that is neither fails here.
 */

const appDir = path.resolve(import.meta.dirname, "../../app");
const SAMPLE: Record<string, string> = {
  id: "00000000-0000-4000-8000-000000000000",
  trpc: "health.get",
  job: "decay",
  format: "chatgpt",
};

function routes(dir = appDir): { file: string; url: string; kind: "page" | "route" }[] {
  const out: { file: string; url: string; kind: "page" | "route" }[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...routes(p));
    else if (e.name === "route.ts" || e.name === "page.tsx") {
      const rel = path
        .relative(appDir, dir)
        .split(path.sep)
        .filter((s) => s && !/^\(.*\)$/.test(s) && !s.startsWith("_"));
      const url = `/${rel.map((s) => (/^\[(.+)\]$/.test(s) ? (SAMPLE[s.slice(1, -1)] ?? "x") : s)).join("/")}`;
      out.push({ file: path.relative(appDir, p), url, kind: e.name === "route.ts" ? "route" : "page" });
    }
  }
  return out;
}

const matched = (url: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url });

let store: TempStore;
const env = { MEMO_HOST: process.env.MEMO_HOST };
before(async () => {
  store = openTempStore();
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  setDb(store);
  process.env.MEMO_HOST = "0.0.0.0";
});
after(() => {
  setDb(undefined);
  store.close();
  if (env.MEMO_HOST === undefined) delete process.env.MEMO_HOST;
  else process.env.MEMO_HOST = env.MEMO_HOST;
});

test("the route list is complete enough to mean something", () => {
  const all = routes();
  assert.ok(all.length >= 30, `found ${all.length}`);
  for (const u of [
    "/",
    "/login",
    "/settings",
    "/api/trpc/health.get",
    "/api/v1/documents",
    "/v1/chat/completions",
    "/mcp",
  ])
    assert.ok(
      all.some((r) => r.url === u),
      u,
    );
});

test("every page is behind proxy.ts; static build assets are not", () => {
  for (const r of routes().filter((x) => x.kind === "page")) assert.equal(matched(r.url), true, r.file);
  for (const u of ["/_next/static/chunks/main.js", "/icon.svg", "/favicon.ico"]) assert.equal(matched(u), false, u);
  for (const u of [
    "/_next/staticky",
    "/icon.svg.bak",
    "/api/v1/documents/x",
    "/api/v1/import/jobs",
    "/api/v1/memories/batchy",
    "/api/v1/documentsx",
  ])
    assert.equal(matched(u), true, u);
});

test("every route handler is behind proxy.ts or refuses an unauthenticated request itself, before reading the body", async () => {
  const skipped: string[] = [];
  for (const r of routes().filter((x) => x.kind === "route")) {
    if (matched(r.url)) continue;
    skipped.push(r.url);
    const mod = (await import(path.join(appDir, r.file))) as Record<string, unknown>;
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => typeof mod[m] === "function");
    assert.ok(methods.length > 0, r.file);
    for (const m of methods) {
      let bodyRead = false;
      const body =
        m === "GET"
          ? null
          : new ReadableStream(
              { pull: (c) => ((bodyRead = true), c.enqueue(new TextEncoder().encode("{}")), c.close()) },
              { highWaterMark: 0 },
            );
      const req = new Request(`http://127.0.0.1:3000${r.url}`, {
        method: m,
        body,
        headers: { "content-type": "application/json", "x-memo-bind": "0.0.0.0" },
        duplex: "half",
      } as RequestInit);
      const res = (await (mod[m] as (rq: Request, ctx: unknown) => Promise<Response>)(req, {
        params: Promise.resolve({}),
      })) as Response;
      assert.equal(res.status, 401, `${m} ${r.url} (${r.file}) without a session`);
      assert.equal(bodyRead, false, `${m} ${r.url} read the body before checking access`);
    }
  }
  assert.deepEqual(skipped.sort(), [
    "/api/v1/documents",
    "/api/v1/import",
    "/api/v1/import/chatgpt",
    "/api/v1/memories/batch",
  ]);
});

test("every import format's route streams its body past proxy.ts (no hand-kept list); the job routes stay behind it", () => {
  for (const f of Object.values(IMPORT_FORMATS)) assert.equal(matched(f.route), false, f.route);
  // A format added later needs no edit of proxy.ts.
  assert.equal(matched("/api/v1/import/some-new-format"), false);
  for (const u of ["/api/v1/import/jobs", "/api/v1/import/jobs/x", "/api/v1/import/chatgpt/x", "/api/v1/importer"])
    assert.equal(matched(u), true, u);
});
