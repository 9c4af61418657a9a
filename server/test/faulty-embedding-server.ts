/**
 * TEST DOUBLE: an embedding server PROCESS for the supervisor (EmbedderSupervisor's `script` option), with
 * the same command line and start-up lines as server/embedder/main.ts (--port, --watch-stdin; prints
 * {"event":"listening",...} then {"event":"ready",...}) and the slice of llama-server's API the app uses
 * (/health, /v1/models, /v1/embeddings, /tokenize). It starts in milliseconds (no model: its vectors are
 * hashed bags of words, 16-d), so fault tests are fast. Faults, by `--fault <mode>`:
 *
 *   ok          behaves
 *   garbage     /v1/embeddings answers 200 with a body that is not JSON
 *   wrong-dim   vectors of 15 dimensions while /v1/models says 16
 *   loading     /health answers 503 "Loading model" forever
 *   exit        exits with code 3 right after it starts listening (a crash loop)
 *   silent      never listens and never prints a line
 *
 *   node --import tsx server/test/faulty-embedding-server.ts --port 0 --watch-stdin --fault garbage
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    "watch-stdin": { type: "boolean", default: false },
    fault: { type: "string", default: "ok" },
    model: { type: "string" },
    threads: { type: "string" },
    "ctx-size": { type: "string" },
  },
});
const fault = values.fault!;
const DIM = 16;
const MODEL = "faulty-double";

function vectorFor(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  v[0] = 0.5;
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
    v[h % dim]! += 1;
  }
  return v;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/html" : "application/json" });
  res.end(text);
}

if (values["watch-stdin"]) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
}

if (fault === "silent") {
  setInterval(() => undefined, 60_000);
} else {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = (req.url ?? "/").split("?")[0];
    let body: { input?: string | string[]; content?: string } = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
    } catch {
      return send(res, 400, { error: { code: 400, message: "body is not valid JSON" } });
    }
    if (url === "/health")
      return fault === "loading"
        ? send(res, 503, { error: { code: 503, message: "Loading model" } })
        : send(res, 200, { status: "ok" });
    if (fault === "loading") return send(res, 503, { error: { code: 503, message: "Loading model" } });
    if (url === "/v1/models")
      return send(res, 200, { object: "list", data: [{ id: MODEL, object: "model", meta: { n_embd: DIM } }] });
    if (url === "/tokenize") return send(res, 200, { tokens: [...(body.content ?? "")].map((c) => c.codePointAt(0)) });
    if (url !== "/v1/embeddings") return send(res, 404, { error: { code: 404, message: "File Not Found" } });
    if (fault === "garbage") return send(res, 200, "<html><body>502 Bad Gateway</body></html>");
    const input = Array.isArray(body.input) ? body.input : [String(body.input ?? "")];
    const dim = fault === "wrong-dim" ? DIM - 1 : DIM;
    return send(res, 200, {
      object: "list",
      model: MODEL,
      data: input.map((t, index) => ({ object: "embedding", index, embedding: vectorFor(t, dim) })),
    });
  });
  server.listen(Number(values.port), "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port;
    process.stdout.write(`${JSON.stringify({ event: "listening", port, host: "127.0.0.1" })}\n`);
    if (fault === "exit") {
      process.stderr.write("faulty-embedding-server: exiting on purpose (--fault exit)\n");
      process.exit(3);
    }
    process.stdout.write(`${JSON.stringify({ event: "ready", model: MODEL, dim: DIM, engine: "TEST DOUBLE" })}\n`);
  });
}
