/**
 * The ANN index's graphs (ann-index.ts keeps them in step with the store): one usearch HNSW graph (f16) per
 * space, keyed by the memory's rid, with its size; adding, removing and searching them.
 */
import { availableParallelism } from "node:os";
import usearch from "usearch";
import type { SpaceIndex, UIndex } from "./ann-files";
import { type AnnSearchHit, BUILD_THREADS, CONNECTIVITY, EXPANSION_ADD, searchWidth } from "./ann-params";

const { Index, MetricKind, ScalarKind } = usearch;

/** Threads a batched search may use: one per query, up to the machine's cores. */
const SEARCH_THREADS = Math.max(1, availableParallelism());

/** The first k finite matches of one query, best first. */
function hitsOf(m: { keys: BigUint64Array; distances: Float32Array }, k: number): AnnSearchHit[] {
  const out: AnnSearchHit[] = [];
  for (let i = 0; i < Math.min(k, m.keys.length); i++) {
    const d = m.distances[i]!;
    if (!Number.isFinite(d)) continue;
    out.push({ rid: Number(m.keys[i]), similarity: 1 - d });
  }
  return out;
}

/** usearch reads typed arrays from offset 0 of their buffer: a compact copy when the array is a view. */
const compact = (v: Float32Array) => (v.byteOffset === 0 && v.length === v.buffer.byteLength / 4 ? v : v.slice());

export class SpaceGraphs {
  spaces = new Map<string, SpaceIndex>();

  constructor(readonly dim: number) {}

  newIndex(): UIndex {
    return new Index({
      dimensions: this.dim,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F16,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      // The search width is set per query (searchWidth: usearch searches max(this, wanted) candidates).
      expansion_search: 16,
      multi: false,
    });
  }

  /** The space's graph, made empty when it has none yet. */
  space(spaceId: string): SpaceIndex {
    let s = this.spaces.get(spaceId);
    if (!s) this.spaces.set(spaceId, (s = { index: this.newIndex(), size: 0 }));
    return s;
  }

  size(): number {
    let n = 0;
    for (const s of this.spaces.values()) n += s.size;
    return n;
  }

  /** Approximate memory held by the graphs and f16 vectors, in MB. */
  memoryMB(): number {
    const n = this.size();
    return +((n * (this.dim * 2 + CONNECTIVITY * 2 * 4 * 1.1 + 16)) / 1048576).toFixed(1);
  }

  /** Add (or replace) one memory's vector in its space. */
  add(spaceId: string, rid: number, vector: Float32Array): void {
    const s = this.space(spaceId);
    const key = BigInt(rid);
    if (s.index.contains(key)) {
      s.index.remove(key);
      s.size--;
    }
    s.index.add(key, compact(vector));
    s.size++;
  }

  /** Add new keys to a space as one matrix (one native call, on the build's threads). */
  addMany(spaceId: string, keys: bigint[], vectors: Float32Array[]): void {
    const matrix = new Float32Array(keys.length * this.dim);
    vectors.forEach((v, i) => matrix.set(v, i * this.dim));
    const s = this.space(spaceId);
    s.index.add(BigUint64Array.from(keys), matrix, BUILD_THREADS);
    s.size += keys.length;
  }

  remove(spaceId: string, rid: number): void {
    const s = this.spaces.get(spaceId);
    if (!s) return;
    const key = BigInt(rid);
    if (s.index.contains(key)) {
      s.index.remove(key);
      s.size--;
    }
  }

  /** Remove a rid from every space but `keep` (a memory moved, or is gone: null). */
  removeOutside(rid: number, keep: string | null): void {
    const key = BigInt(rid);
    for (const [spaceId, s] of this.spaces) if (spaceId !== keep && s.index.contains(key)) this.remove(spaceId, rid);
  }

  /**
   * Search one space for several queries (a turn's main and anchor query) in one call, on up to one
   * thread per query: the same graph search per query as one at a time, so the same hits. usearch searches
   * each on a free thread slot of the index and fails the call when none is free (its thread slots
   * are reserved by the insertions): then the queries are searched one after the other instead.
   */
  searchMany(spaceId: string, queries: Float32Array[], k: number, width?: number): AnnSearchHit[][] {
    const s = this.spaces.get(spaceId);
    if (!s || s.size === 0) return queries.map(() => []);
    const wanted = Math.min(Math.max(k, width ?? searchWidth(s.size, k)), s.size);
    const one = (q: Float32Array) => hitsOf(s.index.search(compact(q), wanted, 1), k);
    if (queries.length === 1) return [one(queries[0]!)];
    const matrix = new Float32Array(queries.length * this.dim);
    queries.forEach((q, i) => matrix.set(q, i * this.dim));
    let batch: InstanceType<typeof usearch.BatchMatches>;
    try {
      batch = s.index.search(matrix, wanted, Math.min(queries.length, SEARCH_THREADS)) as typeof batch;
    } catch {
      return queries.map(one);
    }
    return queries.map((_, i) => hitsOf(batch.get(i), k));
  }
}
