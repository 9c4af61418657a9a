import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { AccessPage } from "./pages/access.page";
import { LoginPage } from "./pages/login.page";
import { LAN_PASSWORD, SECRET_KEYS, startLanServer, type LanServer } from "./support/lan-server";

/**
 * Access control (docs/architecture.md#access-and-security, issue 8 item 5) on 0.0.0.0 (a second server started
 * here): every page and API needs a session or an API token; sign-in is rate limited; only hashes are stored;
 * provider keys never reach the browser. On loopback (the main e2e server): auth-loopback.spec.ts. This file
 * shares nothing with the e2e app: it runs in the "own Memo" project, beside the app's specs (playwright.config.ts).
 */

const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

let lan: LanServer;

test.describe.configure({ mode: "serial", timeout: 90_000 });

test.beforeAll(async () => {
  lan = await startLanServer(2);
});
test.afterAll(async () => {
  await lan?.stop();
});

async function lanRequest(
  playwright: { request: { newContext(o: object): Promise<APIRequestContext> } },
  headers: Record<string, string> = {},
): Promise<APIRequestContext> {
  return playwright.request.newContext({ baseURL: lan.url, extraHTTPHeaders: headers, maxRedirects: 0 });
}

/** A browser context on the LAN server that fails the test on console errors. */
async function lanBrowser(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL: lan.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    // The browser logs failed sign-ins (401) and refused requests as resource errors: expected here.
    if (m.type() === "error" && !/status of 40[13]/.test(m.text())) errors.push(m.text());
  });
  return { context, page, errors };
}

async function signInCookie(req: APIRequestContext): Promise<string> {
  const res = await req.post("/api/auth/login", { data: { password: LAN_PASSWORD } });
  expect(res.status(), await res.text()).toBe(200);
  const cookie = res.headers()["set-cookie"]!;
  return /memo_session=([^;]+)/.exec(cookie)![1]!;
}

