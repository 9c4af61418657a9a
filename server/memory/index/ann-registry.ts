/** One ANN index per store connection: started by the embedding-model check, found by vector search. */
import type Database from "better-sqlite3";
import { AnnIndex } from "./ann-index";

const registry = new WeakMap<Database.Database, AnnIndex>();

/** The index serving this connection, if one was started. */
export function annFor(db: Database.Database): AnnIndex | undefined {
  return registry.get(db);
}

/** Start (build or load) the ANN index of a store; `dir` persists it (null: memory only). */
export function startAnnIndex(db: Database.Database, dim: number, dir: string | null): AnnIndex {
  const existing = registry.get(db);
  if (existing && existing.dim === dim) return existing;
  existing?.close();
  const idx = new AnnIndex(db, dim, dir);
  registry.set(db, idx);
  void idx.build();
  return idx;
}

export function stopAnnIndex(db: Database.Database): void {
  registry.get(db)?.close();
  registry.delete(db);
}
