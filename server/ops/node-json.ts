import type http from "node:http";

/**
 * JSON over node:http for the child servers (embedding server, local chat server), which speak
 * llama-server's API outside Next.js.
 */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}

/** Errors in OpenAI's shape (llama-server adds `code`). */
export function sendError(
  res: http.ServerResponse,
  status: number,
  message: string,
  type = "invalid_request_error",
): void {
  sendJson(res, status, { error: { code: status, message, type } });
}

/** Read and parse a JSON body, refusing more than maxBytes. */
export function readJsonBody(req: http.IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      parts.push(c);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString("utf8")));
      } catch {
        reject(new Error("body is not valid JSON"));
      }
    });
    req.on("error", reject);
  });
}