test("on 0.0.0.0, every page and API needs a session; a session opens them all", async ({ playwright }) => {
  const anon = await lanRequest(playwright);
  const rpc = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
  const cases: { method: string; path: string; body?: unknown; status: number; check: RegExp }[] = [
    { method: "GET", path: "/", status: 303, check: /\/login\?next=%2F$/ },
    { method: "GET", path: "/memory/search?q=x", status: 303, check: /\/login\?next=%2Fmemory%2Fsearch%3Fq%3Dx$/ },
    { method: "GET", path: "/settings", status: 303, check: /\/login\?next=%2Fsettings$/ },
    { method: "GET", path: "/c/00000000-0000-4000-8000-000000000000", status: 303, check: /\/login\?next=/ },
    { method: "GET", path: "/api/health", status: 401, check: /"status":401,"message":"sign in first/ },
    { method: "GET", path: "/api/trpc/health.get", status: 401, check: /sign in first/ },
    { method: "POST", path: "/api/trpc/memory.add", body: { text: "x" }, status: 401, check: /sign in first/ },
    { method: "POST", path: "/api/v1/search", body: { query: "x" }, status: 401, check: /sign in first/ },
    { method: "GET", path: "/api/v1/export", status: 401, check: /sign in first/ },
    { method: "POST", path: "/api/chat", body: { message: "hi" }, status: 401, check: /sign in first/ },
    // Routes the proxy leaves alone (streamed bodies) check access themselves:
    { method: "POST", path: "/api/v1/documents", body: { x: 1 }, status: 401, check: /sign in first/ },
    { method: "GET", path: "/api/v1/documents", status: 401, check: /sign in first/ },
    { method: "POST", path: "/api/v1/import", body: {}, status: 401, check: /sign in first/ },
    { method: "POST", path: "/api/v1/memories/batch", body: { items: [] }, status: 401, check: /sign in first/ },
    { method: "GET", path: "/v1/models", status: 401, check: /"type":"authentication_error","code":"invalid_api_key"/ },
    {
      method: "POST",
      path: "/v1/chat/completions",
      body: { model: "memo", messages: [] },
      status: 401,
      check: /authentication_error/,
    },
    { method: "POST", path: "/mcp", body: rpc, status: 401, check: /"jsonrpc":"2.0","error":\{"code":-32001/ },
  ];
  for (const c of cases) {
    const res = await anon.fetch(c.path, { method: c.method, data: c.body });
    expect(res.status(), `${c.method} ${c.path}`).toBe(c.status);
    if (c.status === 303) expect(res.headers().location, c.path).toMatch(c.check);
    else {
      expect(await res.text(), c.path).toMatch(c.check);
      expect(res.headers()["www-authenticate"]).toBe('Bearer realm="memo"');
    }
  }
  // A forged cookie is nobody.
  const forged = await lanRequest(playwright, { cookie: "memo_session=forged-session-value" });
  expect((await forged.get("/api/health")).status()).toBe(401);

  const session = await lanRequest(playwright, { cookie: `memo_session=${await signInCookie(anon)}` });
  for (const p of [
    "/",
    "/settings",
    "/memory/search",
    "/api/health",
    "/api/trpc/health.get",
    "/api/v1/documents",
    "/v1/models",
  ]) {
    expect((await session.get(p)).status(), p).toBe(200);
  }
  expect(
    (await session.post("/mcp", { data: rpc, headers: { accept: "application/json, text/event-stream" } })).status(),
  ).toBe(200);
  await Promise.all([anon.dispose(), forged.dispose(), session.dispose()]);
});

test("sign in and out in the browser: back where you were, httpOnly SameSite cookie, session gone after sign-out", async ({
  browser,
  playwright,
}) => {
  const { context, page, errors } = await lanBrowser(browser);
  const login = new LoginPage(page);
  await page.goto("/memory/search");
  await expect(page).toHaveURL(/\/login\?next=%2Fmemory%2Fsearch$/);
  await expect(login.heading).toBeVisible();

  await login.signIn("not the password");
  await expect(login.error).toHaveText("wrong sign-in name or password");
  await expect(login.password).toHaveValue("");
  await login.signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(/\/memory\/search$/);

  const [cookie] = (await context.cookies()).filter((c) => c.name === "memo_session");
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" });
  expect(await page.evaluate(() => document.cookie)).not.toContain("memo_session"); // no script can read it
  // The known-device cookie: for sign-in and the password forms only (/api), no script reads it either.
  const [device] = (await context.cookies()).filter((c) => c.name === "memo_device");
  expect(device).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/api" });

  // Signed in, the navigation offers Sign out; it ends the session on the server, not just in this browser.
  await page.goto("/settings");
  await expect(new AccessPage(page).mode).toContainText(
    "Memo listens on 0.0.0.0: every page and API needs a sign-in or an API token.",
  );
  await login.signOut.click();
  await expect(page).toHaveURL(/\/login$/);
  expect((await context.cookies()).filter((c) => c.name === "memo_session")).toEqual([]);
  const replay = await lanRequest(playwright, { cookie: `memo_session=${cookie!.value}` });
  expect((await replay.get("/api/health")).status(), "the old cookie no longer works").toBe(401);
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings$/);
  // An open redirect is not possible: next must be a path on this site — also when the browser would
  // read it as another host after dropping a tab (issue 33 item 6).
  for (const next of ["https%3A%2F%2Fevil.example%2F", "%2F%09%2F127.0.0.5:9%2Fpwned"]) {
    await page.goto(`/login?next=${next}`);
    await login.signIn(LAN_PASSWORD);
    await expect(page).toHaveURL(`${lan.url}/`);
    await context.clearCookies(); // signed out again for the next try
  }
  expect(errors).toEqual([]);
  await replay.dispose();
  await context.close();
});

test("a signed-out visitor's sign-in page shows no app menu: only what they can use (issue 58)", async ({
  browser,
}) => {
  const { context, page, errors } = await lanBrowser(browser);
  const login = new LoginPage(page);
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto("/settings");
    await expect(page).toHaveURL(/\/login\?next=%2Fsettings$/);
    await expect(login.heading).toBeVisible();
    await expect(nav).toContainText("Memo");
    // Before: Chat, Ingest, Debug Search, Manager, Facts, Analytics, Settings — each one back to /login.
    await expect(nav.getByRole("link")).toHaveCount(0);
    await expect(login.signOut).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath(`login-signed-out-${width}x${height}.png`), fullPage: true });
  }
  // Signed in, the menu is there.
  await page.setViewportSize({ width: 1280, height: 800 });
  await login.signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(/\/settings$/);
  await expect(nav.getByRole("link", { name: "Chat" })).toBeVisible();
  await expect(login.signOut).toBeVisible();
  expect(errors).toEqual([]);
  await context.close();
});

