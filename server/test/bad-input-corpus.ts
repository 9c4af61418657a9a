import assert from "node:assert/strict";

/**
 * TEST CORPUS, the bad-input corpus (server/http/bad-input.test.ts, over real HTTP; was e2e/support/bad-input.ts):
 * requests that every API of Memo must refuse with a clear
 * 4xx — or, for hostile-but-valid input such as FTS5 syntax in a query, answer normally — without
 * changing anything. A case names its request and what must come back; `runCase` sends it and checks the
 * status, that the answer is JSON in the API's own error shape, and that the message is a sentence (not a
 * stack trace) matching `message`.
 */

export type Api = "rest" | "trpc" | "openai" | "mcp";

export interface BadCase {
  name: string;
  api: Api;
  method?: "GET" | "POST" | "DELETE" | "PUT" | "PATCH";
  path: string;
  /** A Buffer is sent byte for byte; a string as is; anything else as JSON. */
  body?: Buffer | string | unknown;
  /** Multipart: files (name, bytes) and fields, encoded by hand so any file name can be sent. */
  multipart?: { files?: { field?: string; name: string; bytes: Buffer | string }[]; fields?: Record<string, string> };
  headers?: Record<string, string>;
  status: number | number[];
  /** What the error message (or, for a 2xx, the JSON body) must match. */
  message?: RegExp;
  /** For an MCP tool call answered with HTTP 200: the call must be an error (JSON-RPC error or isError). */
  mcpError?: RegExp;
}

export const MB = 1024 * 1024;
export const MAX_JSON = 2 * MB;

/** Bytes from text pieces and raw byte values, e.g. raw('{"text":"caf', [0xe9], '"}'). */
export function raw(...parts: (string | number[])[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
}

/** A valid JSON object of about `bytes` bytes: `{ [key]: "xxxx…" }` plus `extra`. */
export function bigJson(bytes: number, key = "text", extra: Record<string, unknown> = {}): Buffer {
  const head = JSON.stringify({ ...extra, [key]: "" }).slice(0, -2);
  return Buffer.concat([Buffer.from(head), Buffer.alloc(Math.max(0, bytes - head.length - 2), "x"), Buffer.from('"}')]);
}

/** `[[[…]]]` nested `depth` deep. */
export function nested(depth: number): Buffer {
  return Buffer.concat([Buffer.alloc(depth, "["), Buffer.alloc(depth, "]")]);
}

const BOUNDARY = "----memo-bad-input-boundary";

function multipartBody(spec: NonNullable<BadCase["multipart"]>): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(spec.fields ?? {})) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  for (const f of spec.files ?? []) {
    // The name goes in as given (escaping only `"` like a browser): that is the point of these cases.
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${f.field ?? "file"}"; filename="${f.name.replace(/"/g, "%22")}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        "utf8",
      ),
    );
    parts.push(Buffer.isBuffer(f.bytes) ? f.bytes : Buffer.from(f.bytes));
    parts.push(Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

export async function send(baseURL: string, c: BadCase): Promise<Response> {
  const method = c.method ?? (c.body === undefined && !c.multipart ? "GET" : "POST");
  const headers: Record<string, string> = {};
  let data: Buffer | undefined;
  if (c.multipart) {
    data = multipartBody(c.multipart);
    headers["content-type"] = `multipart/form-data; boundary=${BOUNDARY}`;
  } else if (c.body !== undefined) {
    data = Buffer.isBuffer(c.body)
      ? c.body
      : Buffer.from(typeof c.body === "string" ? c.body : JSON.stringify(c.body), "utf8");
    headers["content-type"] = "application/json";
  }
  if (c.api === "mcp") headers.accept = "application/json, text/event-stream";
  Object.assign(headers, c.headers);
  // The path as written (encoded traversal and NUL bytes stay encoded): `new URL` would keep them too.
  return fetch(`${baseURL}${c.path}`, {
    method,
    body: data && new Uint8Array(data),
    headers,
    redirect: "manual",
    signal: AbortSignal.timeout(60_000),
  });
}

/** The human-readable message of an error answer, in each API's own shape. */
function messageOf(api: Api, body: unknown): string | undefined {
  const b = body as Record<string, any>;
  if (api === "trpc" && Array.isArray(body)) return (body[0] as Record<string, any>)?.error?.message;
  if (api === "mcp" && b?.result?.isError)
    return (b.result.content as { text?: string }[]).map((x) => x.text ?? "").join(" ");
  return b?.error?.message;
}

export async function runCase(baseURL: string, c: BadCase): Promise<void> {
  const res = await send(baseURL, c);
  const text = await res.text();
  const statuses = Array.isArray(c.status) ? c.status : [c.status];
  assert.ok(statuses.includes(res.status), `${c.name}: HTTP ${res.status} ${text.slice(0, 300)}`);
  assert.ok(res.status < 500, `${c.name}: never a server error`);
  // A method the route does not have: Next's bare 405 Method Not Allowed is the clear answer.
  if (res.status === 405 && text === "") return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${c.name}: the answer is not JSON: ${text.slice(0, 200)}`);
  }
  if (res.status >= 400 || c.mcpError) {
    const message = messageOf(c.api, body);
    assert.ok(message, `${c.name}: an error message in the ${c.api} error shape: ${text.slice(0, 300)}`);
    // A sentence for people: no stack trace, no dump of the validator's internals.
    assert.doesNotMatch(message, /\n\s+at |^\s*[[{]|Error: .*\n/, c.name);
    const want = c.mcpError ?? c.message;
    if (want) assert.match(message, want, c.name);
  } else if (c.message) {
    assert.match(text, c.message, c.name);
  }
}
