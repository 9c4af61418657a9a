/**
 * Consolidation (docs/storage.md#what-each-job-may-change): per space, the most recent live memories (200 by default; pinned ones are
 * never consolidated away) with their vectors read from memory_vec; pairwise cosine; pairs at or above
 * the threshold, most similar first, each memory in at most one merge per run; each pair merged into one
 * statement by the chat provider (a MergeFn), embedded as a document, and written as a new memory (kind
 * `consolidated`, the higher importance of the two, the earlier timestamp) — and only then the originals
 * soft-deleted, both in ONE transaction per pair (store.writeTransaction). A pair whose memories changed
 * or went while the provider was answering is left alone. It yields to the event loop between pairs, so
 * chat keeps being served while it runs.
 *
 * Guardrails: pinned memories and document chunks are never candidates, and only memories of the same
 * kind are paired. Each merged statement is checked (merge-guard.ts) before anything is written; a pair
 * that fails is skipped with the reason. With `preview` nothing is written: the checked merges come back
 * as proposals, which applyMerges() writes later (after the user confirmed them).
 *
 * Facts (issue 42): each space's duplicate current facts — the same statement by the same person — are
 * merged into the oldest of them (server/memory/facts/duplicates.ts), with no provider call; previewed,
 * applied and undone with the run like the memories' merges.
 */
import type Database from "better-sqlite3";
import type { Embedder } from "../../core/context";
import type { JobCounts } from "./decay";
import { similarityProblem, textProblem } from "./merge-guard";
import { insertMemories, listSpaces, reindexTarget, softDeleteMemories, writeTransaction } from "../store";
import { addFactSources } from "../facts/cascade";
import { findDuplicateFacts, mergeDuplicateFact, type FactDuplicate, type FactMergeRecord } from "../facts/duplicates";

/** Merge two memory statements into one (the chat provider in the app; a test double in tests). */
export type MergeFn = (a: string, b: string, signal?: AbortSignal) => Promise<string>;

export interface ConsolidateOptions {
  /** Cosine similarity at or above which a pair is merged. */
  threshold: number;
  /** Memories compared per space (default 200). */
  maxPerSpace?: number;
  /** null: no chat provider — pairs are found and reported, nothing is merged. */
  merge: MergeFn | null;
  /** Why there is no merge function (recorded when merge is null). */
  noMergeReason?: string;
  /** Only these spaces (default: all). */
  spaces?: string[];
  /**
   * Why a space's pairs may not be sent to the merge function (its person's memory-sharing choice for the
   * provider, server/jobs/merge.ts), or null: such a space's pairs are found and counted, never merged.
   */
  mayMergeIn?: (spaceId: string) => string | null;
  now?: () => Date;
  signal?: AbortSignal;
  /** Called between pairs (the job renews its lease there). */
  onPair?: () => void;
  /** Stop after this many consecutive failed merges (default 3): the provider is probably down. */
  maxConsecutiveFailures?: number;
  /**
   * Test hook: runs inside a pair's transaction after the merged memory is written and before the
   * originals are soft-deleted (a throw there must leave the store as it was).
   */
  beforeSoftDelete?: (mergedId: string) => void;
  /** Find and check merges but write nothing: they come back in `proposals`. */
  preview?: boolean;
}

/** A checked merge not written yet (a preview), enough to write it later if both originals are unchanged. */
export interface MergeProposal {
  from: [string, string];
  hashes: [string, string];
  originals: [string, string];
  kind: string;
  similarity: number;
  content: string;
}

export interface MergeRecord {
  id: string;
  from: [string, string];
  similarity: number;
  content: string;
}

