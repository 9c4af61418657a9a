/**
 * TEST DOUBLE: a tiny embedding server on 127.0.0.1:0 speaking the slice of llama-server's HTTP API that
 * HttpEmbedClient uses (/v1/models, /v1/embeddings, /tokenize), with switchable failure modes, so client
 * and service tests can see how bad answers are handled. Its "embeddings" are hashed bags of words:
 * deterministic, never zero, not a model.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type FakeEmbedMode =
  | "ok"
  /** 200 with a body that is not JSON. */
  | "garbage"
  /** vectors one dimension short of what /v1/models reports. */
  | "wrong-dim"
  /** one vector fewer than inputs. */
  | "wrong-count"
  /** a null (JSON's stand-in for NaN) inside the vector. */
  | "nan"
  /** an all-zero vector. */
  | "zero"
  | "status-400"
  | "status-500"
  | "status-503"
  /** never answers (the client's timeout must fire). */
  | "hang";

export interface FakeEmbeddingServerOptions {
  model?: string;
  dim?: number;
  /** Report n_embd in /v1/models (llama-server does); when false the client must probe. */
  reportDim?: boolean;
  mode?: FakeEmbedMode;
  /** Return the embeddings of a batch in reverse order (each still carries its index). */
  shuffle?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

export class FakeEmbeddingServer {
  readonly requests: RecordedRequest[] = [];
  mode: FakeEmbedMode;
  model: string;
  dim: number;
  reportDim: boolean;
  shuffle: boolean;
  /** Answer /v1/models with an empty list. */
  noModels = false;
  private server: http.Server;
  private hanging = new Set<http.ServerResponse>();
  url = "";

  private constructor(opts: FakeEmbeddingServerOptions) {
    this.mode = opts.mode ?? "ok";
    this.model = opts.model ?? "fake-embed";
    this.dim = opts.dim ?? 16;
    this.reportDim = opts.reportDim ?? true;
    this.shuffle = opts.shuffle ?? false;
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(opts: FakeEmbeddingServerOptions = {}): Promise<FakeEmbeddingServer> {
    const s = new FakeEmbeddingServer(opts);
    await new Promise<void>((resolve) => s.server.listen(0, "127.0.0.1", resolve));
    s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
    return s;
  }

  /** Requests to one path. */
  calls(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The hashed bag-of-words vector the server returns for a text (not normalised). */
  vectorFor(text: string): number[] {
    const v = new Array<number>(this.dim).fill(0);
    v[0] = 0.5; // never the zero vector
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      let h = 2166136261;
      for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
      v[h % this.dim]! += 1;
    }
    return v;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const path = (req.url ?? "/").split("?")[0]!;
    this.requests.push({ method: req.method ?? "GET", path, body });
    const send = (status: number, payload: unknown) => {
      const text = typeof payload === "string" ? payload : JSON.stringify(payload);
      res.writeHead(status, { "content-type": typeof payload === "string" ? "text/plain" : "application/json" });
      res.end(text);
    };
    if (path === "/v1/models") {
      if (this.noModels) return send(200, { object: "list", data: [] });
      return send(200, {
        object: "list",
        data: [{ id: this.model, object: "model", ...(this.reportDim ? { meta: { n_embd: this.dim } } : {}) }],
      });
    }
    if (path === "/tokenize") {
      const content = (body as { content?: string })?.content ?? "";
      return send(200, {
        tokens: [...content].map((ch, i) => (i % 2 ? { id: ch.codePointAt(0), piece: ch } : ch.codePointAt(0))),
      });
    }
    if (path !== "/v1/embeddings") return send(404, { error: { code: 404, message: "not found" } });
    switch (this.mode) {
      case "garbage":
        return send(200, "<html>surprise</html>");
      case "status-400":
        return send(400, { error: { code: 400, message: "input is too long for the context" } });
      case "status-500":
        return send(500, { error: { code: 500, message: "model crashed" } });
      case "status-503":
        return send(503, { error: { code: 503, message: "Loading model" } });
      case "hang":
        this.hanging.add(res);
        return;
      default:
        break;
    }
    const input = (body as { input?: string[] | string })?.input;
    const texts = Array.isArray(input) ? input : [String(input)];
    let data = texts.map((t, index) => {
      let embedding: (number | null)[] = this.vectorFor(t);
      if (this.mode === "wrong-dim") embedding = embedding.slice(1);
      if (this.mode === "nan") embedding[1] = null;
      if (this.mode === "zero") embedding = embedding.map(() => 0);
      return { object: "embedding", index, embedding };
    });
    if (this.mode === "wrong-count") data = data.slice(1);
    if (this.shuffle) data = [...data].reverse();
    return send(200, { object: "list", model: this.model, data });
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
