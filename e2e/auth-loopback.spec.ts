import { test, expect } from "./fixtures";
import { AccessPage } from "./pages/access.page";
import { LoginPage } from "./pages/login.page";

/**
 * Access control on loopback (the main e2e server; docs/architecture.md#access-and-security, issue 8 item 5):
 * no sign-in, but a cross-site mutation and a request addressed to another host name are refused. On 0.0.0.0:
 * auth.spec.ts.
 */

test.describe("on loopback (no sign-in)", () => {
  test("a cross-site page in a real browser cannot write, and other host names are refused", async ({
    page,
    api,
    baseURL,
  }) => {
    const before = await api.counts();
    // A page on another origin (the chat test double's port) posts to Memo like a CSRF attack would.
    await page.goto(`http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}/__fixture/health`);
    // (no-cors: the page cannot read the answer, but the request is sent, with the browser's Origin header.)
    const answered = page.waitForResponse(`${baseURL}/api/v1/remember`);
    await page.evaluate(async (target) => {
      await fetch(`${target}/api/v1/remember`, {
        method: "POST",
        mode: "no-cors",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ text: "planted by another site" }),
      });
    }, baseURL!);
    const res0 = await answered;
    expect(res0.status(), "refused by the Origin check").toBe(403);
    expect(await api.counts()).toEqual(before);

    const res = await page.request.get(`${baseURL}/api/health`, { headers: { host: "attacker.example:80" } });
    expect(res.status()).toBe(403);
    expect((await res.json()).error.message).toMatch(/Host 'attacker.example:80' refused/);
  });

  test("same-origin pages and programs without Origin work; Settings says no sign-in is needed", async ({
    page,
    request,
    api,
  }) => {
    const before = await api.counts();
    expect(
      (
        await request.post("/api/v1/remember", {
          data: { text: "from a script on this machine", space: "loopback-e2e" },
        })
      ).status(),
    ).toBe(201);
    expect(
      (
        await request.post("/api/v1/remember", { data: { text: "x" }, headers: { origin: "https://evil.example" } })
      ).status(),
    ).toBe(403);
    expect((await api.counts()).memories).toBe(before.memories + 1);
    const access = new AccessPage(page);
    await access.goto();
    await expect(access.mode).toContainText(
      "Memo listens on loopback (127.0.0.1): only this machine can reach it, and no sign-in is needed.",
    );
    const login = new LoginPage(page);
    await login.goto();
    await expect(login.status).toContainText("No owner password is set");
  });
});
