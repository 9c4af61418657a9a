import type Database from "better-sqlite3";

/** The embedding server's process state (server/embedder/supervisor.ts runs it; ops/child-server.ts's states). */
export type EmbedderState = "stopped" | "starting" | "ready" | "restarting" | "failed";

export interface EmbedderStatus {
  status: EmbedderState;
  model: string | null;
  dim: number | null;
  engine: string | null;
  baseUrl: string | null;
  pid: number | null;
  restarts: number;
  lastError: string | null;
  /** Why this model was chosen (e.g. the offline fallback and how to get the real one). */
  modelReason: string | null;
  fallback: boolean;
}

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