export interface ConsolidateResult {
  counts: JobCounts;
  spaces: number;
  /** Memories compared, over all spaces. */
  candidates: number;
  /** Pairs at or above the threshold, each memory in at most one. */
  pairs: number;
  threshold: number;
  failed: number;
  /** Pairs left alone because a memory changed or was deleted meanwhile. */
  stale: number;
  /** Set when merging was skipped (no chat provider, a re-index started, too many failures). */
  skippedMerging: string | null;
  /** Spaces whose pairs were not merged because their person does not share memories with the provider, and why. */
  notShared: { space: string; reason: string }[];
  merges: MergeRecord[];
  errors: { from: [string, string]; error: string }[];
  /** Pairs whose merged statement failed a check (merge-guard.ts), with why and the two memories' text. */
  skipped: { from: [string, string]; reason: string; originals?: [string, string] }[];
  /** With `preview`: the merges that passed every check, not written. */
  proposals: MergeProposal[];
  /** Current facts compared for duplicates (server/memory/facts/duplicates.ts), over all spaces. */
  factCandidates: number;
  /** Duplicate facts found, each to go into an older fact of its space and person. */
  factPairs: number;
  /** Duplicate facts merged (needs no chat provider), with what the undo needs. */
  factMerges: FactMergeRecord[];
  /** With `preview`: the duplicate facts that would be merged, not written. */
  factProposals: FactDuplicate[];
}

export interface Candidate {
  rid: number;
  id: string;
  spaceId: string;
  content: string;
  contentHash: string;
  importance: number;
  timestamp: string;
  kind: string;
}

/** The most recent live, unpinned, non-document memories of a space with their vectors (from memory_vec). */
export function loadCandidates(
  db: Database.Database,
  spaceId: string,
  limit: number,
): { memories: Candidate[]; vectors: Float32Array[] } {
  const rows = db
    .prepare(
      `SELECT rid, id, space_id AS spaceId, content, content_hash AS contentHash, importance, timestamp, kind FROM memories
       WHERE space_id = ? AND soft_deleted = 0 AND pinned = 0 AND kind != 'document' ORDER BY timestamp DESC, rid DESC LIMIT ?`,
    )
    .all(spaceId, limit) as Candidate[];
  const vec = db.prepare("SELECT embedding FROM memory_vec WHERE rowid = ?");
  const memories: Candidate[] = [];
  const vectors: Float32Array[] = [];
  for (const r of rows) {
    const v = vec.get(BigInt(r.rid)) as { embedding: Buffer } | undefined;
    if (!v) continue;
    memories.push(r);
    vectors.push(
      new Float32Array(
        v.embedding.buffer.slice(v.embedding.byteOffset, v.embedding.byteOffset + v.embedding.byteLength),
      ),
    );
  }
  return { memories, vectors };
}

export interface SimilarPair {
  i: number;
  j: number;
  similarity: number;
}

/**
 * All pairs (i < j) with cosine similarity ≥ threshold, most similar first. Exact, with pruning: the
 * vectors are normalised once into one Float64Array matrix, and each pair's dot product is summed in
 * segments; after the first 1/8, 1/4 and 1/2 of the dimensions, a pair whose partial sum plus the
 * product of the two vectors' remaining norms (Cauchy–Schwarz: the most the rest can add) is below the
 * threshold cannot reach it and is dropped. Most pairs are dissimilar, so most stop early
 * (scripts/bench-jobs.ts compares it with a naive per-pair cosine).
 */
