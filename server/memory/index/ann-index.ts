import type Database from "better-sqlite3";
import { onVectorWrite, vecLogSeq, type VectorWrite } from "../store";
import { getMeta } from "../../core/meta";
import { dropGraphs, dropSavedGraphs, loadGraphs, saveGraphs } from "./ann-files";
import { SpaceGraphs } from "./space-graphs";
import { type AnnSearchHit, type AnnState, BACKOFF_MS, POLL_MS, SLICE, SYNC_REPLAY } from "./ann-params";

/**
 * In-memory HNSW index (usearch, f16) over memory_vec, one graph per space. vec0 stays the durable
 * store and the source of truth; this index only serves queries. It is
 * - built from vec0 at start-up in small slices that yield to the event loop (serving never blocks), or
 *   loaded from files saved earlier and then caught up on what was written since;
 * - updated after every committed write of this process through store.onVectorWrite;
 * - caught up incrementally on writes by other processes (the MCP stdio server, a second app): triggers
 *   log every memory whose vector may have changed in `vec_log` (drizzle/0008_vector_write_log.sql),
 *   and the index re-reads exactly those rows. A few hundred rows are replayed before the search that
 *   noticed them; more are replayed in the background while vec0 serves. Only a log that no longer
 *   reaches back far enough, or a re-index swap, needs a full rebuild;
 * - self-healing: an update that fails (or a build that fails) schedules a background rebuild; vec0
 *   serves meanwhile, then the index again.
 * The search widens with the space's size (searchWidth). An f32 rescoring pass was measured and dropped:
 * no recall@10 change, ~1.5 ms more per query (docs/retrieval.md#hybrid-search). Saved form: ann-files.ts;
 * the graphs themselves (add, remove, search per space): space-graphs.ts. This class keeps them in step.
 */

export class AnnIndex {
  private graphs: SpaceGraphs;
  /** The store generation and the last vec_log entry the index reflects. */
  private generation = 0;
  private appliedSeq = 0;
  state: AnnState = "empty";
  lastBuildMs = 0;
  /** The last build loaded saved graphs instead of reading vec0. */
  loadedFromFile = false;
  error: string | null = null;
  /** What the index did, for health and the benchmark. */
  readonly stats = { builds: 0, heals: 0, catchUps: 0, replayedRows: 0 };
  private building: Promise<void> | null = null;
  private catching: Promise<void> | null = null;
  private rebuild: { timer: NodeJS.Timeout; promise: Promise<void> } | null = null;
  private failures = 0;
  /** After loading a saved index, check its sizes against the store once it has caught up. */
  private verifyCounts = false;
  /** An update failed while a build was running: that build cannot be trusted either. */
  private rebuildRequested: string | null = null;
  /** Statements of the catch-up, prepared once per build (a re-index swap recreates memory_vec, then rebuilds). */
  private resyncStmts: { live: Database.Statement; vec: Database.Statement } | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;
  private unsubscribe: () => void;

  constructor(
    private readonly db: Database.Database,
    readonly dim: number,
    private readonly dir: string | null,
  ) {
    this.graphs = new SpaceGraphs(dim);
    this.unsubscribe = onVectorWrite(db, (w) => this.apply(w));
  }

  private storeGeneration(): number {
    return Number(getMeta(this.db, "vec_generation") ?? 0);
  }

  /** Ready and in step with the store; catches up on other processes' writes first when it can. */
  isFresh(): boolean {
    if (this.state !== "ready") return false;
    if (this.storeGeneration() === this.generation) {
      if (this.verifyCounts) this.checkCounts();
      return this.state === "ready";
    }
    this.catchUp();
    return this.state === "ready";
  }

  size(): number {
    return this.graphs.size();
  }

  /** Approximate memory held by the graphs and f16 vectors, in MB. */
  memoryMB(): number {
    return this.graphs.memoryMB();
  }

