/**
 * TEST DOUBLE: an OpenAI-compatible chat-completions server that answers deterministically and echoes
 * the [Relevant Memories] block it received in the system prompt, so tests can see what Memo recalled.
 * Used by the Playwright e2e run (started as a webServer; Memo is pointed at it with MEMO_PROVIDER=openai
 * MEMO_OPENAI_BASE_URL=…), by unit tests of the provider layer and by `npm run bench:chat`.
 *
 *   node --import tsx e2e/support/openai-fixture.ts --port 3299 [--api-key KEY] [--first-token-ms 0]
 *
 * Reply: "Fixture reply to: <last user message>" then either "Memory block received:" and the block, or
 * "No memory block received." Magic words in the last user message:
 *   [fixture:hang]    never answer          [fixture:500]    answer HTTP 500
 *   [fixture:slow]    300 ms between chunks [fixture:cut]    drop the connection mid-reply
 *   [fixture:long]    a ~70-line Markdown reply (headings, list, table, code block), streamed 4 ms per piece
 *   [fixture:fast]    no pause between pieces (with [fixture:long]: a test that looks at the reply, not its stream)
 *   [fixture:count]   the reply ends with "Answer number N" (N-th request with this same last message)
 *   [fixture:fail-once]  HTTP 500 the first time this exact message is asked, a normal reply after
 *   [fixture:cut-once]   drop the connection mid-reply the first time, a normal reply after
 *   [fixture:lines]   the reply ends with "Line 1" … "Line 40", one line per piece, 150 ms apart (for Stop)
 *   [fixture:late]    headers at once, then 4 s before the first token (Stop before the first token)
 * Structured `memo_facts` requests (Memo learning facts) are answered by the facts TEST DOUBLE
 * (server/test/fixture-facts-model.ts) from its script: POST /__fixture/facts with a JSON array of entries
 * sets it, GET /__fixture/facts says how many calls and exchanges it answered (`?containing=TEXT`: calls only
 * of requests whose exchanges contain TEXT).
 * Also: GET /v1/models, 401 for a wrong key, 404 model_not_found for an unknown model,
 * GET /__fixture/requests (what it received), GET /__fixture/health, GET /__fixture/streams (streamed
 * replies started, completed, and abandoned by the client mid-reply, with when the last one was;
 * `?containing=TEXT` counts only replies whose last user message contains TEXT, so that a test's counts are
 * its own while other specs stream from the same fixture).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { FactsScript, type FactsScriptEntry, isFactsRequest } from "../../server/test/fixture-facts-model";

export const FIXTURE_MODEL = "fixture-echo";
export const FIXTURE_MODELS = [FIXTURE_MODEL, "fixture-echo-2"];

export interface FixtureMessage {
  role: string;
  content: string | { type: string; text?: string }[] | null;
}

export interface FixtureRequest {
  at: string;
  path: string;
  authorization: string | null;
  body: {
    model?: string;
    stream?: boolean;
    messages?: FixtureMessage[];
    max_tokens?: number;
    response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
  } | null;
}

export interface OpenAIFixtureOptions {
  port?: number;
  host?: string;
  /** Require `Authorization: Bearer <apiKey>`; without it any key (or none) is accepted. */
  apiKey?: string;
  /** Delay before the first chunk (a provider's own time to first token). */
  firstTokenMs?: number;
  /** Delay between chunks. */
  chunkMs?: number;
}

const text = (c: FixtureMessage["content"]) =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : "";

/** The memory block inside a system prompt: from "[Relevant Memories]" to the end of that message. */
export function memoryBlock(messages: FixtureMessage[]): string | null {
  for (const m of messages) {
    if (m.role !== "system") continue;
    const t = text(m.content);
    const at = t.search(/^\[Relevant Memories\]$/m);
    if (at >= 0) return t.slice(at).trim();
  }
  return null;
}

/** The deterministic reply to a conversation. */
export function fixtureReply(messages: FixtureMessage[]): string {
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const block = memoryBlock(messages);
  const head = `Fixture reply to: ${text(lastUser?.content ?? "").trim()}`;
  return block ? `${head}\n\nMemory block received:\n\n${block}` : `${head}\n\nNo memory block received.`;
}

/** A long Markdown answer, the shape of a real model's: sections, a list, a table and a code block. */
export function longMarkdown(): string {
  const out: string[] = ["## Plan", ""];
  for (let i = 1; i <= 24; i++)
    out.push(`${i}. Step ${i}: check the settings, write down what changed, and compare it with the previous run.`);
  out.push(
    "",
    "## Example",
    "",
    "```ts",
    "export function total(xs: number[]): number {",
    "  let sum = 0;",
    "  for (const x of xs) sum += x;",
    "  return sum;",
    "}",
    "```",
    "",
  );
  out.push("| Week | Runs | Notes |", "| --- | --- | --- |");
  for (let i = 1; i <= 8; i++) out.push(`| ${i} | ${i * 3} | steady |`);
  out.push("");
  for (let i = 1; i <= 20; i++)
    out.push(
      `Paragraph ${i}. The quick brown fox jumps over the lazy dog while the reply keeps streaming line after line.`,
      "",
    );
  out.push("END-OF-LONG-REPLY");
  return out.join("\n");
}

