import { expect, type APIRequestContext } from "@playwright/test";

/** What the chat specs need from the app besides the page: tRPC calls for provider settings, waiting for memories. */
export class ChatApi {
  constructor(private readonly request: APIRequestContext) {}

  private async trpc<T>(procedure: string, input?: unknown): Promise<T> {
    const res = await this.request.post(`/api/trpc/${procedure}`, {
      data: input === undefined ? undefined : JSON.stringify(input),
      headers: { "content-type": "application/json" },
    });
    const body = (await res.json()) as { result?: { data: T }; error?: { message: string } };
    if (!res.ok()) throw new Error(`${procedure}: HTTP ${res.status()}: ${body.error?.message}`);
    return body.result!.data;
  }

  private async query<T>(procedure: string, input: unknown): Promise<T> {
    const res = await this.request.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`);
    const body = (await res.json()) as { result?: { data: T }; error?: { message: string } };
    if (!res.ok()) throw new Error(`${procedure}: HTTP ${res.status()}: ${body.error?.message}`);
    return body.result!.data;
  }

  /** The live memories of a space (Manager's list), newest first. */
  async liveMemories(space: string): Promise<{ id: string; content: string; kind: string }[]> {
    const r = await this.query<{ items: { id: string; content: string; kind: string }[] }>("manager.list", {
      space,
      status: "live",
      pageSize: 100,
      page: 1,
      sort: "created",
      order: "desc",
    });
    return r.items;
  }

  /** The chat requests (not fact extractions) the OpenAI-compatible fixture received whose last user message contains `text`. */
  async providerCalls(text: string): Promise<number> {
    const res = await this.request.get(`http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}/__fixture/requests`);
    const all = (await res.json()) as {
      path: string;
      body: { messages?: { role: string; content: unknown }[]; response_format?: unknown } | null;
    }[];
    return all.filter(
      (r) =>
        r.path === "/v1/chat/completions" &&
        !r.body?.response_format && // a fact extraction about the exchange is not a chat call
        String([...(r.body?.messages ?? [])].reverse().find((m) => m.role === "user")?.content ?? "").includes(text),
    ).length;
  }

  /** Hide (or show again) the first-run checklist above the chat, as a returning user has it. */
  setChecklistDismissed(dismissed: boolean): Promise<unknown> {
    return this.trpc("setup.setChecklistDismissed", { dismissed });
  }

  /** Forget saved provider settings: the app's environment (the fixture) decides again. */
  resetProviders(): Promise<unknown> {
    return this.trpc("providers.reset");
  }

  saveProviders(patch: Record<string, unknown>): Promise<unknown> {
    return this.trpc("providers.save", patch);
  }

  /** Wait until a search in `space` finds a memory containing `text` (exchanges are persisted after the reply). */
  async waitForMemory(
    space: string,
    query: string,
    text: string | RegExp,
  ): Promise<{ id: string; content: string; kind?: string }> {
    let found: { id: string; content: string; kind?: string } | undefined;
    await expect
      .poll(
        async () => {
          const res = await this.request.post("/api/v1/search", { data: { query, space, k: 20 } });
          if (!res.ok()) return false;
          const { results } = (await res.json()) as { results: { id: string; content: string; kind?: string }[] };
          found = results.find((r) => (typeof text === "string" ? r.content.includes(text) : text.test(r.content)));
          return Boolean(found);
        },
        { timeout: 15_000, message: `a memory with ${String(text)} in space ${space}` },
      )
      .toBe(true);
    return found!;
  }
}
