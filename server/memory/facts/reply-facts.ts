/**
 * What one learning job taught (issue 47: the Facts line under a reply): each fact it wrote, what that fact
 * replaced, and undoing that learning — the fact is forgotten (alone, not its history) and the facts it
 * replaced are current again, as they were before it. One transaction; the caller checks who may.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { writeTransaction } from "../store/rows";
import { unindexFact } from "./indexing";
import { reopenReplacedBy } from "./write";

export interface TaughtFact {
  id: string;
  text: string;
  validFrom: string;
  /** Still current (not replaced since, not undone). */
  current: boolean;
  /** The facts it replaced when it was learned. */
  replaced: { id: string; text: string; validFrom: string }[];
}

/**
 * The live facts a job wrote: learned facts whose sources are the job's memories, recorded after the job
 * was queued (one job per exchange, so its memories are taught by it alone).
 */
export function factsTaughtBy(db: Database.Database, jobId: number): TaughtFact[] {
  const rows = stmt(
    db,
    `SELECT DISTINCT f.id, f.text, f.valid_from AS validFrom, (f.superseded_by IS NULL AND f.valid_to IS NULL) AS current
       FROM fact_jobs j JOIN fact_job_sources s ON s.job_id = j.id
       JOIN fact_sources fs ON fs.memory_id = s.memory_id
       JOIN facts f ON f.id = fs.fact_id
      WHERE j.id = ? AND f.origin = 'learned' AND f.deleted_at IS NULL AND f.space_id = j.space_id
        AND f.recorded_at >= j.created_at
      ORDER BY f.rid`,
  ).all(jobId) as (Omit<TaughtFact, "replaced" | "current"> & { current: number })[];
  const replacedBy = stmt(
    db,
    "SELECT id, text, valid_from AS validFrom FROM facts WHERE superseded_by = ? AND deleted_at IS NULL ORDER BY rid",
  );
  return rows.map((r) => ({
    ...r,
    current: r.current === 1,
    replaced: replacedBy.all(r.id) as TaughtFact["replaced"],
  }));
}

/** What happened since to the facts a job wrote (the Facts line's words, issue 54). */
export interface TakenBack {
  /** Taken back with Undo under the reply. */
  undone: number;
  /** Deleted by the person (on What Memo knows, the API, or with a /forget of the fact). */
  deleted: number;
  /** Forgotten because every memory it came from was forgotten. */
  forgotten: number;
  /** Replaced since by a newer fact. */
  replaced: number;
}

/**
 * What became of the facts a job wrote: undone, deleted, forgotten with their memories, replaced since. The
 * job's count of facts learned stays what it wrote, so the Facts line says what is left of it, in words that
 * say what the person did.
 */
export function factsTakenBackOf(db: Database.Database, jobId: number): TakenBack {
  return stmt(
    db,
    `SELECT count(DISTINCT CASE WHEN f.deleted_reason = 'person' AND f.undone_at IS NOT NULL THEN f.id END) AS undone,
            count(DISTINCT CASE WHEN f.deleted_reason = 'person' AND f.undone_at IS NULL THEN f.id END) AS deleted,
            count(DISTINCT CASE WHEN f.deleted_reason = 'sources' THEN f.id END) AS forgotten,
            count(DISTINCT CASE WHEN f.deleted_at IS NULL AND (f.superseded_by IS NOT NULL OR f.valid_to IS NOT NULL)
                                THEN f.id END) AS replaced
       FROM fact_jobs j JOIN fact_job_sources s ON s.job_id = j.id
       JOIN fact_sources fs ON fs.memory_id = s.memory_id
       JOIN facts f ON f.id = fs.fact_id
      WHERE j.id = ? AND f.origin = 'learned' AND f.space_id = j.space_id AND f.recorded_at >= j.created_at`,
  ).get(jobId) as TakenBack;
}

/** How many of the facts a job wrote the person took back with Undo (factsTakenBackOf's `undone`). */
export function factsUndoneOf(db: Database.Database, jobId: number): number {
  return factsTakenBackOf(db, jobId).undone;
}

export type UndoLearning =
  | { ok: true; undone: string; restored: string[] }
  | { ok: false; reason: "not_found" | "replaced_since" };

/** Undo learning one fact: it is forgotten, and what it replaced is current again. */
export function undoLearnedFact(db: Database.Database, factId: string, at: string): UndoLearning {
  return writeTransaction(db, () => {
    const f = stmt(
      db,
      `SELECT rid, space_id AS spaceId, text, superseded_by AS supersededBy FROM facts
        WHERE id = ? AND deleted_at IS NULL AND origin = 'learned'`,
    ).get(factId) as { rid: number; spaceId: string; text: string; supersededBy: string | null } | undefined;
    if (!f) return { ok: false, reason: "not_found" } as const;
    // A later fact replaced it: undoing it now would leave the history with a hole; undo the later one first.
    if (f.supersededBy) return { ok: false, reason: "replaced_since" } as const;
    const restored = (
      stmt(db, "SELECT id FROM facts WHERE superseded_by = ? AND deleted_at IS NULL").all(factId) as { id: string }[]
    ).map((r) => r.id);
    unindexFact(db, f);
    stmt(
      db,
      "UPDATE facts SET deleted_at = ?, deleted_reason = 'person', deleted_root = id, undone_at = ? WHERE id = ? AND deleted_at IS NULL",
    ).run(at, at, factId);
    reopenReplacedBy(db, factId);
    return { ok: true, undone: factId, restored } as const;
  });
}
