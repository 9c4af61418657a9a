import { prefixesFor } from "./models";
import { EmbedderResponseError, EmbedderUnavailableError } from "../core/errors";

export { EmbedderResponseError } from "../core/errors";

const BATCH = 32;

/** Embedding requests in flight in this process (a graceful shutdown lets them finish before it stops the server). */
let inFlight = 0;
const idleWaiters: (() => void)[] = [];

/** Resolves when no embedding request is in flight (at once when none is). */
export function embedRequestsDone(): Promise<void> {
  if (inFlight === 0) return Promise.resolve();
  return new Promise((r) => idleWaiters.push(r));
}

/**
 * Client for an embedding server speaking llama-server's HTTP API. `baseUrl` is asked for before every
 * call: with the supervisor it waits for health, so a write never starts against a dead server.
 */
export class HttpEmbedClient {
  private cached: { model: string; dim: number } | null = null;

  constructor(
    private readonly baseUrl: () => Promise<string>,
    private readonly opts: { timeoutMs?: number; onTransportError?: () => void } = {},
  ) {}

  /**
   * One request. A request that found the server gone (connection refused or reset: it was killed, or
   * the supervisor replaced a hung one) or still loading (503) is sent once more after baseUrl() — which,
   * with the supervisor, waits for the restarted server. Embedding is a pure function, so a repeat is safe.
   */
  private async call<T>(pathname: string, init?: RequestInit): Promise<T> {
    try {
      return await this.callOnce<T>(pathname, init);
    } catch (e) {
      if (!(e as { retryable?: boolean }).retryable) throw e;
      return this.callOnce<T>(pathname, init);
    }
  }

  private async callOnce<T>(pathname: string, init?: RequestInit): Promise<T> {
    inFlight++;
    try {
      return await this.request<T>(pathname, init);
    } finally {
      if (--inFlight === 0) for (const w of idleWaiters.splice(0)) w();
    }
  }

  private async request<T>(pathname: string, init?: RequestInit): Promise<T> {
    const base = await this.baseUrl();
    let res: Response;
    let text: string;
    try {
      res = await fetch(base + pathname, {
        ...init,
        headers: { "content-type": "application/json" },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 120_000),
      });
      text = await res.text();
    } catch (e) {
      this.opts.onTransportError?.();
      // A timeout is not retried: the server took the whole budget once already.
      const retryable = (e as { name?: string })?.name !== "TimeoutError";
      throw Object.assign(
        new EmbedderUnavailableError(
          `The embedding server did not answer (${e instanceof Error ? e.message : String(e)}). Nothing was written.`,
        ),
        { retryable },
      );
    }
    if (!res.ok) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        /* plain text */
      }
      if (res.status >= 500) this.opts.onTransportError?.();
      if (res.status === 503)
        throw Object.assign(new EmbedderUnavailableError(`embedding server answered 503: ${message}`), {
          retryable: true,
        });
      throw new EmbedderResponseError(`embedding server answered ${res.status}: ${message}`);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new EmbedderResponseError("embedding server returned a body that is not JSON");
    }
  }

  async info(): Promise<{ model: string; dim: number }> {
    if (this.cached) return this.cached;
    const body = await this.call<{ data?: { id: string; meta?: { n_embd?: number } }[] }>("/v1/models");
    const m = body.data?.[0];
    if (!m) throw new EmbedderResponseError("embedding server lists no model");
    const model = m.id
      .split("/")
      .pop()!
      .replace(/\.gguf$/i, "");
    let dim = m.meta?.n_embd;
    if (!dim) dim = (await this.embedRaw(["dimension probe"], undefined))[0]!.length;
    this.cached = { model, dim };
    return this.cached;
  }

  /** Forget the cached model (after a restart the server may serve another one). */
  reset(): void {
    this.cached = null;
  }

  private async embedRaw(texts: string[], dim: number | undefined): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH);
      const body = await this.call<{ data?: { index: number; embedding: unknown }[] }>("/v1/embeddings", {
        method: "POST",
        body: JSON.stringify({ input: batch }),
      });
      if (!Array.isArray(body.data) || body.data.length !== batch.length) {
        throw new EmbedderResponseError(
          `embedding server returned ${body.data?.length ?? 0} vectors for ${batch.length} inputs`,
        );
      }
      const sorted = [...body.data].sort((a, b) => a.index - b.index);
      for (const d of sorted) out.push(toUnitVector(d.embedding, dim));
    }
    return out;
  }

  async embedQueries(texts: string[]): Promise<Float32Array[]> {
    const { model, dim } = await this.info();
    const p = prefixesFor(model).query;
    return this.embedRaw(
      texts.map((t) => p + t),
      dim,
    );
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const { model, dim } = await this.info();
    const p = prefixesFor(model).document;
    return this.embedRaw(
      texts.map((t) => p + t),
      dim,
    );
  }

  async tokenize(text: string): Promise<number[]> {
    const body = await this.call<{ tokens?: unknown }>("/tokenize", {
      method: "POST",
      body: JSON.stringify({ content: text }),
    });
    if (!Array.isArray(body.tokens)) throw new EmbedderResponseError("embedding server /tokenize returned no tokens");
    return body.tokens.map((t) => (typeof t === "number" ? t : Number((t as { id?: number }).id)));
  }
}

/** Validate one vector from the server and scale it to unit length (cosine = dot product). */
export function toUnitVector(raw: unknown, dim: number | undefined): Float32Array {
  // llama-server with pooling "none" nests per-token vectors; pooled models give a flat array.
  if (!Array.isArray(raw) || raw.length === 0) throw new EmbedderResponseError("embedding is not a number array");
  if (dim !== undefined && raw.length !== dim) {
    throw new EmbedderResponseError(`embedding has ${raw.length} dimensions; the model has ${dim}`);
  }
  const v = new Float32Array(raw.length);
  let norm = 0;
  for (let i = 0; i < raw.length; i++) {
    const x = raw[i];
    if (typeof x !== "number" || !Number.isFinite(x))
      throw new EmbedderResponseError("embedding holds a non-finite value");
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  if (norm === 0) throw new EmbedderResponseError("embedding is the zero vector");
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}
