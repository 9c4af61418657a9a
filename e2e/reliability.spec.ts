import { expect, test } from "@playwright/test";

/**
 * Reliability over real HTTP through Next (issue 8): a client that disconnects mid-reply cancels the
 * provider request — Next must pass the disconnect on to the route (server/chat/disconnect.test.ts checks
 * the routes themselves). `npm run load -- --short` on its own Memo: load.spec.ts.
 */
const fixture = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;

type Streams = { started: number; completed: number; abandoned: number; lastAbandonedAt: string | null };
/** The fixture's streamed replies to messages containing `tok`: this test's own, whatever else streams meanwhile. */
const streams = async (tok: string): Promise<Streams> =>
  (await (await fetch(`${fixture}/__fixture/streams?containing=${encodeURIComponent(tok)}`)).json()) as Streams;

test.describe("reliability", () => {
  for (const route of ["/api/chat", "/v1/chat/completions"] as const) {
    test(`a client that disconnects mid-reply from ${route} stops the provider request`, async ({ baseURL }) => {
      const tok = `lighthouse ${Date.now()}`;
      const before = await streams(tok);
      const ac = new AbortController();
      const message = `[fixture:slow] tell me the long story of the ${tok}`;
      const body =
        route === "/api/chat"
          ? { message, space: "reliability" }
          : { model: "memo", stream: true, messages: [{ role: "user", content: message }] };
      const res = await fetch(`${baseURL}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: baseURL!, "x-memo-space": "reliability" },
        body: JSON.stringify(body),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let seen = "";
      while (!/"type":"delta"|"content":"Fixture/.test(seen)) {
        const { done, value } = await reader.read();
        expect(done).toBe(false);
        seen += new TextDecoder().decode(value);
      }
      const disconnectedAt = Date.now();
      ac.abort(); // the browser tab closes
      await expect.poll(async () => (await streams(tok)).abandoned, { timeout: 5_000 }).toBe(before.abandoned + 1);
      const after = await streams(tok);
      expect(after.completed).toBe(before.completed);
      // [fixture:slow] sends a piece every 300 ms for several seconds: it stopped right after the disconnect
      expect(Date.parse(after.lastAbandonedAt!) - disconnectedAt).toBeLessThan(1_500);
    });
  }
});
