/**
 * Facts after an embedding-model change. A fact's vector carries its model (facts.embedding_model) and is
 * only ever compared with a query of that model (search.ts), so vectors of another model are never wrong,
 * only unused. The re-index (server/memory/index/reindex.ts) re-embeds them right after its swap, and a
 * store bound to a model while facts of another remain (a crash after the swap, a write by a process still
 * on the old model) re-embeds them in the background (index/reindex-job.ts). Live and forgotten facts alike:
 * a forgotten one may come back.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { vecBlob } from "../store/rows";
import { replaceFactVector } from "./indexing";

interface PendingFact {
  rid: number;
  text: string;
  contentHash: string;
}

/** How many facts have a vector of another model than `model`. */
export function staleFactCount(db: Database.Database, model: string): number {
  return (stmt(db, "SELECT count(*) AS n FROM facts WHERE embedding_model <> ?").get(model) as { n: number }).n;
}

/** Has any fact a vector of another model than `model`? Two probes of facts_model_idx (cheap enough for every request). */
export function hasStaleFacts(db: Database.Database, model: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM facts WHERE embedding_model < ? OR embedding_model > ? LIMIT 1").get(model, model) !==
    undefined
  );
}

/** The next facts (by rid, after `afterRid`) whose vector is not of `model`. */
export function pendingFactBatch(db: Database.Database, model: string, afterRid: number, limit: number): PendingFact[] {
  return stmt(
    db,
    `SELECT rid, text, content_hash AS contentHash FROM facts
      WHERE rid > ? AND embedding_model <> ? ORDER BY rid LIMIT ?`,
  ).all(afterRid, model, limit) as PendingFact[];
}

/** Write one batch of new vectors in one transaction; a fact changed or gone since it was read is left out. */
export function storeFactBatch(
  db: Database.Database,
  rows: PendingFact[],
  vectors: Float32Array[],
  model: string,
): number {
  return db.transaction(() => {
    const cur = stmt(db, "SELECT content_hash AS h, embedding_model AS m FROM facts WHERE rid = ?");
    const mark = stmt(db, "UPDATE facts SET embedding_model = ? WHERE rid = ?");
    let n = 0;
    rows.forEach((r, i) => {
      const f = cur.get(r.rid) as { h: string; m: string } | undefined;
      if (!f || f.h !== r.contentHash || f.m === model) return;
      replaceFactVector(db, r.rid, vecBlob(vectors[i]!));
      mark.run(model, r.rid);
      n++;
    });
    return n;
  })();
}

/** Re-embed every fact whose vector is not of `model`, in batches. Returns how many were re-embedded. */
export async function reembedFacts(
  db: Database.Database,
  model: string,
  embed: (texts: string[]) => Promise<Float32Array[]>,
  opts: { batchSize?: number; signal?: AbortSignal } = {},
): Promise<number> {
  let after = 0;
  let n = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    const rows = pendingFactBatch(db, model, after, opts.batchSize ?? 32);
    if (rows.length === 0) return n;
    n += storeFactBatch(db, rows, await embed(rows.map((r) => r.text)), model);
    after = rows[rows.length - 1]!.rid;
    await new Promise<void>((r) => setImmediate(r));
  }
}
