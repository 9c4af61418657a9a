import { ZodError, type ZodType } from "zod";
import { asServiceError, ServiceError } from "../core/errors";
import { badTextMessage, decodeJson, findBadText, isRejection, readBytesCapped } from "./guard";

export const MAX_JSON_BYTES = 2 * 1024 * 1024;

export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

export function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { status, message } }, { status });
}

/**
 * Read a JSON body strictly: size-capped, UTF-8 validated (invalid bytes are an error, not silently
 * replaced), parsed, then validated by the schema. Failures are ServiceErrors with a readable message.
 */
export async function readBody<T>(req: Request, schema: ZodType<T>, maxBytes = MAX_JSON_BYTES): Promise<T> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > maxBytes) throw new ServiceError(413, `request body is larger than ${maxBytes} bytes`);
  const buf = await readCapped(req, maxBytes);
  if (buf.byteLength === 0) throw new ServiceError(400, "request body is empty; send a JSON object");
  const data = decodeJson(buf);
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ServiceError(400, formatZod(parsed.error));
  // Whatever the schema: no NUL or lone surrogate in any string (server/http/guard.ts).
  const bad = findBadText(parsed.data);
  if (bad) throw new ServiceError(400, badTextMessage(bad));
  return parsed.data;
}

/**
 * The body's bytes, reading no further than the cap: a body without (or with a false) Content-Length is
 * counted as it streams in and cancelled once past maxBytes, so an oversized upload is never buffered whole.
 */
export async function readCapped(
  req: Request,
  maxBytes: number,
  tooLarge: (maxBytes: number) => Error = (n) => new ServiceError(413, `request body is larger than ${n} bytes`),
): Promise<Uint8Array> {
  const bytes = await readBytesCapped(req, maxBytes);
  if (isRejection(bytes)) throw tooLarge(maxBytes);
  return bytes;
}

export function formatZod(e: ZodError): string {
  return e.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
}

/** Run a route body; map known errors to their status with a readable message, log the rest. */
export async function handle(fn: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ZodError) return errorResponse(400, formatZod(e));
    const se = asServiceError(e);
    if (se) return errorResponse(se.status, se.message);
    console.error("[api] unexpected error", e);
    return errorResponse(500, "internal error; see the server log");
  }
}