export function similarPairs(vectors: Float32Array[], threshold: number): SimilarPair[] {
  const n = vectors.length;
  if (n < 2) return [];
  const dim = vectors[0]!.length;
  const m = new Float64Array(n * dim);
  const checkpoints = [dim >> 3, dim >> 2, dim >> 1].filter((c, i, a) => c > 0 && c < dim && a.indexOf(c) === i);
  // rest[c][i]: the norm of vector i over dimensions checkpoints[c]..dim.
  const rest = checkpoints.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const v = vectors[i]!;
    if (v.length !== dim) throw new Error(`vector ${i} has ${v.length} dimensions, expected ${dim}`);
    let norm = 0;
    for (let k = 0; k < dim; k++) norm += v[k]! * v[k]!;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const o = i * dim;
    for (let k = 0; k < dim; k++) m[o + k] = v[k]! * inv;
    checkpoints.forEach((cp, c) => {
      let s = 0;
      for (let k = cp; k < dim; k++) s += m[o + k]! * m[o + k]!;
      rest[c]![i] = Math.sqrt(s);
    });
  }
  // A little slack so rounding never drops a pair that is at the threshold.
  const bound = threshold - 1e-9;
  const out: SimilarPair[] = [];
  for (let i = 0; i < n - 1; i++) {
    const oi = i * dim;
    next: for (let j = i + 1; j < n; j++) {
      const oj = j * dim;
      let s = 0;
      let k = 0;
      for (let c = 0; c < checkpoints.length; c++) {
        const cp = checkpoints[c]!;
        for (; k < cp; k++) s += m[oi + k]! * m[oj + k]!;
        if (s + rest[c]![i]! * rest[c]![j]! < bound) continue next;
      }
      for (; k < dim; k++) s += m[oi + k]! * m[oj + k]!;
      if (s >= threshold) out.push({ i, j, similarity: s });
    }
  }
  return out.sort((a, b) => b.similarity - a.similarity || a.i - b.i || a.j - b.j);
}

