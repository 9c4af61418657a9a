/**
 * A fresh, migrated store in a temporary file (real SQLite with sqlite-vec, WAL), for integration tests.
 * close() closes the connection and removes the folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { openDb, type OpenedDb } from "../db";
import { bindEmbeddingModel, indexedTotal, keywordTableOf } from "../memory/store";

export interface TempStore extends OpenedDb {
  dir: string;
  close(): void;
}

export function openTempStore(opts: { model?: string; dim?: number } = {}): TempStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memo-test-"));
  const opened = openDb(path.join(dir, "memory.db"));
  if (opts.model && opts.dim) bindEmbeddingModel(opened.sqlite, opts.model, opts.dim);
  return {
    ...opened,
    dir,
    close() {
      try {
        if (opened.sqlite.open) opened.sqlite.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Row counts of every table a memory lives in (including soft-deleted rows and parked vectors). */
export function rawCounts(db: Database.Database): { memories: number; vec: number; fts: number; trash: number } {
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    memories: n("SELECT count(*) AS n FROM memories"),
    vec: n("SELECT count(*) AS n FROM memory_vec"),
    fts: indexedTotal(db, "memory"),
    trash: n("SELECT count(*) AS n FROM memory_vec_trash"),
  };
}

/** The space's memory keyword table (server/memory/store/keyword-index.ts), for tests that break a store on purpose. */
export function ftsTable(db: Database.Database, spaceId = "personal"): string {
  const t = keywordTableOf(db, "memory", spaceId);
  if (!t) throw new Error(`space ${spaceId} has no keyword table`);
  return `"${t}"`;
}

/** A deterministic unit vector of `dim` dimensions pointing mostly along axis `axis` (for store-level tests). */
export function axisVector(dim: number, axis: number, jitter = 0): Float32Array {
  const v = new Float32Array(dim);
  v[axis % dim] = 1;
  if (jitter) v[(axis + 1) % dim] = jitter;
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i]! /= norm;
  return v;
}