/** Split into small pieces (words with their spacing), as a model streams tokens. */
export function pieces(s: string): string[] {
  return s.match(/\S+\s*|\s+/g) ?? [];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /__fixture/streams's answer. */
export interface StreamCounts {
  started: number;
  completed: number;
  abandoned: number;
  lastAbandonedAt: string | null;
}

export class OpenAIFixtureServer {
  readonly requests: FixtureRequest[] = [];
  /** Each streamed reply's last user message and how it ended (null: still streaming). */
  private readonly streamed: { last: string; ended: "completed" | "abandoned" | null; abandonedAt: string | null }[] =
    [];

  /** Streamed replies: started, sent to the end, and cut off before the end (the client closed the connection, or [fixture:cut]). */
  get streams(): StreamCounts {
    return this.streamCounts(null);
  }
  /** How many times each last user message was asked (for [fixture:count] and the *-once failures). */
  private readonly asked = new Map<string, number>();
  /** The memo_facts answers (a script of canned answers keyed by the exchange; TEST DOUBLE). */
  readonly facts = new FactsScript();
  /** Another way of replying (server/test/assistant-doubles.ts); null: fixtureReply's echo of the memory block. */
  replyWith: ((messages: FixtureMessage[]) => string) | null = null;
  private server: http.Server;
  private sockets = new Set<import("node:net").Socket>();
  url = "";
  firstTokenMs: number;
  chunkMs: number;

  private constructor(private readonly o: OpenAIFixtureOptions) {
    this.firstTokenMs = o.firstTokenMs ?? 0;
    this.chunkMs = o.chunkMs ?? 0;
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  static async start(o: OpenAIFixtureOptions = {}): Promise<OpenAIFixtureServer> {
    const f = new OpenAIFixtureServer(o);
    await new Promise<void>((resolve, reject) => {
      f.server.once("error", reject);
      f.server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => resolve());
    });
    const addr = f.server.address() as AddressInfo;
    f.url = `http://${o.host ?? "127.0.0.1"}:${addr.port}/v1`;
    return f;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The stream counts, of every reply or (`containing` not null) of those whose last user message contains it. */
  private streamCounts(containing: string | null): StreamCounts {
    const mine = containing === null ? this.streamed : this.streamed.filter((s) => s.last.includes(containing));
    const abandoned = mine.filter((s) => s.ended === "abandoned");
    return {
      started: mine.length,
      completed: mine.filter((s) => s.ended === "completed").length,
      abandoned: abandoned.length,
      lastAbandonedAt:
        abandoned
          .map((s) => s.abandonedAt)
          .sort()
          .at(-1) ?? null,
    };
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    const s = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(s) });
    res.end(s);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const [url = "/", query = ""] = (req.url ?? "/").split("?");
    if (url === "/__fixture/health") return this.json(res, 200, { ok: true });
    if (url === "/__fixture/requests") return this.json(res, 200, this.requests);
    if (url === "/__fixture/streams")
      return this.json(res, 200, this.streamCounts(new URLSearchParams(query).get("containing")));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (url === "/__fixture/facts") {
      if (req.method === "POST") this.facts.set(JSON.parse(raw || "[]") as FactsScriptEntry[]);
      const containing = new URLSearchParams(query).get("containing");
      return this.json(res, 200, {
        calls: containing === null ? this.facts.calls : this.facts.callsContaining(containing),
        exchanges: this.facts.exchanges,
        entries: this.facts.entries,
      });
    }
    let body: FixtureRequest["body"] = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      return this.json(res, 400, {
        error: {
          message: "We could not parse the JSON body of your request.",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      });
    }
    this.requests.push({
      at: new Date().toISOString(),
      path: url,
      authorization: req.headers.authorization ?? null,
      body,
    });
    if (this.requests.length > 500) this.requests.shift();

    if (this.o.apiKey && req.headers.authorization !== `Bearer ${this.o.apiKey}`) {
      return this.json(res, 401, {
        error: {
          message: "Incorrect API key provided.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      });
    }
    if (req.method === "GET" && url === "/v1/models") {
      return this.json(res, 200, {
        object: "list",
        data: FIXTURE_MODELS.map((id) => ({ id, object: "model", created: 0, owned_by: "fixture" })),
      });
    }
    if (req.method !== "POST" || url !== "/v1/chat/completions") {
      return this.json(res, 404, {
        error: {
          message: `Unknown request URL: ${req.method} ${url}`,
          type: "invalid_request_error",
          param: null,
          code: "unknown_url",
        },
      });
    }
    const messages = body?.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      return this.json(res, 400, {
        error: {
          message: "'messages' must be a non-empty array",
          type: "invalid_request_error",
          param: "messages",
          code: null,
        },
      });
    }
    const model = body?.model ?? "";
    if (!FIXTURE_MODELS.includes(model)) {
      return this.json(res, 404, {
        error: {
          message: `The model \`${model}\` does not exist or you do not have access to it.`,
          type: "invalid_request_error",
          param: null,
          code: "model_not_found",
        },
      });
    }
    if (isFactsRequest(body)) {
      const a = this.facts.answer(body as { messages?: FixtureMessage[] });
      if (a.status === "hang") return;
      if (a.status === 500)
        return this.json(res, 500, {
          error: { message: "The fixture failed on purpose.", type: "server_error", param: null, code: null },
        });
      return this.json(res, 200, {
        id: `chatcmpl-fixture-facts-${this.requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          { index: 0, message: { role: "assistant", content: a.content }, finish_reason: "stop", logprobs: null },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    const last = text([...messages].reverse().find((m) => m.role === "user")?.content ?? "");
    if (last.includes("[fixture:hang]")) return; // never answers; the client must time out
    if (last.includes("[fixture:500]"))
      return this.json(res, 500, {
        error: { message: "The fixture failed on purpose.", type: "server_error", param: null, code: null },
      });
    const asked = (this.asked.get(last) ?? 0) + 1;
    this.asked.set(last, asked);
    if (last.includes("[fixture:fail-once]") && asked === 1) {
      return this.json(res, 500, {
        error: { message: "The fixture failed on purpose (once).", type: "server_error", param: null, code: null },
      });
    }
    const cut = last.includes("[fixture:cut]") || (last.includes("[fixture:cut-once]") && asked === 1);

    let reply = this.replyWith ? this.replyWith(messages) : fixtureReply(messages);
    if (last.includes("[fixture:long]")) reply = `${reply}\n\n${longMarkdown()}`;
    if (last.includes("[fixture:count]")) reply = `${reply}\n\nAnswer number ${asked}`;
    if (last.includes("[fixture:lines]"))
      reply = `${reply}\n\n${Array.from({ length: 40 }, (_, i) => `Line ${i + 1}`).join("\n")}`;
    const id = `chatcmpl-fixture-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const promptTokens = Math.ceil(messages.map((m) => text(m.content)).join(" ").length / 4);
    const completionTokens = pieces(reply).length;
    if (this.firstTokenMs) await sleep(this.firstTokenMs);
    if (!body?.stream) {
      return this.json(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: reply }, finish_reason: "stop", logprobs: null }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const stream = { last, ended: null as "completed" | "abandoned" | null, abandonedAt: null as string | null };
    this.streamed.push(stream);
    res.on("close", () => {
      if (res.writableFinished) stream.ended = "completed";
      else [stream.ended, stream.abandonedAt] = ["abandoned", new Date().toISOString()];
    });
    const send = (delta: Record<string, unknown>, finish: string | null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    send({ role: "assistant", content: "" }, null);
    if (last.includes("[fixture:late]"))
      for (let waited = 0; waited < 4000 && !res.destroyed; waited += 50) await sleep(50);
    const lines = last.includes("[fixture:lines]");
    const delay = last.includes("[fixture:slow]")
      ? 300
      : lines
        ? 150
        : last.includes("[fixture:fast]")
          ? 0
          : last.includes("[fixture:long]")
            ? 4
            : this.chunkMs;
    const parts = lines ? reply.split(/(?<=\n)/) : pieces(reply);
    for (let i = 0; i < parts.length; i++) {
      if (res.destroyed) return; // the client went away: stop generating
      if (i > 0 && delay) await sleep(delay);
      send({ content: parts[i] }, null);
      if (cut && i === 3) {
        await sleep(50); // let the first pieces reach the client, then drop the connection
        res.socket?.destroy();
        return;
      }
    }
    send({}, "stop");
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  }
}

// CLI: run as a standalone server (Playwright's webServer, manual testing).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "3299" },
      host: { type: "string", default: "127.0.0.1" },
      "api-key": { type: "string" },
      "first-token-ms": { type: "string", default: "0" },
      "chunk-ms": { type: "string", default: "0" },
    },
  });
  const f = await OpenAIFixtureServer.start({
    port: Number(values.port),
    host: values.host,
    apiKey: values["api-key"],
    firstTokenMs: Number(values["first-token-ms"]),
    chunkMs: Number(values["chunk-ms"]),
  });
  console.log(`[openai-fixture] TEST DOUBLE listening at ${f.url}`);
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void f.close().then(() => process.exit(0)));
}
