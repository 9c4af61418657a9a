/** An embedding engine served behind llama-server's HTTP API by server/embedder/main.ts. */
export interface EmbeddingEngine {
  /** Model id as reported by /v1/models, e.g. "nomic-embed-text-v1.5.Q8_0" or "universal-sentence-encoder-lite". */
  readonly modelId: string;
  readonly dim: number;
  /** Human-readable engine description for logs and the UI. */
  readonly description: string;
  embed(texts: string[]): Promise<number[][]>;
  /** Whether tokenize() is cheap enough to count usage on every /v1/embeddings call. */
  readonly cheapTokenize: boolean;
  tokenize(text: string): Promise<number[]>;
  close(): Promise<void>;
}
