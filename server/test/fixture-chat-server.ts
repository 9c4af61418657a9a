/**
 * TEST DOUBLE: an OpenAI-compatible chat server on 127.0.0.1:0 (GET /v1/models, POST
 * /v1/chat/completions, streaming and not) that answers deterministically, so consolidation runs through
 * the real provider path (server/chat/providers/ → the `openai` client → HTTP) without a model.
 *
 * Merge requests (the consolidation prompt's <memory_1>…</memory_1><memory_2>…</memory_2>) are answered
 * with the longer of the two statements (the first on a tie) — what a model does with near-duplicates
 * that differ by a detail. Anything else is answered "fixture reply: <last user message>".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type FixtureChatMode = "ok" | "status-500" | "empty";

export interface FixtureChatRequest {
  path: string;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    stream?: boolean;
    temperature?: number;
  } | null;
}

/** The fixture's merge rule, exported so tests can state what they expect. */
export function fixtureMerge(a: string, b: string): string {
  return b.trim().length > a.trim().length ? b.trim() : a.trim();
}

export function parseMergePrompt(text: string): [string, string] | null {
  const m = text.match(/<memory_1>\n?([\s\S]*?)\n?<\/memory_1>\s*<memory_2>\n?([\s\S]*?)\n?<\/memory_2>/);
  return m ? [m[1]!, m[2]!] : null;
}

export class FixtureChatServer {
  readonly requests: FixtureChatRequest[] = [];
  mode: FixtureChatMode = "ok";
  /** Milliseconds to wait before answering (to see that callers stay responsive). */
  delayMs = 0;
  /** While set, chat answers wait for it (to see that callers stay responsive while a request is held). */
  hold: Promise<unknown> | null = null;
  url = "";
  private server: http.Server;

  private constructor(readonly model: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(model = "fixture-merge"): Promise<FixtureChatServer> {
    const s = new FixtureChatServer(model);
    await new Promise<void>((resolve) => s.server.listen(0, "127.0.0.1", resolve));
    s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/v1`;
    return s;
  }

  /** The merge requests received, as [statement 1, statement 2]. */
  mergeRequests(): [string, string][] {
    return this.requests
      .filter((r) => r.path === "/v1/chat/completions")
      .map((r) => parseMergePrompt(r.body?.messages?.at(-1)?.content ?? ""))
      .filter((p): p is [string, string] => p !== null);
  }

  private answer(body: FixtureChatRequest["body"]): string {
    if (this.mode === "empty") return "";
    const last = body?.messages?.filter((m) => m.role === "user").at(-1)?.content ?? "";
    const pair = parseMergePrompt(last);
    return pair ? fixtureMerge(pair[0], pair[1]) : `fixture reply: ${last}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? "/").split("?")[0]!;
    let body: FixtureChatRequest["body"] = null;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
    } catch {
      body = null;
    }
    this.requests.push({ path, body });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    if (path === "/v1/models")
      return send(200, {
        object: "list",
        data: [{ id: this.model, object: "model", created: 0, owned_by: "fixture" }],
      });
    if (path !== "/v1/chat/completions" || req.method !== "POST")
      return send(404, { error: { message: "not found", type: "invalid_request_error" } });
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.hold) await this.hold;
    if (this.mode === "status-500") return send(500, { error: { message: "fixture failure", type: "server_error" } });
    const text = this.answer(body);
    const model = body?.model ?? this.model;
    if (body?.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: "fx", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }, null));
      for (const piece of text.match(/\S+\s*/g) ?? []) res.write(chunk({ content: piece }, null));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
      return;
    }
    send(200, {
      id: "fx",
      object: "chat.completion",
      created: 0,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
