import path from "node:path";
import type Database from "better-sqlite3";
import type { MemoContext } from "../../core/context";
import { startAnnIndex } from "./ann-registry";
import { reconcileEmbeddingModel } from "./reindex-job";
import { bindEmbeddingModel, boundModel } from "../store";

/** The model the store is bound to, binding an empty store to the embedder's model on first use. */
export async function activeModel(ctx: MemoContext): Promise<{ model: string; dim: number }> {
  const info = await ctx.embedder.info();
  // docs/architecture.md#models-and-providers: a store holding another model's vectors is re-embedded in the background (writes meanwhile
  // carry the new model's vectors; search is keyword-only until the swap), instead of refused.
  const startIndex = (dim: number) => startVectorIndex(ctx.db, dim);
  if (reconcileEmbeddingModel(ctx.db, ctx.embedder, info, { startIndex, log: console.info }) === "reindexing")
    return info;
  const bound = boundModel(ctx.db);
  if (!bound || bound.model !== info.model || bound.dim !== info.dim) bindEmbeddingModel(ctx.db, info.model, info.dim);
  startVectorIndex(ctx.db, info.dim);
  return info;
}

/**
 * Serve vector queries from the in-memory ANN index (built in the background, persisted beside the
 * store). MEMO_ANN=off keeps every query on vec0's exact scan.
 */
export function startVectorIndex(db: Database.Database, dim: number): void {
  if (process.env.MEMO_ANN === "off") return;
  const dir = db.name === ":memory:" || !db.name ? null : path.join(path.dirname(db.name), "ann");
  startAnnIndex(db, dim, dir);
}
