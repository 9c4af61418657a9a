/**
 * TEST DOUBLE: a tiny server speaking the slice of Anthropic's Messages API the provider uses
 * (POST /v1/messages streaming and not, GET /v1/models), with the real event sequence of a streamed
 * message, so the official SDK parses genuine SSE. Replies "Anthropic fixture: <last user text>".
 * Modes: an `error` event mid-stream (overloaded), 401 for a wrong key, 404 for an unknown model.
 * A request that forces a tool (`tool_choice: { type: "tool", name }`, how structured output is asked of
 * Anthropic) is answered with one `tool_use` block of that name whose input is `toolInput`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export const FAKE_ANTHROPIC_MODEL = "claude-fixture";

export interface AnthropicRecorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    system?: string;
    max_tokens?: number;
    stream?: boolean;
    messages?: { role: string; content: string }[];
    tools?: { name: string; input_schema: unknown }[];
    tool_choice?: { type: string; name?: string };
  } | null;
}

export class FakeAnthropicServer {
  readonly requests: AnthropicRecorded[] = [];
  url = "";
  /** Send an `error` event (overloaded_error) after the first text delta. */
  overloadMidStream = false;
  /** The input of the tool_use block answering a forced tool. */
  toolInput: unknown = { facts: [] };
  private server: http.Server;

  private constructor(readonly apiKey: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(apiKey = "sk-ant-fixture"): Promise<FakeAnthropicServer> {
    const f = new FakeAnthropicServer(apiKey);
    await new Promise<void>((r) => f.server.listen(0, "127.0.0.1", () => r()));
    f.url = `http://127.0.0.1:${(f.server.address() as AddressInfo).port}`;
    return f;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private json(res: http.ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { "content-type": "application/json", "request-id": "req_fixture" });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = raw ? (JSON.parse(raw) as AnthropicRecorded["body"]) : null;
    const url = (req.url ?? "").split("?")[0]!;
    this.requests.push({ path: url, headers: req.headers, body });
    // The SDK sends the key as `Authorization: Bearer` (1.x) or `x-api-key` (older): accept either.
    const key = req.headers["x-api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "");
    if (key !== this.apiKey) {
      return this.json(res, 401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      });
    }
    if (req.method === "GET" && url === "/v1/models") {
      return this.json(res, 200, {
        data: [
          {
            type: "model",
            id: FAKE_ANTHROPIC_MODEL,
            display_name: "Claude Fixture",
            created_at: "2025-01-01T00:00:00Z",
          },
        ],
        has_more: false,
        first_id: FAKE_ANTHROPIC_MODEL,
        last_id: FAKE_ANTHROPIC_MODEL,
      });
    }
    if (req.method !== "POST" || url !== "/v1/messages")
      return this.json(res, 404, { type: "error", error: { type: "not_found_error", message: "Not found" } });
    if (body?.model !== FAKE_ANTHROPIC_MODEL) {
      return this.json(res, 404, {
        type: "error",
        error: { type: "not_found_error", message: `model: ${body?.model}` },
      });
    }
    const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
    const reply = `Anthropic fixture: ${typeof last?.content === "string" ? last.content : ""}`;
    const usage = { input_tokens: 12, output_tokens: reply.split(" ").length };
    const forced = body.tool_choice?.type === "tool" ? body.tool_choice.name : undefined;
    if (forced && !body.stream) {
      return this.json(res, 200, {
        id: "msg_fixture",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [{ type: "tool_use", id: "toolu_fixture", name: forced, input: this.toolInput }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage,
      });
    }
    if (!body.stream) {
      return this.json(res, 200, {
        id: "msg_fixture",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [{ type: "text", text: reply }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage,
      });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const ev = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev("message_start", {
      message: {
        id: "msg_fixture",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    });
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    ev("ping", {});
    const words = reply.match(/\S+\s*/g) ?? [];
    for (let i = 0; i < words.length; i++) {
      ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: words[i] } });
      if (this.overloadMidStream && i === 0) {
        ev("error", { error: { type: "overloaded_error", message: "Overloaded" } });
        res.end();
        return;
      }
    }
    ev("content_block_stop", { index: 0 });
    ev("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    ev("message_stop", {});
    res.end();
  }
}
