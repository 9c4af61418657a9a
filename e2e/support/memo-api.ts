import { expect, type APIRequestContext, type APIResponse, type TestInfo } from "@playwright/test";

/** The app's HTTP API (`/api/health`, `/api/v1/*`) as the e2e tests use it: typed, with status checks. */

export interface StoreCounts {
  memories: number;
  vectors: number;
  fts: number;
  consistent: boolean;
}

export interface Health {
  ok: boolean;
  embedder: { status: string; model: string | null; dim: number | null; fallback?: boolean };
  store: StoreCounts & { model: string | null; dim: number | null };
}

export interface NewMemory {
  text: string;
  space?: string;
  timestamp?: string;
  kind?: string;
  importance?: number;
  pinned?: boolean;
}

export interface SearchHit {
  id: string;
  content: string;
  matchType: "vector" | "fts" | "hybrid" | "neighbour";
  scores: { similarity: number | null; ftsRank: number | null; rrf: number };
  /** What moved it (neighbour bonus, date window, recency, confidence features). */
  moves?: string[];
}

export interface SearchResponse {
  results: SearchHit[];
  dropped: (SearchHit & { reason: string })[];
  model: string;
  /** The dates the query named, resolved against the search's `at` (default now). */
  time: { windows: { start: string; end: string; text: string }[]; recent: boolean };
}

export interface ApiError {
  error: { status: number; message: string };
}

let counter = 0;

/** A space name of its own for one test: `e2e-<title>-<n>`, within the 1–64 [A-Za-z0-9_-] rule. */
export function uniqueSpace(testInfo: TestInfo): string {
  const slug = testInfo.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 30);
  return `e2e-${slug}-${Date.now().toString(36)}-${++counter}`.slice(0, 64);
}

export class MemoApi {
  constructor(private readonly request: APIRequestContext) {}

  async health(): Promise<Health> {
    const res = await this.request.get("/api/health");
    expect([200, 503], `GET /api/health status`).toContain(res.status());
    return (await res.json()) as Health;
  }

  async counts(): Promise<StoreCounts> {
    const { memories, vectors, fts, consistent } = (await this.health()).store;
    return { memories, vectors, fts, consistent };
  }

  async addMemory(memory: NewMemory): Promise<string[]> {
    const res = await this.request.post("/api/v1/memories", { data: memory });
    await expectStatus(res, 201, "POST /api/v1/memories");
    return ((await res.json()) as { ids: string[] }).ids;
  }

  /** Add several memories in one transaction; returns the ids per item. */
  async addMemories(items: NewMemory[]): Promise<string[][]> {
    const res = await this.request.post("/api/v1/memories/batch", { data: { items } });
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
    const res = await this.request.post("/api/v1/search", { data: body });
    await expectStatus(res, 200, "POST /api/v1/search");
    return (await res.json()) as SearchResponse;
  }

  async forget(
    pattern: string,
    space?: string,
  ): Promise<{ count: number; undo: { ids: string[]; until: string }; message: string }> {
    const res = await this.request.post("/api/v1/forget", { data: { pattern, space } });
    await expectStatus(res, 200, "POST /api/v1/forget");
    return res.json();
  }

  async restore(ids: string[]): Promise<{ restored: string[] }> {
    const res = await this.request.post("/api/v1/memories/restore", { data: { ids } });
    await expectStatus(res, 200, "POST /api/v1/memories/restore");
    return res.json();
  }

  async deleteMemory(id: string): Promise<{ id: string; deleted: string }> {
    const res = await this.request.delete(`/api/v1/memories/${id}`);
    await expectStatus(res, 200, `DELETE /api/v1/memories/${id}`);
    return res.json();
  }

  /** POST a raw body (string, for invalid JSON) or a value (sent as JSON) without any status check. */
  async postRaw(path: string, body: string | unknown, contentType = "application/json"): Promise<APIResponse> {
    // A Buffer is sent byte for byte (Playwright would JSON-encode a string sent as application/json).
    const data = Buffer.from(typeof body === "string" ? body : JSON.stringify(body), "utf8");
    return this.request.post(path, { data, headers: { "content-type": contentType } });
  }
}

async function expectStatus(res: APIResponse, status: number, what: string): Promise<void> {
  if (res.status() !== status) {
    throw new Error(`${what}: expected HTTP ${status}, got ${res.status()}: ${await res.text()}`);
  }
}
