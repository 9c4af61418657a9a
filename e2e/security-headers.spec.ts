import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { test, expect } from "./fixtures";

/**
 * Issue 33 item 2: a page on another origin cannot frame Memo (which on loopback needs no sign-in, so one
 * click in a framed Settings page could revoke a token), and every page of the app renders under its
 * Content-Security-Policy with no violation. The pages are found the way server/auth/routes.test.ts finds
 * routes: every app/**\/page.tsx, so a new page is covered without editing this list.
 */

const appDir = path.resolve(import.meta.dirname, "../app");
const SAMPLE: Record<string, string> = { id: "00000000-0000-4000-8000-000000000000" };

function pages(dir = appDir): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...pages(p));
    else if (e.name === "page.tsx") {
      const rel = path
        .relative(appDir, dir)
        .split(path.sep)
        .filter((s) => s && !/^\(.*\)$/.test(s) && !s.startsWith("_"));
      out.push(`/${rel.map((s) => (/^\[(.+)\]$/.test(s) ? (SAMPLE[s.slice(1, -1)] ?? "x") : s)).join("/")}`);
    }
  }
  return out.sort();
}

test("a page on another origin that frames /settings finds it blocked", async ({ page, baseURL }) => {
  // The other origin: a second loopback port serving one page that frames Memo's Settings.
  const evil = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>elsewhere</title><iframe id="memo" src="${baseURL}/settings"></iframe>`);
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.2", () => r()));
  const refused: string[] = [];
  page.on("console", (m) => {
    if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refused.push(m.text());
  });
  try {
    const settings = page.waitForResponse((r) => r.url() === `${baseURL}/settings`);
    await page.goto(`http://127.0.0.2:${(evil.address() as AddressInfo).port}/`);
    const res = await settings;
    expect(res.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
    expect(res.headers()["x-frame-options"]).toBe("DENY");
    await expect.poll(() => refused.length, { message: "the browser reports the refused frame" }).toBeGreaterThan(0);
    // Nothing of Settings is in the frame: no button to click.
    const frame = page.frame({ url: `${baseURL}/settings` });
    if (frame) await expect(frame.getByRole("heading", { name: "Settings" })).toHaveCount(0);
    await expect(page.frameLocator("#memo").getByRole("button")).toHaveCount(0);
  } finally {
    evil.closeAllConnections();
    await new Promise((r) => evil.close(r));
  }
});

test("every page renders under the CSP with no violation, and sends the security headers", async ({
  page,
  consoleWatch,
}) => {
  const all = pages();
  expect(all).toEqual(expect.arrayContaining(["/", "/settings", "/login", "/ingest", "/memory/search"]));
  // The sample conversation does not exist: its page answers 404 (the browser logs that resource error).
  consoleWatch.allow(/status of 404/);
  await page.addInitScript(() => {
    (window as unknown as { cspViolations: string[] }).cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { cspViolations: string[] }).cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  for (const p of all) {
    const res = (await page.goto(p))!;
    const h = res.headers();
    expect(h["content-security-policy"], p).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(h["content-security-policy"], p).not.toContain("unsafe-eval");
    expect([h["x-frame-options"], h["x-content-type-options"], h["referrer-policy"]], p).toEqual([
      "DENY",
      "nosniff",
      "same-origin",
    ]);
    await page.waitForLoadState("networkidle");
    // Hydrated: Next's client runtime ran (it would not, were its scripts refused).
    await page.waitForFunction(() => typeof (window as { next?: { version?: string } }).next?.version === "string");
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), p).toEqual([]);
  }
  // Client-side navigation loads more chunks under 'strict-dynamic': still no violation.
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await page.waitForLoadState("networkidle");
  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
});
