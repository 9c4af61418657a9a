/**
 * Checks every JSON API applies to its raw input, whatever its schema: a size cap read as the body
 * streams in, strict UTF-8, and no NUL characters anywhere (no text Memo stores or searches legitimately
 * contains one, and SQLite/FTS5 and C libraries treat it as an end of string). Used by readBody
 * (server/http/rest.ts), the tRPC endpoint and the MCP endpoint.
 */

export type Rejection = { status: 400 | 413; message: string };

/** The path of the first string (value or key) holding a NUL character, "" for the top level, or null. */
export function findNul(v: unknown, path: (string | number)[] = [], depth = 0): (string | number)[] | null {
  if (typeof v === "string") return v.includes("\u0000") ? path : null;
  if (v === null || typeof v !== "object" || depth > 200) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = findNul(v[i], [...path, i], depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k.includes("\u0000")) return [...path, k];
    const p = findNul(x, [...path, k], depth + 1);
    if (p) return p;
  }
  return null;
}

/** "items.1.text: text must not contain NUL characters" (the field's own name repeated, like the schemas' messages). */
export function nulMessage(path: (string | number)[]): string {
  const label = [...path].reverse().find((p) => typeof p === "string") ?? "the body";
  return `${path.length ? path.join(".") : "body"}: ${label} must not contain NUL characters`;
}

/** The body's bytes, counting as they stream in and stopping past maxBytes (never buffered whole). */
export async function readBytesCapped(req: Request, maxBytes: number): Promise<Uint8Array | Rejection> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > maxBytes) return { status: 413, message: `request body is larger than ${maxBytes} bytes` };
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { status: 413, message: `request body is larger than ${maxBytes} bytes` };
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

export function decodeUtf8(buf: Uint8Array): string | Rejection {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    return { status: 400, message: "request body is not valid UTF-8" };
  }
}

export function isRejection(x: unknown): x is Rejection {
  return typeof x === "object" && x !== null && "status" in x && "message" in x && !(x instanceof Uint8Array);
}

/**
 * Read and check a JSON body for an endpoint that parses it itself (tRPC, MCP): capped, strict UTF-8, and
 * if it is JSON, no NUL in any string. Returns the text (to hand on in a fresh Request) or the rejection.
 * Malformed JSON is left to the endpoint, which answers it in its own protocol.
 */
export async function checkJsonBody(req: Request, maxBytes: number): Promise<{ text: string } | Rejection> {
  const buf = await readBytesCapped(req, maxBytes);
  if (isRejection(buf)) return buf;
  const text = decodeUtf8(buf);
  if (typeof text !== "string") return text;
  if (text.includes("\u0000")) return { status: 400, message: "request body contains a NUL byte" };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { text };
  }
  const nul = findNul(data);
  if (nul) return { status: 400, message: nulMessage(nul) };
  return { text };
}

/** A copy of the request with a body already read (its stream was consumed by the checks). */
export function withBody(req: Request, text: string): Request {
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
}
