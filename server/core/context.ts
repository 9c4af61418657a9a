import type Database from "better-sqlite3";
import { getDb } from "../db";
import { HttpEmbedClient } from "../embedder/client";
import { getEmbedder, type EmbedderStatus } from "../embedder/supervisor";

/** What the memory engine needs from an embedding model. */
export interface Embedder {
  /** Model id and dimension, learnt from the server. */
  info(): Promise<{ model: string; dim: number }>;
  /** Embed retrieval queries (with the model's query prefix). Vectors are unit length. */
  embedQueries(texts: string[]): Promise<Float32Array[]>;
  /** Embed stored text (with the model's document prefix). Vectors are unit length. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** Token ids by the model's own tokenizer. */
  tokenize(text: string): Promise<number[]>;
}

/** What every service needs: the store and an embedder (the supervised server in the app). */
export interface MemoContext {
  db: Database.Database;
  embedder: Embedder;
  embedderStatus?: () => EmbedderStatus;
}

const g = globalThis as unknown as { __memoContext?: MemoContext };

/** The app's context: the process-wide store and supervised embedding server. */
export function appContext(): MemoContext {
  if (!g.__memoContext) {
    const sup = getEmbedder();
    const embedder = new HttpEmbedClient(() => sup.ensureHealthy(10_000), {
      onTransportError: () => sup.reportFailure(),
    });
    g.__memoContext = { db: getDb().sqlite, embedder, embedderStatus: () => sup.status() };
  }
  return g.__memoContext;
}

export function setAppContext(ctx: MemoContext | undefined): void {
  g.__memoContext = ctx;
}
