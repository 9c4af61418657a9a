/**
 * TEST CLIENT: the app's HTTP API (`/api/health`, `/api/v1/*`) as the integration tests use it over real HTTP
 * (server/test/app-server.ts): typed, with status checks — the node:test twin of e2e/support/memo-api.ts.
 */
import type { ApiError, Health, NewMemory, SearchResponse, StoreCounts } from "../../e2e/support/memo-api";

export type { ApiError, Health, NewMemory, SearchResponse, StoreCounts };

let counter = 0;

/** A space name of its own for one test: `it-<title>-<n>`, within the 1–64 [A-Za-z0-9_-] rule. */
export function uniqueSpace(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 30);
  return `it-${slug}-${Date.now().toString(36)}-${++counter}`.slice(0, 64);
}

export class HttpApi {
  constructor(readonly baseURL: string) {}

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(new URL(path, this.baseURL), { redirect: "manual", ...init });
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, { headers });
  }

  /** POST a value as JSON. */
  post(path: string, data: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, {
      method: "POST",
      body: JSON.stringify(data),
      headers: { "content-type": "application/json", ...headers },
    });
  }

  patch(path: string, data: unknown): Promise<Response> {
    return this.fetch(path, {
      method: "PATCH",
      body: JSON.stringify(data),
      headers: { "content-type": "application/json" },
    });
  }

  delete(path: string): Promise<Response> {
    return this.fetch(path, { method: "DELETE" });
  }

  /** POST a raw body (string, for invalid JSON; bytes as they are) or a value (sent as JSON), no status check. */
  postRaw(path: string, body: string | unknown, contentType = "application/json"): Promise<Response> {
    const data =
      typeof body === "string"
        ? Buffer.from(body, "utf8")
        : Buffer.isBuffer(body)
          ? body
          : Buffer.from(JSON.stringify(body));
    return this.fetch(path, { method: "POST", body: new Uint8Array(data), headers: { "content-type": contentType } });
  }

  async health(): Promise<Health> {
    const res = await this.get("/api/health");
    if (res.status !== 200 && res.status !== 503) throw new Error(`GET /api/health: HTTP ${res.status}`);
    return (await res.json()) as Health;
  }

  async counts(): Promise<StoreCounts> {
    const { memories, vectors, fts, consistent } = (await this.health()).store;
    return { memories, vectors, fts, consistent };
  }

  async addMemory(memory: NewMemory): Promise<string[]> {
    const res = await this.post("/api/v1/memories", memory);
    await expectStatus(res, 201, "POST /api/v1/memories");
    return ((await res.json()) as { ids: string[] }).ids;
  }

  /** Add several memories in one transaction; returns the ids per item. */
  async addMemories(items: NewMemory[]): Promise<string[][]> {
    const res = await this.post("/api/v1/memories/batch", { items });
    await expectStatus(res, 201, "POST /api/v1/memories/batch");
    return ((await res.json()) as { ids: string[][] }).ids;
  }

  async search(body: {
    query: string;
    space?: string;
    k?: number;
    context?: string[];
    at?: string;
    tzOffsetMinutes?: number;
    options?: Record<string, unknown>;
  }): Promise<SearchResponse> {
    const res = await this.post("/api/v1/search", body);
    await expectStatus(res, 200, "POST /api/v1/search");
    return (await res.json()) as SearchResponse;
  }

  async forget(
    pattern: string,
    space?: string,
  ): Promise<{ count: number; undo: { ids: string[]; until: string }; message: string }> {
    const res = await this.post("/api/v1/forget", { pattern, space });
    await expectStatus(res, 200, "POST /api/v1/forget");
    return res.json() as Promise<{ count: number; undo: { ids: string[]; until: string }; message: string }>;
  }

  async restore(ids: string[]): Promise<{ restored: string[] }> {
    const res = await this.post("/api/v1/memories/restore", { ids });
    await expectStatus(res, 200, "POST /api/v1/memories/restore");
    return res.json() as Promise<{ restored: string[] }>;
  }

  async deleteMemory(id: string): Promise<{ id: string; deleted: string }> {
    const res = await this.delete(`/api/v1/memories/${id}`);
    await expectStatus(res, 200, `DELETE /api/v1/memories/${id}`);
    return res.json() as Promise<{ id: string; deleted: string }>;
  }

  /** Wait until a search in `space` finds a memory matching `text` (chat exchanges are persisted after the reply). */
  async waitForMemory(
    space: string,
    query: string,
    text: string | RegExp,
    timeoutMs = 30_000,
  ): Promise<{ id: string; content: string; kind?: string }> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      const res = await this.post("/api/v1/search", { query, space, k: 20 });
      if (res.ok) {
        const { results } = (await res.json()) as { results: { id: string; content: string; kind?: string }[] };
        const found = results.find((r) => (typeof text === "string" ? r.content.includes(text) : text.test(r.content)));
        if (found) return found;
        last = JSON.stringify(results.map((r) => r.content));
      } else last = `HTTP ${res.status}`;
      if (Date.now() > deadline)
        throw new Error(`no memory matching ${text} in ${space} after ${timeoutMs} ms; last saw ${last}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function expectStatus(res: Response, status: number, what: string): Promise<void> {
  if (res.status !== status)
    throw new Error(`${what}: expected HTTP ${status}, got ${res.status}: ${await res.text()}`);
}