  /** Called by the store after each committed write of this connection. */
  private apply(w: VectorWrite): void {
    if (this.state === "failed" || this.state === "stale" || this.state === "empty") return; // a rebuild will read it
    try {
      for (const r of w.removed) this.graphs.remove(r.spaceId, r.rid);
      for (const a of w.added) this.graphs.add(a.spaceId, a.rid, a.vector);
    } catch (e) {
      this.scheduleRebuild(`index update failed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    // The write follows on from what the index reflects only when no other process wrote in between
    // (generations are global and consecutive); otherwise catch-up will replay the gap, this write included.
    if (w.generation === this.generation + 1 && this.state !== "catching-up") {
      this.generation = w.generation;
      if (w.seq !== undefined) this.appliedSeq = w.seq;
    }
  }

  /** Search one space; null when the index cannot answer (the caller falls back to vec0). `width`: the bench's sweep. */
  search(spaceId: string, query: Float32Array, k: number, width?: number): AnnSearchHit[] | null {
    return this.searchMany(spaceId, [query], k, width)?.[0] ?? null;
  }

  /** Search one space for several queries in one call (space-graphs.ts searchMany); null as `search`. */
  searchMany(spaceId: string, queries: Float32Array[], k: number, width?: number): AnnSearchHit[][] | null {
    if (!this.isFresh()) return null;
    return this.graphs.searchMany(spaceId, queries, k, width);
  }

  /**
   * Load saved graphs of this store (same dimension and parameters, not newer than the store, with the
   * log position they reflect when older); true when loaded. What was written since is caught up.
   */
  private tryLoad(): boolean {
    if (!this.dir) return false;
    const loaded = loadGraphs(this.dir, { dim: this.dim, storeGeneration: this.storeGeneration() }, () =>
      this.graphs.newIndex(),
    );
    if (!loaded) return false;
    // Graphs of spaces the store no longer has (a person removed just before a crash): gone from disk now.
    const exists = this.db.prepare("SELECT 1 FROM spaces WHERE id = ?");
    const gone = [...loaded.spaces.keys()].filter((id) => exists.get(id) === undefined);
    if (gone.length) {
      for (const id of gone) loaded.spaces.delete(id);
      loaded.manifest = dropGraphs(this.dir, loaded.manifest, gone);
    }
    this.graphs.spaces = loaded.spaces;
    this.generation = loaded.manifest.generation;
    this.appliedSeq = loaded.manifest.seq ?? vecLogSeq(this.db);
    this.verifyCounts = true;
    return true;
  }

  /**
   * Spaces that are gone from the store (a person removed): their graphs leave memory, and their saved files the
   * disk, now — not at the next save (issue 43: nothing of a removed person stays on disk).
   */
  dropSpaces(spaceIds: string[]): void {
    for (const id of spaceIds) this.graphs.spaces.delete(id);
    if (this.dir) dropSavedGraphs(this.dir, spaceIds);
  }

  /** Save the graphs with the generation and log position they reflect. */
  save(): void {
    if (!this.dir || this.state !== "ready") return;
    saveGraphs(this.dir, this.graphs.spaces, { generation: this.generation, seq: this.appliedSeq, dim: this.dim });
  }

  /**
   * Build (or load) the index. Reads vec0 in slices by rid and yields between slices, so requests keep
   * being served (from vec0) meanwhile. Writes of this process during the build reach the index through
   * the write hook; those of other processes are in the log after the position read at the start, and
   * are caught up once the build is done.
   */
  build(opts: { fromStore?: boolean } = {}): Promise<void> {
    if (this.building) return this.building;
    const t0 = performance.now();
    this.state = "building";
    this.error = null;
    this.rebuildRequested = null;
    this.resyncStmts = null;
    this.building = (async () => {
      // Yield first: a load from file has no await of its own, and `building` must be set before the
      // body (and its finally) runs.
      await Promise.resolve();
      let failure: string | null = null;
      try {
        // A heal never reloads the saved graphs: they may be what could not be caught up.
        this.loadedFromFile = !opts.fromStore && this.tryLoad();
        if (!this.loadedFromFile) await this.buildFromStore();
      } catch (e) {
        failure = e instanceof Error ? e.message : String(e);
      } finally {
        this.building = null;
      }
      if (this.closed) return;
      failure ??= this.rebuildRequested;
      if (failure !== null) {
        this.state = "failed";
        this.error = failure;
        this.failures++;
        this.scheduleRebuild(failure);
        return;
      }
      this.state = "ready";
      this.failures = 0;
      this.stats.builds++;
      this.lastBuildMs = performance.now() - t0;
      if (!this.loadedFromFile) this.save();
      this.startPolling();
    })();
    return this.building;
  }

  private async buildFromStore(): Promise<void> {
    const snapshot = this.db.transaction(() => ({ generation: this.storeGeneration(), seq: vecLogSeq(this.db) }))();
    this.generation = snapshot.generation;
    this.appliedSeq = snapshot.seq;
    this.graphs.spaces = new Map();
    const page = this.db.prepare("SELECT rid FROM memories WHERE rid > ? AND soft_deleted = 0 ORDER BY rid LIMIT ?");
    const vec = this.db.prepare("SELECT space_id AS spaceId, embedding FROM memory_vec WHERE rowid = ?");
    let after = 0;
    for (;;) {
      if (this.closed) return;
      const rids = page.all(after, SLICE) as { rid: number }[];
      if (rids.length === 0) break;
      // Group the slice by space and add each group as one matrix (one native call per group).
      const groups = new Map<string, { keys: bigint[]; vectors: Float32Array[] }>();
      for (const { rid } of rids) {
        const row = vec.get(BigInt(rid)) as { spaceId: string; embedding: Buffer } | undefined;
        if (!row) continue;
        const key = BigInt(rid);
        if (this.graphs.space(row.spaceId).index.contains(key)) continue; // added by the write hook during the build
        let g = groups.get(row.spaceId);
        if (!g) groups.set(row.spaceId, (g = { keys: [], vectors: [] }));
        g.keys.push(key);
        g.vectors.push(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, this.dim));
      }
      for (const [spaceId, g] of groups) this.graphs.addMany(spaceId, g.keys, g.vectors);
      after = rids[rids.length - 1]!.rid;
      await new Promise((r) => setImmediate(r));
    }
  }

  /** After an update error or a failed build: stop serving, rebuild in the background (with backoff). */
  private scheduleRebuild(reason: string): void {
    if (this.building) {
      this.rebuildRequested ??= reason;
      return;
    }
    if (this.closed || this.rebuild) return;
    // Nothing left to heal: the store was closed under the index.
    if (!this.db.open) {
      this.close();
      return;
    }
    if (this.state !== "failed") this.state = "stale";
    this.error = reason;
    this.stats.heals++;
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    const timer = setTimeout(() => {
      this.rebuild = null;
      void this.build({ fromStore: true }).then(resolve);
    }, delay);
    timer.unref();
    this.rebuild = { timer, promise };
  }

  /**
   * Replay the log entries written since the index's position: each logged rid is re-read from the
   * store (live with a vector: (re)added to its space; otherwise removed). Idempotent, so replaying this
   * process's own writes again is harmless. Falls back to a rebuild when the log cannot explain the
   * store's generation (pruned past the index's position, or a table swap).
   */
  private catchUp(): void {
    if (this.state !== "ready" || this.catching) return;
    const snap = this.db.transaction(() => ({
      generation: this.storeGeneration(),
      rows: this.db.prepare("SELECT seq, rid FROM vec_log WHERE seq > ? ORDER BY seq").all(this.appliedSeq) as {
        seq: number;
        rid: number | null;
      }[],
    }))();
    // Log sequence numbers are consecutive (AUTOINCREMENT, pruned from the oldest end only): a first
    // entry past the next expected one means entries the index never saw were pruned.
    const gap = snap.rows.length > 0 && snap.rows[0]!.seq !== this.appliedSeq + 1;
    if (gap || snap.rows.length === 0 || snap.rows.some((r) => r.rid === null)) {
      this.scheduleRebuild(
        snap.rows.length === 0
          ? "the store changed without a log entry"
          : gap
            ? "the write log no longer reaches back to this index"
            : "the vector table was replaced",
      );
      return;
    }
    const rids = [...new Set(snap.rows.map((r) => r.rid!))];
    const finish = () => {
      this.generation = snap.generation;
      this.appliedSeq = snap.rows[snap.rows.length - 1]!.seq;
      this.stats.catchUps++;
      this.stats.replayedRows += rids.length;
      this.state = "ready";
    };
    try {
      if (rids.length <= SYNC_REPLAY) {
        for (const rid of rids) this.resync(rid);
        finish();
        return;
      }
    } catch (e) {
      this.scheduleRebuild(`catch-up failed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    this.state = "catching-up";
    this.catching = (async () => {
      try {
        for (let i = 0; i < rids.length; i += SYNC_REPLAY) {
          if (this.closed) return;
          for (const rid of rids.slice(i, i + SYNC_REPLAY)) this.resync(rid);
          await new Promise((r) => setImmediate(r));
        }
        finish();
      } catch (e) {
        this.scheduleRebuild(`catch-up failed: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.catching = null;
      }
    })();
  }

  /** Make the index agree with the store about one rid. */
  private resync(rid: number): void {
    const key = BigInt(rid);
    this.resyncStmts ??= {
      live: this.db.prepare("SELECT 1 FROM memories WHERE rid = ? AND soft_deleted = 0"),
      vec: this.db.prepare("SELECT space_id AS spaceId, embedding FROM memory_vec WHERE rowid = ?"),
    };
    const live = this.resyncStmts.live.get(rid) !== undefined;
    const row = live
      ? (this.resyncStmts.vec.get(key) as { spaceId: string; embedding: Buffer } | undefined)
      : undefined;
    this.graphs.removeOutside(rid, row?.spaceId ?? null);
    if (row)
      this.graphs.add(
        row.spaceId,
        rid,
        new Float32Array(
          row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength),
        ),
      );
  }

  /**
   * A loaded index, once in step with the store, must hold as many vectors per space as the store has
   * live memories (a saved index of another store, or of an older copy restored since, would not): else
   * rebuild. Counted in one read snapshot with the generation, so concurrent writers cannot skew it.
   */
  private checkCounts(): void {
    const snap = this.db.transaction(() => ({
      generation: this.storeGeneration(),
      rows: this.db
        .prepare("SELECT space_id AS spaceId, count(*) AS n FROM memories WHERE soft_deleted = 0 GROUP BY space_id")
        .all() as { spaceId: string; n: number }[],
    }))();
    if (snap.generation !== this.generation) return; // moved on meanwhile: check once caught up
    this.verifyCounts = false;
    const want = new Map(snap.rows.map((r) => [r.spaceId, r.n]));
    const mismatch = [...new Set([...want.keys(), ...this.graphs.spaces.keys()])].some(
      (sp) => (want.get(sp) ?? 0) !== (this.graphs.spaces.get(sp)?.size ?? 0),
    );
    if (mismatch) this.scheduleRebuild("the saved index does not match the store");
  }

  private startPolling(): void {
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => {
      if (!this.db.open) return this.close(); // the connection was closed under the index
      try {
        if (this.state === "ready" && this.storeGeneration() !== this.generation) this.catchUp();
      } catch (e) {
        this.scheduleRebuild(`catch-up failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }, POLL_MS);
    this.poll.unref();
  }

  /** Resolves when no build, heal or background catch-up is pending (for tests and the benchmark). */
  async settled(): Promise<void> {
    for (;;) {
      const p = this.building ?? this.rebuild?.promise ?? this.catching;
      if (!p) return;
      await p;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    if (this.poll) clearInterval(this.poll);
    if (this.rebuild) clearTimeout(this.rebuild.timer);
    try {
      if (this.db.open) this.save();
    } catch {
      /* best effort: a stale or missing file only means a rebuild */
    }
  }
}
