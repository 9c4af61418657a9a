/**
 * The space's background similarity (docs/retrieval.md#confidence): mean and spread of the cosines between
 * random memories of a space under a model, so (cos − mean) / sd reads "above chance" alike for USE-lite
 * (unrelated ≈ 0.1) and nomic (≈ 0.45). Resampled once the writes since could have changed a tenth of it.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { unitCosine } from "./cosine";
import { keywordKey, liveInSpace, spaceWrites, storedVectors } from "../store";

export interface Background {
  mean: number;
  sd: number;
  /** Pairs it was measured on. */
  pairs: number;
  /** The sampled memories' vectors: a query's own background is its cosine to each (queryBackground). */
  sample?: Float32Array[];
}

/** Mean and standard deviation of some cosines; null when there are none. */
function spread(cosines: number[]): { mean: number; sd: number } | null {
  if (cosines.length === 0) return null;
  const mean = cosines.reduce((s, c) => s + c, 0) / cosines.length;
  const sq = cosines.reduce((s, c) => s + c * c, 0);
  return { mean, sd: Math.sqrt(Math.max(1e-8, sq / cosines.length - mean * mean)) };
}

/** Mean and spread of a query's cosine to the sampled memories: how similar anything here is to it by chance. */
export function queryBackground(
  bg: Background | null,
  query: Float32Array | null,
): { mean: number; sd: number } | null {
  return bg?.sample?.length && query ? spread(bg.sample.map((v) => unitCosine(query, v))) : null;
}

/** Memories sampled (all pairs among them: 200 → 19,900 cosines, ~10 ms). */
const SAMPLE = 200;
/**
 * The sample: memories in a scrambled but fixed order (a multiplicative hash of the rowid), so the same
 * space gives the same background and the same confidences on every run, spread over its whole history.
 */
const SAMPLE_SQL =
  "SELECT rid FROM memories WHERE space_id = ? AND soft_deleted = 0 ORDER BY (rid * 2654435761) % 4294967296 LIMIT ?";

/** Mean and standard deviation of the cosines between every pair of the vectors; null below 2 vectors. */
export function backgroundFrom(vectors: Float32Array[]): Background | null {
  const cosines: number[] = [];
  for (let i = 0; i < vectors.length; i++)
    for (let j = i + 1; j < vectors.length; j++) cosines.push(unitCosine(vectors[i]!, vectors[j]!));
  const s = spread(cosines);
  return s && { ...s, pairs: cosines.length };
}

const cache = new WeakMap<Database.Database, Map<string, { writes: number; count: number; bg: Background | null }>>();

/** The background of a space (cached); null while it holds fewer than 10 memories. */
export function backgroundOf(db: Database.Database, spaceId: string, model: string): Background | null {
  let byKey = cache.get(db);
  if (!byKey) cache.set(db, (byKey = new Map()));
  // Keyed by the space's keyword key too: a space deleted and made again is sampled afresh.
  const key = `${model}\u0000${spaceId}\u0000${keywordKey(db, spaceId) ?? ""}`;
  // The sample is a fixed order of the space's memories, so only the space's own writes change it (its
  // `writes`, drizzle/0018, any process; another space's never refresh it). Resampling costs ~50 ms at 10K
  // memories and ~150 ms at 100K; a clock-based refresh made the first turn after a pause pay it for an
  // unchanged space.
  const count = liveInSpace(db, spaceId);
  const writes = spaceWrites(db, spaceId);
  const hit = byKey.get(key);
  if (hit && writes >= hit.writes && writes - hit.writes <= hit.count / 10) return hit.bg;
  let bg: Background | null = null;
  if (count >= 10) {
    const rids = (stmt(db, SAMPLE_SQL).all(spaceId, SAMPLE) as { rid: number }[]).map((r) => r.rid);
    const sample = [...storedVectors(db, rids).values()];
    const measured = backgroundFrom(sample);
    bg = measured ? { ...measured, sample } : null;
  }
  byKey.set(key, { writes, count, bg });
  return bg;
}
