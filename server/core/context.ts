import type Database from "better-sqlite3";
import type { EmbedderStatus } from "../embedder/supervisor";

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

/**
 * What every service needs: the store and an embedder (in the app, the supervised server: appContext() in
 * server/context.ts).
 */
export interface MemoContext {
  db: Database.Database;
  embedder: Embedder;
  embedderStatus?: () => EmbedderStatus;
}
