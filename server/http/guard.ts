/**
 * Checks every JSON API applies to its raw input, whatever its schema: a size cap read as the body
 * streams in, strict UTF-8, no lone surrogates (JSON can spell invalid text as "\ud800", which would
 * otherwise be stored as U+FFFD), and no NUL characters anywhere (no text Memo stores or searches
 * legitimately contains one, and SQLite/FTS5 and C libraries treat it as an end of string). Used by readBody
 * (server/http/rest.ts), the tRPC endpoint and the MCP endpoint.
 */
import { ServiceError } from "../core/errors";

export type Rejection = { status: 400 | 413; message: string };

/** A string the body holds that Memo refuses whatever the schema: where it is and what is wrong with it. */
export interface BadText {
  /** The path of the string (value or key); [] for the top level. */
  path: (string | number)[];
  /** A NUL character, or a UTF-16 surrogate with no partner (JSON's "\ud800" escape: no valid text has one). */
  problem: "nul" | "lone-surrogate";
}

// In a /u regex a string is read by code points: a paired surrogate is one astral code point, a lone one
// stays a code point of category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

function textProblem(s: string): BadText["problem"] | null {
  if (s.includes("\u0000")) return "nul";
  if (LONE_SURROGATE.test(s)) return "lone-surrogate";
  return null;
}

/** The first string (value or key) holding a NUL character or a lone surrogate, or null. */
export function findBadText(v: unknown, path: (string | number)[] = [], depth = 0): BadText | null {
  if (typeof v === "string") {
    const problem = textProblem(v);
    return problem ? { path, problem } : null;
  }
  if (v === null || typeof v !== "object" || depth > 200) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = findBadText(v[i], [...path, i], depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [k, x] of Object.entries(v)) {
    const problem = textProblem(k);
    if (problem) return { path: [...path, k], problem };
    const p = findBadText(x, [...path, k], depth + 1);
    if (p) return p;
  }
  return null;
}

/**
 * "items.1.text: text must not contain NUL characters" (the field's own name repeated, like the schemas'
 * messages), or "…: text is not valid Unicode (a lone surrogate such as \ud800)".
 */
export function badTextMessage(bad: BadText): string {
  const label = [...bad.path].reverse().find((p) => typeof p === "string") ?? "the body";
  const where = bad.path.length ? bad.path.join(".") : "body";
  return bad.problem === "nul"
    ? `${where}: ${label} must not contain NUL characters`
    : `${where}: ${label} is not valid Unicode text (it holds a lone surrogate, e.g. an escaped \\ud800)`;
}

/**
 * The body's chunks as they stream in, each handed to `take` (awaited before the next is read: backpressure),
 * stopping past maxBytes, declared or counted: the bytes read, or "too large" (the rest of the stream cancelled).
 */
export async function streamBodyCapped(
  req: Request,
  maxBytes: number,
  take: (chunk: Uint8Array) => void | Promise<void>,
): Promise<number | "too large"> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > maxBytes) return "too large";
  if (!req.body) return 0;
  const reader = req.body.getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return "too large";
    }
    await take(value);
  }
}

/** The body's bytes, counting as they stream in and stopping past maxBytes (never buffered whole). */
export async function readBytesCapped(req: Request, maxBytes: number): Promise<Uint8Array | Rejection> {
  const parts: Uint8Array[] = [];
  const size = await streamBodyCapped(req, maxBytes, (chunk) => {
    parts.push(chunk);
  });
  if (size === "too large") return { status: 413, message: `request body is larger than ${maxBytes} bytes` };
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
 * if it is JSON, no NUL or lone surrogate in any string. Returns the text (to hand on in a fresh Request) or the rejection.
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
  const bad = findBadText(data);
  if (bad) return { status: 400, message: badTextMessage(bad) };
  return { text };
}

/** A copy of the request with a body already read (its stream was consumed by the checks). */
export function withBody(req: Request, text: string): Request {
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
}

/** A request body as JSON: a 400 that says which, when it is not UTF-8 or not JSON (REST bodies, import files). */
export function decodeJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError(400, "request body is not valid UTF-8");
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ServiceError(400, "request body is not valid JSON");
  }
  return data;
}
