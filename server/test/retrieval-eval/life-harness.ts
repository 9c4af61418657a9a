import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { openDb } from "../../db";
import type { EmbeddingModelChoice } from "../../embedder/models";
import { EmbedderSupervisor } from "../../embedder/supervisor";
import { HttpEmbedClient } from "../../embedder/client";
import type { Embedder } from "../../core/context";
import { buildQueries, type RetrievalQuery } from "../../memory/retrieval/query-builder";
import { denseTexts, searchWithVectors, type RetrieveResult } from "../../memory/retrieval/retrieve";
import type { RetrievalSettings } from "../../memory/retrieval/settings";
import { parseTimeIntent } from "../../memory/retrieval/time-window";
import { addMemories } from "../../memory/store/add";
import type { MemoContext } from "../../core/context";
import type { LifeDataset, LifeQuestion } from "./life";

export const USE_LITE = "universal-sentence-encoder-lite";
export const DEFAULT_CACHE_DIR = path.join(process.cwd(), ".cache", "retrieval-eval");

/** The bundled offline model, the eval's default. */
export const USE_LITE_CHOICE: EmbeddingModelChoice = { kind: "use-lite", reason: "retrieval eval" };

/**
 * The model id a choice is served as (what the embedding server reports, and what picks the settings
 * profile and confidence model), and the name of its cache file. A GGUF's cache is keyed by its size and
 * a hash of its first MiB too: two files named alike (a test's tiny nomic-bert, the real one) never
 * share vectors.
 */
export function modelIdentity(choice: EmbeddingModelChoice): { model: string; cacheName: string } {
  if (choice.kind === "use-lite") return { model: USE_LITE, cacheName: USE_LITE };
  const model = path.basename(choice.path).replace(/\.gguf$/i, "");
  const fd = fs.openSync(choice.path, "r");
  try {
    const head = Buffer.alloc(1 << 20);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const size = fs.fstatSync(fd).size;
    const h = crypto.createHash("sha1").update(head.subarray(0, n)).update(String(size)).digest("hex");
    return { model, cacheName: `${model}-${h.slice(0, 12)}` };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The real embedding server (USE-lite by default, or a GGUF through llama.cpp) behind an on-disk cache:
 * USE-lite costs ~290 ms per passage and ~45 ms per query on a small CPU, and every rerun embeds the same
 * texts. The cache is keyed by model, kind (query / document) and text; the server is started only on a
 * miss. Default folder: `.cache/retrieval-eval` (git-ignored).
 */
export class CachedEmbedder implements Embedder {
  private readonly map = new Map<string, Float32Array>();
  private inner: { client: HttpEmbedClient; sup: EmbedderSupervisor; dim: number } | null = null;
  private readonly file: string;
  readonly model: string;
  misses = 0;
  embedMs = 0;

  constructor(
    private readonly choice: EmbeddingModelChoice,
    dir: string,
    private readonly log: (m: string) => void = () => {},
  ) {
    fs.mkdirSync(dir, { recursive: true });
    const id = modelIdentity(choice);
    this.model = id.model;
    this.file = path.join(dir, `${id.cacheName}.jsonl`);
    if (fs.existsSync(this.file)) {
      for (const line of fs.readFileSync(this.file, "utf8").split("\n")) {
        if (!line) continue;
        try {
          const { k, v } = JSON.parse(line) as { k: string; v: string };
          const b = Buffer.from(v, "base64");
          this.map.set(k, new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4));
        } catch {
          /* a torn last line from an interrupted run: that text is embedded again */
        }
      }
    }
  }

  get size(): number {
    return this.map.size;
  }

  private key(kind: "q" | "d", text: string): string {
    return crypto.createHash("sha1").update(`${this.model}\u0000${kind}\u0000${text}`).digest("hex");
  }

  private async server(): Promise<HttpEmbedClient> {
    if (!this.inner) {
      const sup = new EmbedderSupervisor({
        choice: this.choice,
        healthTimeoutMs: 10_000,
        maxHealthFailures: 6,
        log: (m) => this.log(`embedder: ${m}`),
      });
      sup.start();
      const client = new HttpEmbedClient(() => sup.ensureHealthy(120_000));
      const info = await client.info();
      if (info.model !== this.model)
        throw new Error(`embedding server serves ${info.model}, the cache is for ${this.model}`);
      this.inner = { client, sup, dim: info.dim };
    }
    return this.inner.client;
  }

  private async embed(kind: "q" | "d", texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => this.key(kind, t));
    const todo = [...new Set(texts.filter((_, i) => !this.map.has(keys[i]!)))];
    if (todo.length) {
      const client = await this.server();
      const t0 = Date.now();
      const out = fs.openSync(this.file, "a");
      try {
        for (let i = 0; i < todo.length; i += 64) {
          const batch = todo.slice(i, i + 64);
          const vecs = kind === "q" ? await client.embedQueries(batch) : await client.embedDocuments(batch);
          batch.forEach((t, j) => {
            const k = this.key(kind, t);
            this.map.set(k, vecs[j]!);
            fs.writeSync(
              out,
              `${JSON.stringify({
                k,
                v: Buffer.from(vecs[j]!.buffer, vecs[j]!.byteOffset, vecs[j]!.byteLength).toString("base64"),
              })}\n`,
            );
          });
          this.misses += batch.length;
          this.log(`embedded ${Math.min(i + 64, todo.length)}/${todo.length} ${kind === "q" ? "queries" : "passages"}`);
        }
      } finally {
        fs.closeSync(out);
      }
      this.embedMs += Date.now() - t0;
    }
    return keys.map((k) => this.map.get(k)!);
  }

  async info() {
    if (this.choice.kind === "use-lite") return { model: this.model, dim: 512 };
    // A GGUF's width: from a cached vector when there is one, else from the server.
    const cached = this.map.values().next().value as Float32Array | undefined;
    if (cached) return { model: this.model, dim: cached.length };
    await this.server();
    return { model: this.model, dim: this.inner!.dim };
  }
  embedQueries(texts: string[]) {
    return this.embed("q", texts);
  }
  embedDocuments(texts: string[]) {
    return this.embed("d", texts);
  }
  async tokenize(text: string): Promise<number[]> {
    return (await this.server()).tokenize(text);
  }
  async close(): Promise<void> {
    await this.inner?.sup.stop();
    this.inner = null;
  }
}

