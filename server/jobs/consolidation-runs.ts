/**
 * Consolidation you can check and undo. "Run consolidation now" in the UI first runs a preview (the
 * provider is asked, every merge checked, nothing written: a `consolidate` run whose result has
 * `preview: true` and the proposals); applying it writes the chosen proposals whose originals are still
 * unchanged, as a run of its own. The scheduled run applies directly. Any run that merged something can
 * be undone for UNDO_DAYS: merged memories purged, originals restored, merged duplicate facts current again
 * (server/memory/facts/duplicates.ts), in one transaction, recorded on the run (`result.undone`).
 */
import type { JobCounts } from "../memory/lifecycle/decay";
import { type MergeProposal, writeMerge } from "../memory/lifecycle/consolidate";
import { type FactDuplicate, type FactMergeRecord, mergeDuplicateFact, unmergeFacts } from "../memory/facts/duplicates";
import { similarityProblem, textProblem } from "../memory/lifecycle/merge-guard";
import { purgeMemories, restoreMemories, writeTransaction } from "../memory/store";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { runConsolidateJob, type JobRunOptions } from "./jobs";
import { getRun, runExclusive, type RunRecord } from "../core/job-runner";
import { consolidationThreshold, loadJobSettings } from "./settings";

export const UNDO_DAYS = 7;

/** Ask the provider and check the merges, writing nothing. */
export function previewConsolidation(ctx: MemoContext, opts: JobRunOptions = {}): Promise<RunRecord> {
  return runConsolidateJob(ctx, { ...opts, preview: true });
}

const readVector = (ctx: MemoContext, id: string) => {
  const r = ctx.db
    .prepare("SELECT v.embedding FROM memories m JOIN memory_vec v ON v.rowid = m.rid WHERE m.id = ?")
    .get(id) as { embedding: Buffer } | undefined;
  return r
    ? new Float32Array(
        r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength),
      )
    : undefined;
};

/**
 * Write the proposals of a preview run (all, or those at the `pick` indexes; its duplicate facts: all, or
 * those at the `pickFacts` indexes), each checked again against the store as it is now. Recorded as a
 * consolidate run (undoable like any other).
 */
export async function applyConsolidationPreview(
  ctx: MemoContext,
  previewRunId: number,
  pick?: number[],
  pickFacts?: number[],
): Promise<RunRecord> {
  const preview = getRun(ctx.db, previewRunId);
  if (preview?.job !== "consolidate" || preview.result?.preview !== true)
    throw new ServiceError(404, `run ${previewRunId} is not a consolidation preview`);
  if (preview.result?.appliedBy)
    throw new ServiceError(
      409,
      `preview ${previewRunId} was already applied (run ${String(preview.result.appliedBy)})`,
    );
  const all = (preview.result.proposals ?? []) as MergeProposal[];
  const chosen = pick ? pick.map((i) => all[i]).filter((p): p is MergeProposal => p !== undefined) : all;
  const allFacts = (preview.result.factProposals ?? []) as FactDuplicate[];
  const chosenFacts = pickFacts
    ? pickFacts.map((i) => allFacts[i]).filter((d): d is FactDuplicate => d !== undefined)
    : allFacts;
  const run = await runExclusive(
    ctx.db,
    "consolidate",
    async () => {
      const { model } = await activeModel(ctx);
      const threshold = consolidationThreshold(loadJobSettings(ctx.db), model);
      const counts: JobCounts = { promoted: 0, decayed: 0, softDeleted: 0, purged: 0, merged: 0 };
      const merges: { id: string; from: [string, string]; similarity: number; content: string }[] = [];
      const skipped: { from: [string, string]; reason: string }[] = [];
      const factMerges: FactMergeRecord[] = [];
      for (const d of chosenFacts) {
        const merged = mergeDuplicateFact(ctx.db, d);
        if (merged) factMerges.push(merged);
        else skipped.push({ from: [d.keep.id, d.merge.id], reason: "a fact was changed or deleted since the preview" });
      }
      for (const p of chosen) {
        const rows = p.from.map((id) =>
          ctx.db
            .prepare(
              "SELECT id, space_id AS spaceId, content_hash AS contentHash, importance, timestamp, content FROM memories WHERE id = ? AND soft_deleted = 0",
            )
            .get(id),
        ) as (
          | { id: string; spaceId: string; contentHash: string; importance: number; timestamp: string; content: string }
          | undefined
        )[];
        const [a, b] = rows;
        const va = readVector(ctx, p.from[0]);
        const vb = readVector(ctx, p.from[1]);
        if (!a || !b || !va || !vb || a.contentHash !== p.hashes[0] || b.contentHash !== p.hashes[1]) {
          skipped.push({ from: p.from, reason: "an original was changed or deleted since the preview" });
          continue;
        }
        const bad = textProblem(p.content, a.content, b.content);
        const [vector] = bad ? [undefined] : await ctx.embedder.embedDocuments([p.content]);
        const reason = bad ?? similarityProblem(vector!, va, vb, threshold);
        if (reason) {
          skipped.push({ from: p.from, reason });
          continue;
        }
        const id = writeMerge(ctx.db, model, a, b, p.content, vector!, new Date().toISOString());
        if (!id) {
          skipped.push({ from: p.from, reason: "an original was changed or deleted meanwhile" });
          continue;
        }
        counts.merged++;
        counts.softDeleted += 2;
        merges.push({ id, from: p.from, similarity: p.similarity, content: p.content });
      }
      return {
        status: "ok",
        result: {
          ...counts,
          counts,
          model,
          threshold,
          fromPreview: previewRunId,
          merges,
          skipped,
          errors: [],
          pairs: chosen.length,
          factMerges,
          factPairs: chosenFacts.length,
        },
      };
    },
    { trigger: "manual", leaseMs: 5 * 60_000 },
  );
  if (run.status !== "skipped") {
    ctx.db
      .prepare("UPDATE job_runs SET result = json_set(result, '$.appliedBy', ?) WHERE id = ?")
      .run(run.id, previewRunId);
  }
  return run;
}

