/** Which embedding model the store's vectors belong to, and the vector table sized for it. */
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { getMeta, setMeta } from "../../core/meta";
import { resetStatementCache } from "../../core/statements";
import { recopyVectors } from "./vector-rows";

/** Dimension memory_vec was created with, read from its declaration. */
export function vectorTableDim(db: Database.Database): number | undefined {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'").get() as { sql: string } | undefined;
  const m = r?.sql.match(/float\[(\d+)\]/);
  return m ? Number(m[1]) : undefined;
}

function recreateVectorTable(db: Database.Database, dim: number): void {
  db.exec("DROP TABLE IF EXISTS memory_vec");
  db.exec(
    `CREATE VIRTUAL TABLE memory_vec USING vec0(space_id text partition key, embedding float[${dim}] distance_metric=cosine)`,
  );
  resetStatementCache(db);
  recopyVectors(db);
}

/**
 * Bind the store to an embedding model. An empty store adopts the model (recreating memory_vec for its
 * dimension); a store holding vectors of another model refuses, since mixing vector spaces corrupts search.
 */
export function bindEmbeddingModel(db: Database.Database, model: string, dim: number): void {
  const storedModel = getMeta(db, "embedding_model");
  const storedDim = Number(getMeta(db, "embedding_dim") ?? 0) || undefined;
  if (storedModel === model && storedDim === dim && vectorTableDim(db) === dim) return;
  const tx = db.transaction(() => {
    const vectors =
      (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n +
      (db.prepare("SELECT count(*) AS n FROM memory_vec_trash").get() as { n: number }).n;
    if (storedModel && vectors > 0 && (storedModel !== model || storedDim !== dim)) {
      throw new StoreError(
        `The memory store holds vectors of ${storedModel} (${storedDim}-d) but the embedding server serves ${model} (${dim}-d). ` +
          `Start with the original model, or re-index the store for the new one.`,
        "MODEL_MISMATCH",
      );
    }
    if (vectorTableDim(db) !== dim) recreateVectorTable(db, dim);
    setMeta(db, "embedding_model", model);
    setMeta(db, "embedding_dim", String(dim));
  });
  tx();
}

export function boundModel(db: Database.Database): { model: string; dim: number } | undefined {
  const model = getMeta(db, "embedding_model");
  const dim = Number(getMeta(db, "embedding_dim") ?? 0);
  return model && dim ? { model, dim } : undefined;
}