export interface LifeStore {
  db: Database.Database;
  ctx: MemoContext;
  embedder: CachedEmbedder;
  model: string;
  idOf: Map<string, string>;
  keyOf: Map<string, string>;
  ingestMs: number;
  close(): Promise<void>;
}

/** A temp store holding the whole history in one space, written through the real service path. */
export async function openLifeStore(
  ds: LifeDataset,
  opts: { log?: (m: string) => void; cacheDir?: string; choice?: EmbeddingModelChoice } = {},
): Promise<LifeStore> {
  const log = opts.log ?? (() => {});
  // Exact vector search (vec0): the eval measures ranking, not the approximate index (bench does that).
  process.env.MEMO_ANN = "off";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-life-"));
  const opened = openDb(path.join(dir, "eval.db"));
  const embedder = new CachedEmbedder(opts.choice ?? USE_LITE_CHOICE, opts.cacheDir ?? DEFAULT_CACHE_DIR, log);
  const ctx: MemoContext = { db: opened.sqlite, embedder };
  const t0 = Date.now();
  const idOf = new Map<string, string>();
  for (let i = 0; i < ds.memories.length; i += 200) {
    const part = ds.memories.slice(i, i + 200);
    const out = await addMemories(
      ctx,
      part.map((m) => ({ text: m.text, said: m.said, space: ds.space, timestamp: m.timestamp, kind: "chat" as const })),
    );
    part.forEach((m, j) => {
      if (out[j]!.length !== 1) throw new Error(`memory ${m.key} became ${out[j]!.length} chunks`);
      idOf.set(m.key, out[j]![0]!);
    });
    log(`ingested ${Math.min(i + 200, ds.memories.length)}/${ds.memories.length} memories`);
  }
  return {
    db: opened.sqlite,
    ctx,
    embedder,
    model: embedder.model,
    idOf,
    keyOf: new Map([...idOf].map(([k, id]) => [id, k])),
    ingestMs: Date.now() - t0,
    async close() {
      await embedder.close();
      opened.sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The retrieval queries of a question under some settings, and the texts the dense leg embeds. */
export function queriesFor(
  store: LifeStore,
  ds: LifeDataset,
  q: LifeQuestion,
  s: RetrievalSettings,
): { queries: RetrievalQuery[]; dense: string[] } {
  const queries = buildQueries(q.text, q.context, { contextMessages: s.contextMessages, anchorQuery: s.anchorQuery });
  void ds;
  return { queries, dense: denseTexts(store.db, ds.space, queries, s, parseTimeIntent(q.text, new Date(q.at))) };
}

/** Embed (once, cached) every dense query text the questions need under these settings. */
export async function prepareQueries(
  store: LifeStore,
  ds: LifeDataset,
  questions: LifeQuestion[],
  variants: RetrievalSettings[],
): Promise<void> {
  const texts = new Set<string>();
  for (const s of variants) for (const q of questions) for (const t of queriesFor(store, ds, q, s).dense) texts.add(t);
  await store.embedder.embedQueries([...texts]);
}

/** One question under one configuration, after embedding (cached). */
export async function searchLife(
  store: LifeStore,
  ds: LifeDataset,
  q: LifeQuestion,
  s: RetrievalSettings,
  k: number,
): Promise<RetrieveResult> {
  const { queries, dense } = queriesFor(store, ds, q, s);
  const vectors = s.weights.vector > 0 ? await store.embedder.embedQueries(dense) : [];
  return searchWithVectors(
    store.db,
    { query: q.text, spaceId: ds.space, k, context: q.context, now: q.at, model: store.model, tzOffsetMinutes: 0 },
    s,
    queries,
    vectors,
  );
}