/** Greedy matching: most similar pairs first, each index used at most once. */
export function disjointPairs(pairs: SimilarPair[]): SimilarPair[] {
  const used = new Set<number>();
  const out: SimilarPair[] = [];
  for (const p of pairs) {
    if (used.has(p.i) || used.has(p.j)) continue;
    used.add(p.i);
    used.add(p.j);
    out.push(p);
  }
  return out;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * Run consolidation over the store. `model` is the embedding model the store is bound to (the merged
 * statement is embedded by `embedder`, which must serve it).
 */
export async function consolidate(
  ctx: { db: Database.Database; embedder: Embedder },
  model: string,
  opts: ConsolidateOptions,
): Promise<ConsolidateResult> {
  const { db, embedder } = ctx;
  const now = opts.now ?? (() => new Date());
  const maxFailures = opts.maxConsecutiveFailures ?? 3;
  const result: ConsolidateResult = {
    counts: { promoted: 0, decayed: 0, softDeleted: 0, purged: 0, merged: 0 },
    spaces: 0,
    candidates: 0,
    pairs: 0,
    threshold: opts.threshold,
    failed: 0,
    stale: 0,
    skippedMerging: opts.merge ? null : (opts.noMergeReason ?? "no chat provider is configured"),
    notShared: [],
    merges: [],
    errors: [],
    skipped: [],
    proposals: [],
    factCandidates: 0,
    factPairs: 0,
    factMerges: [],
    factProposals: [],
  };
  let consecutiveFailures = 0;
  for (const spaceId of opts.spaces ?? listSpaces(db)) {
    const { memories, vectors } = loadCandidates(db, spaceId, opts.maxPerSpace ?? 200);
    result.spaces++;
    result.candidates += memories.length;
    // Duplicate facts first: they need no provider, so they are merged even when memories cannot be.
    const facts = findDuplicateFacts(db, spaceId);
    result.factCandidates += facts.compared;
    result.factPairs += facts.duplicates.length;
    for (const d of facts.duplicates) {
      if (opts.preview) result.factProposals.push(d);
      else {
        const merged = mergeDuplicateFact(db, d);
        if (merged) result.factMerges.push(merged);
        else result.stale++;
      }
    }
    // Only memories of the same kind are merged (a chat exchange is not folded into an import).
    const pairs = disjointPairs(
      similarPairs(vectors, opts.threshold).filter((p) => memories[p.i]!.kind === memories[p.j]!.kind),
    );
    result.pairs += pairs.length;
    await yieldToLoop();
    if (!opts.merge || result.skippedMerging) continue;
    const refused = pairs.length ? (opts.mayMergeIn?.(spaceId) ?? null) : null;
    if (refused) {
      result.notShared.push({ space: spaceId, reason: refused });
      continue;
    }
    for (const p of pairs) {
      opts.signal?.throwIfAborted();
      opts.onPair?.();
      if (reindexTarget(db)) {
        result.skippedMerging = "a re-index for a new embedding model started; merging resumes after it";
        break;
      }
      const a = memories[p.i]!;
      const b = memories[p.j]!;
      try {
        const content = (await opts.merge(a.content, b.content, opts.signal)).trim();
        consecutiveFailures = 0; // the provider answered; whether the answer is usable is checked next
        const bad = textProblem(content, a.content, b.content);
        if (bad) {
          result.skipped.push({ from: [a.id, b.id], reason: bad, originals: [a.content, b.content] });
          continue;
        }
        const [vector] = await embedder.embedDocuments([content]);
        const far = similarityProblem(vector!, vectors[p.i]!, vectors[p.j]!, opts.threshold);
        if (far) {
          result.skipped.push({ from: [a.id, b.id], reason: far, originals: [a.content, b.content] });
          continue;
        }
        if (opts.preview) {
          result.proposals.push({
            from: [a.id, b.id],
            hashes: [a.contentHash, b.contentHash],
            originals: [a.content, b.content],
            kind: a.kind,
            similarity: +p.similarity.toFixed(4),
            content,
          });
          continue;
        }
        const id = writeMerge(db, model, a, b, content, vector!, now().toISOString(), opts.beforeSoftDelete);
        if (id === null) {
          result.stale++;
        } else {
          result.counts.merged++;
          result.counts.softDeleted += 2;
          result.merges.push({ id, from: [a.id, b.id], similarity: +p.similarity.toFixed(4), content });
        }
      } catch (e) {
        if (opts.signal?.aborted) throw e;
        result.failed++;
        result.errors.push({ from: [a.id, b.id], error: e instanceof Error ? e.message : String(e) });
        if (++consecutiveFailures >= maxFailures) {
          result.skippedMerging = `stopped after ${maxFailures} failed merges in a row: ${result.errors.at(-1)!.error}`;
          break;
        }
      }
      await yieldToLoop();
    }
  }
  return result;
}

/**
 * Write one merge: the merged memory (kind `consolidated`, the higher importance, the earlier timestamp)
 * and the originals soft-deleted, in ONE transaction — only if both are still live, unpinned and
 * unchanged (a request may have edited or deleted one meanwhile). Returns the merged id, or null.
 */
export function writeMerge(
  db: Database.Database,
  model: string,
  a: Pick<Candidate, "id" | "spaceId" | "contentHash" | "importance" | "timestamp">,
  b: Pick<Candidate, "id" | "contentHash" | "importance" | "timestamp">,
  content: string,
  vector: Float32Array,
  at: string,
  beforeSoftDelete?: (mergedId: string) => void,
): string | null {
  return writeTransaction(db, () => {
    const live = db
      .prepare(
        "SELECT id FROM memories WHERE id IN (?, ?) AND soft_deleted = 0 AND pinned = 0 AND kind != 'document' AND content_hash IN (?, ?)",
      )
      .all(a.id, b.id, a.contentHash, b.contentHash) as { id: string }[];
    if (live.length !== 2) return null;
    const [mergedId] = insertMemories(
      db,
      [
        {
          spaceId: a.spaceId,
          content,
          kind: "consolidated",
          importance: Math.max(a.importance, b.importance),
          // biome-ignore lint/complexity/useMathMinMax: ISO strings, not numbers (Math.min would give NaN)
          timestamp: a.timestamp <= b.timestamp ? a.timestamp : b.timestamp,
        },
      ],
      [vector],
      model,
    );
    beforeSoftDelete?.(mergedId!);
    // What Memo learned from the originals is now backed by the merged memory (server/memory/facts/cascade.ts).
    addFactSources(db, [a.id, b.id], mergedId!);
    softDeleteMemories(db, [a.id, b.id], at);
    return mergedId!;
  });
}
