import fs from "node:fs";
import { expect, type APIRequestContext } from "@playwright/test";
import { memoryBlock, type FixtureRequest } from "./openai-fixture";

/** The privacy spec's helpers: the remote-counted TEST DOUBLE's received requests, saved sharing choices, the app's test clock. */
export class PrivacyApi {
  /** The second fixture instance, which the app counts as remote (MEMO_TREAT_AS_REMOTE in playwright.config.ts). */
  readonly remoteHost = `127.0.0.1:${process.env.MEMO_E2E_REMOTE_FIXTURE_PORT}`;
  readonly localHost = `127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;

  constructor(private readonly request: APIRequestContext) {}

  async trpc<T>(procedure: string, input?: unknown): Promise<T> {
    const res = await this.request.post(`/api/trpc/${procedure}`, {
      data: input === undefined ? undefined : JSON.stringify(input),
      headers: { "content-type": "application/json" },
    });
    const body = (await res.json()) as { result?: { data: T }; error?: { message: string } };
    if (!res.ok()) throw new Error(`${procedure}: HTTP ${res.status()}: ${body.error?.message}`);
    return body.result!.data;
  }

  /** The memory blocks of the chat requests a fixture received after `since` requests (null: none in that prompt). */
  async received(host: string, since = 0): Promise<(string | null)[]> {
    const res = await this.request.get(`http://${host}/__fixture/requests`);
    const all = (await res.json()) as FixtureRequest[];
    return all
      .slice(since)
      .filter((r) => r.path === "/v1/chat/completions" && !r.body?.response_format) // not fact extractions
      .map((r) => memoryBlock(r.body!.messages!));
  }

  async requestCount(host: string): Promise<number> {
    return ((await (await this.request.get(`http://${host}/__fixture/requests`)).json()) as unknown[]).length;
  }

  /** Wait until the app's persist queue is idle (every exchange replied to so far is written, or was never queued). */
  async persistIdle(): Promise<void> {
    await expect
      .poll(
        async () => {
          const res = await this.request.get("/api/trpc/chat.status");
          return ((await res.json()) as { result: { data: { persist: { pending: number } } } }).result.data.persist
            .pending;
        },
        { timeout: 15_000, message: "the persist queue empties" },
      )
      .toBe(0);
  }

  /** Forget every saved sharing choice for the remote fixture (ask again). */
  forgetSharing(): Promise<unknown> {
    return this.trpc("privacy.setSharing", { key: `openai@${this.remoteHost}`, mode: null });
  }

  /** Move the app's clock for temporary-chat expiry forward by `ms` (0: real time again). */
  setClockOffset(ms: number): void {
    fs.writeFileSync(process.env.MEMO_E2E_CLOCK_FILE!, String(ms));
  }
}