test("a saved setting that no longer parses: Settings shows which part, beside its section; the rest is kept (issue 58)", async ({
  browser,
}) => {
  // The job settings as an older version might have saved them: one part no schema accepts now.
  const db = new Database(lan.dbFile);
  db.pragma("busy_timeout = 5000");
  db.prepare(
    `INSERT INTO settings (key, value, updated_at) VALUES ('jobs', ?, '2026-01-01T00:00:00.000Z')
     ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
  ).run(JSON.stringify({ decay: { enabled: true, time: "25:99" }, consolidate: { maxPerSpace: 150 }, lifetime: {} }));
  db.close();
  const { context, page, errors } = await lanBrowser(browser);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/settings#jobs");
  await new LoginPage(page).signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(/\/settings/);
  const jobs = page.getByTestId("jobs-section");
  const notice = jobs.getByTestId("unkept-settings");
  await expect(notice).toContainText("Some saved settings could not be kept");
  await expect(notice).toContainText("decay.time");
  await expect(jobs.getByLabel("Memories compared per space")).toHaveValue("150"); // the rest is in force
  await jobs.scrollIntoViewIfNeeded();
  await jobs.screenshot({ path: test.info().outputPath("jobs-unkept-notice.png") });
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await expect(notice).toHaveCount(0);
  expect(errors).toEqual([]);
  await context.close();
});

test("API tokens: created in Settings and shown once, used by programs, powerless to manage access, revoked in Settings", async ({
  browser,
  playwright,
}) => {
  const { context, page, errors } = await lanBrowser(browser);
  await page.goto("/login?next=%2Fsettings");
  await new LoginPage(page).signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(/\/settings$/);
  const access = new AccessPage(page);
  await access.goto();
  const token = await access.create("e2e script");
  expect(token).toMatch(/^memo_[A-Za-z0-9_-]{43}$/);
  await page.reload();
  await expect(access.tokenRow("e2e script")).toContainText(token.slice(0, 11));
  expect(await page.content(), "the token is shown once, never listed").not.toContain(token);

  const program = await lanRequest(playwright, { authorization: `Bearer ${token}` });
  expect((await program.get("/v1/models")).status()).toBe(200);
  expect(
    (await program.post("/api/v1/memories", { data: { text: "Written with an API token", space: "tokens" } })).status(),
  ).toBe(201);
  const found = await program.post("/api/v1/search", { data: { query: "API token", space: "tokens" } });
  expect((await found.json()).results[0].content).toBe("Written with an API token");
  const mcp = await program.post("/mcp", {
    data: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    headers: { accept: "application/json, text/event-stream" },
  });
  expect(mcp.status()).toBe(200);
  // Token requests are exempt from the Origin check (a browser cannot send Authorization cross-site).
  expect(
    (
      await program.post("/api/v1/forget", {
        data: { pattern: "nothing like this", space: "tokens" },
        headers: { origin: "https://elsewhere.example" },
      })
    ).status(),
  ).toBe(200);
  // A token may use Memo, not manage access: no minting, not even the list of tokens (issue 33 item 9).
  const mint = await program.post("/api/trpc/access.createToken", { data: { name: "escalation" } });
  expect(mint.status()).toBe(403);
  expect(await mint.text()).toContain("API tokens cannot");
  expect((await program.get("/api/trpc/access.tokens")).status()).toBe(403);
  // Nor provider, model or job settings (issue 33 item 1): the review's key theft is refused before any
  // request leaves Memo — Test with another base URL, or saving one.
  const steal = { provider: "openai", settings: { openai: { baseUrl: "http://127.0.0.1:9/v1" } } };
  for (const [proc, body] of [
    ["providers.test", steal],
    ["providers.save", { anthropic: { baseUrl: "http://127.0.0.1:9" } }],
    ["providers.select", { provider: "anthropic" }],
    ["jobs.saveSettings", {}],
  ] as const) {
    const r = await program.post(`/api/trpc/${proc}`, { data: body });
    expect(r.status(), proc).toBe(403);
  }
  expect((await program.get("/api/trpc/providers.status")).status()).toBe(403);

  await access.revoke("e2e script");
  const refused = await program.get("/v1/models");
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.message).toBe("invalid or revoked API token");
  expect(errors).toEqual([]);
  await program.dispose();
  await context.close();
});

test("Origin check: a session does not make a cross-site mutation pass", async ({ playwright }) => {
  const anon = await lanRequest(playwright);
  const cookie = `memo_session=${await signInCookie(anon)}`;
  const session = await lanRequest(playwright, { cookie });
  const body = { data: { text: "cross-site attempt", space: "csrf" } };
  for (const headers of <Record<string, string>[]>[
    { origin: "https://evil.example" },
    { origin: "null" },
    { "sec-fetch-site": "cross-site" },
    { origin: "http://127.0.0.1:1" },
  ]) {
    const res = await session.post("/api/v1/remember", { ...body, headers });
    expect(res.status(), JSON.stringify(headers)).toBe(403);
    expect((await res.json()).error.message).toMatch(/cross-site request refused/);
  }
  expect(
    (
      await session.post("/api/v1/remember", { ...body, headers: { origin: lan.url, "sec-fetch-site": "same-origin" } })
    ).status(),
  ).toBe(201);
  // Sign-in itself is a mutation: login CSRF is refused too.
  expect(
    (
      await anon.post("/api/auth/login", {
        data: { password: LAN_PASSWORD },
        headers: { origin: "https://evil.example" },
      })
    ).status(),
  ).toBe(403);
  await Promise.all([anon.dispose(), session.dispose()]);
});

test("sign-in is throttled per address and account with backoff; the client cannot pick its address; the owner's own browser still gets in", async ({
  playwright,
}) => {
  const own = await lanRequest(playwright);
  await signInCookie(own); // the owner's browser signs in: it is a known device from now on
  const guesser = await lanRequest(playwright); // a browser that never signed in
  const spoof = { "x-forwarded-for": "203.0.113.9", "x-memo-peer": "198.51.100.7" };
  for (let i = 0; i < 5; i++) {
    const res = await guesser.post("/api/auth/login", { data: { password: `guess ${i}` }, headers: spoof });
    expect(res.status()).toBe(401);
  }
  const limited = await guesser.post("/api/auth/login", { data: { password: LAN_PASSWORD } });
  expect(limited.status(), "even the right password waits").toBe(429);
  expect(Number(limited.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  expect((await limited.json()).error.message).toMatch(/too many failed sign-in attempts; try again in \d+ seconds?/);
  // The owner's own browser (its memo_device cookie) is not held by someone else's guesses.
  expect((await own.post("/api/auth/login", { data: { password: LAN_PASSWORD } })).status()).toBe(200);
  // The spoofed headers did not choose the bucket: every attempt is recorded under the socket's address.
  const db = new Database(lan.dbFile, { readonly: true });
  const ips = db.prepare("SELECT DISTINCT ip FROM login_attempts").all() as { ip: string }[];
  db.close();
  expect(ips.map((r) => r.ip)).toEqual(["127.0.0.1"]);
  await new Promise((r) => setTimeout(r, Number(limited.headers()["retry-after"]) * 1000 + 100));
  expect((await guesser.post("/api/auth/login", { data: { password: LAN_PASSWORD } })).status()).toBe(200);
  await Promise.all([own.dispose(), guesser.dispose()]);
});

test("only hashes are stored: the password, session cookies and API tokens are not in the database files", async ({
  playwright,
}) => {
  const anon = await lanRequest(playwright);
  const sessionValue = await signInCookie(anon);
  const deviceValue = (await anon.storageState()).cookies.find((c) => c.name === "memo_device")!.value;
  expect(deviceValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const session = await lanRequest(playwright, { cookie: `memo_session=${sessionValue}`, origin: lan.url });
  const created = await session.post("/api/trpc/access.createToken", { data: { name: "hash check" } });
  expect(created.status()).toBe(200);
  const token = (await created.json()).result.data.token as string;

  const db = new Database(lan.dbFile, { readonly: true });
  const owner = db.prepare("SELECT password_hash FROM auth_owner").get() as { password_hash: string };
  const tokenRow = db.prepare("SELECT token_hash FROM api_tokens WHERE name = 'hash check'").get() as {
    token_hash: string;
  };
  const sessionRow = db.prepare("SELECT id_hash FROM auth_sessions WHERE id_hash = ?").get(sha256(sessionValue));
  db.close();
  expect(owner.password_hash).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  expect(tokenRow.token_hash).toBe(sha256(token));
  expect(sessionRow).toBeTruthy();
  const dir = path.dirname(lan.dbFile);
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith("memory.db"))) {
    const bytes = fs.readFileSync(path.join(dir, f));
    for (const secret of [LAN_PASSWORD, token, sessionValue, deviceValue])
      expect(bytes.includes(Buffer.from(secret)), `${secret.slice(0, 8)}… in ${f}`).toBe(false);
  }
  await Promise.all([anon.dispose(), session.dispose()]);
});

test("changing the password revokes API tokens and other sessions unless the box is unticked (issue 33 item 9)", async ({
  browser,
  playwright,
}) => {
  const anon = await lanRequest(playwright);
  const other = await lanRequest(playwright, { cookie: `memo_session=${await signInCookie(anon)}` });
  const { context, page, errors } = await lanBrowser(browser);
  await page.goto("/login?next=%2Fsettings");
  await new LoginPage(page).signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(/\/settings$/);
  const access = new AccessPage(page);
  const token = await access.create("before the change");
  const program = await lanRequest(playwright, { authorization: `Bearer ${token}` });
  expect((await program.get("/v1/models")).status()).toBe(200);

  const change = async (from: string, to: string, revoke: boolean) => {
    const form = page.getByRole("form", { name: "Change the owner password" });
    await form.getByLabel("Current password", { exact: true }).fill(from);
    await form.getByLabel("New password", { exact: true }).fill(to);
    await form.getByLabel("Repeat", { exact: true }).fill(to);
    const box = form.getByRole("checkbox", { name: "Sign out other sessions and revoke all API tokens" });
    await expect(box).toBeChecked(); // offered, and on by default
    if (!revoke) await box.uncheck();
    await form.getByRole("button", { name: "Save password" }).click();
  };
  await change(LAN_PASSWORD, "a temporary new password", true);
  await expect(access.notice).toHaveText(
    /^Password saved\. \d+ other sessions? signed out\. \d+ API tokens? revoked\.$/,
  );
  expect((await program.get("/v1/models")).status(), "the token made before is revoked").toBe(401);
  expect((await other.get("/api/health")).status(), "the other session is signed out").toBe(401);
  expect((await page.request.get("/api/health")).status(), "this browser stays signed in").toBe(200);
  // Back to the shared password, this time keeping everything.
  const kept = await lanRequest(playwright, {
    authorization: `Bearer ${await access.create("kept across a change")}`,
  });
  await change("a temporary new password", LAN_PASSWORD, false);
  await expect(access.notice).toHaveText("Password saved.");
  expect((await kept.get("/v1/models")).status()).toBe(200);
  expect(errors).toEqual([]);
  await Promise.all([anon.dispose(), other.dispose(), program.dispose(), kept.dispose(), context.close()]);
});

test("provider keys never reach the browser: not in any page, tRPC answer or API response", async ({
  browser,
  playwright,
}) => {
  const anon = await lanRequest(playwright);
  const session = await lanRequest(playwright, { cookie: `memo_session=${await signInCookie(anon)}`, origin: lan.url });
  const saved = "sk-ant-e2e-SAVED-in-settings-5e6f";
  expect((await session.post("/api/trpc/providers.save", { data: { anthropic: { apiKey: saved } } })).status()).toBe(
    200,
  );
  const secrets = [...SECRET_KEYS, saved];

  const { context, page, errors } = await lanBrowser(browser);
  const bodies: { url: string; text: string }[] = [];
  page.on("response", async (r) => {
    try {
      bodies.push({ url: r.url(), text: await r.text() });
    } catch {
      /* redirects and aborted requests have no body */
    }
  });
  await page.goto("/login");
  await new LoginPage(page).signIn(LAN_PASSWORD);
  await expect(page).toHaveURL(`${lan.url}/`);
  for (const p of ["/settings", "/ingest", "/memory/search", "/memory/manager", "/memory/analytics", "/"]) {
    await page.goto(p);
    await page.waitForLoadState("networkidle");
  }
  // And what the pages' APIs answer when asked directly, including the ones about providers.
  const direct = [
    "/api/trpc/providers.status",
    "/api/trpc/chat.status",
    "/api/trpc/access.status",
    "/api/trpc/jobs.status",
    "/api/health",
    "/v1/models",
    "/api/v1/export",
  ];
  for (const p of direct) bodies.push({ url: p, text: await (await session.get(p)).text() });
  bodies.push({
    url: "providers.models",
    text: await (
      await session.get(
        `/api/trpc/providers.models?input=${encodeURIComponent(JSON.stringify({ provider: "anthropic" }))}`,
      )
    ).text(),
  });

  expect(bodies.length).toBeGreaterThan(20);
  expect(
    bodies.some((b) => b.url.includes("providers.status") && b.text.includes('"apiKeySet":true')),
    "the browser only learns that a key is set",
  ).toBe(true);
  for (const b of bodies)
    for (const s of secrets) expect(b.text.includes(s), `${s.slice(0, 12)}… in ${b.url}`).toBe(false);
  // Nor is the saved key in the database files: it is sealed with data/secret.key (issue 33 item 10).
  const dir = path.dirname(lan.dbFile);
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith("memory.db")))
    expect(fs.readFileSync(path.join(dir, f)).includes(Buffer.from(saved)), `the saved key in ${f}`).toBe(false);
  expect(fs.statSync(path.join(lan.dataDir, "secret.key")).mode & 0o777).toBe(0o600);
  expect(errors).toEqual([]);
  await Promise.all([anon.dispose(), session.dispose(), context.close()]);
});