export interface UndoResult {
  run: number;
  removed: number;
  restored: number;
  /** Originals that could not be restored (purged since). */
  missing: string[];
  /** Merged duplicate facts made current again. */
  factsRestored: number;
  /** Merged duplicate facts that were forgotten or purged since (left as they are). */
  factsMissing: string[];
  undoneAt: string;
}

/** Whether a run can be undone now, and if not why (null: it can). */
export function undoProblem(run: RunRecord | undefined, now = Date.now()): string | null {
  if (!run) return "no such run";
  if (run.job !== "consolidate") return `run ${run.id} is a ${run.job} run; only consolidation runs can be undone`;
  if (run.result?.preview === true) return `run ${run.id} is a preview; it wrote nothing`;
  if (run.result?.undone) return `run ${run.id} was already undone`;
  const merges = (run.result?.merges ?? []) as unknown[];
  const factMerges = (run.result?.factMerges ?? []) as unknown[];
  if (merges.length === 0 && factMerges.length === 0) return `run ${run.id} merged nothing`;
  const at = Date.parse(run.finishedAt ?? run.startedAt);
  if (now - at > UNDO_DAYS * 86_400_000)
    return `run ${run.id} is older than ${UNDO_DAYS} days; it can no longer be undone`;
  return null;
}

/**
 * Undo a consolidation run: its duplicate facts unmerged (each current again, the kept fact without what the
 * merge gave it), each merged memory purged from every table, both originals restored, and the run marked
 * undone — ONE transaction (a crash leaves the run either fully undone or untouched).
 */
export function undoConsolidationRun(ctx: Pick<MemoContext, "db">, runId: number, now = new Date()): UndoResult {
  const { db } = ctx;
  return writeTransaction(db, () => {
    const run = getRun(db, runId);
    const problem = undoProblem(run, now.getTime());
    if (problem) throw new ServiceError(run ? 409 : 404, problem);
    const merges = (run!.result!.merges ?? []) as { id: string; from: [string, string] }[];
    // Facts first: the kept facts lose exactly the sources the merges added, before any memory goes.
    const facts = unmergeFacts(db, (run!.result!.factMerges ?? []) as FactMergeRecord[], now.toISOString());
    const originals = merges.flatMap((m) => m.from);
    const removed = purgeMemories(
      db,
      merges.map((m) => m.id),
    );
    const restored = restoreMemories(db, originals);
    const exists = db.prepare("SELECT 1 FROM memories WHERE id = ?");
    const missing = originals.filter((id) => !exists.get(id));
    const undoneAt = now.toISOString();
    const undone = {
      at: undoneAt,
      removed,
      restored: restored.length,
      missing,
      factsRestored: facts.restored,
      factsMissing: facts.missing,
    };
    db.prepare("UPDATE job_runs SET result = json_set(result, '$.undone', json(?)) WHERE id = ?").run(
      JSON.stringify(undone),
      runId,
    );
    return {
      run: runId,
      removed,
      restored: restored.length,
      missing,
      factsRestored: facts.restored,
      factsMissing: facts.missing,
      undoneAt,
    };
  });
}
