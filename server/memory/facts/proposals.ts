/**
 * Facts waiting for the person (issues 48 and 54, drizzle/0023_fact_proposals.sql, 0027). Untrusted text
 * proposes; the person decides: every fact learned from text that is not the space's person's own words (a
 * document, an import, another person's memory, a back-fill of them), a back-fill's replacements, and from
 * any path a fact that would bring a replaced value back beside its replacement (`revives`; trust.ts) is
 * kept here, on What Memo knows, until the space's person accepts it (then it is written, replacing what it
 * names) or dismisses it. Until then it is no fact: not in [What I know], the profile, the facts leg or the
 * API's current facts. Proposals are capped per call and per run (a passage that proposes more is not worth
 * reading more of); what is over the cap is dropped and said in the attempt's record.
 *
 * Everything is person-checked: a space's proposals are its person's alone (mineScan), as a shared space's
 * trash is; another person's proposal id reads as missing.
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { mineScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import type { JobOrigin } from "./queue";

/** Jobs whose text is a stored passage rather than the person's own exchange. */
export const STORED_ORIGINS: readonly JobOrigin[] = ["document", "import", "backfill"];
export const isStoredOrigin = (o: JobOrigin | undefined): boolean => o !== undefined && STORED_ORIGINS.includes(o);

/** Replacements one call may propose, and the most a run may have waiting. */
export const MAX_PROPOSALS_PER_CALL = 8;
export const MAX_PROPOSALS_PER_RUN = 200;

export interface NewProposal {
  spaceId: string;
  runId: string | null;
  jobId: number;
  text: string;
  validFrom: string;
  sources: string[];
  replaces: string[];
  /** The replaced fact it would make current again beside its successor (trust.ts); null: none. */
  revives?: string | null;
}

export interface FactProposal {
  id: string;
  spaceId: string;
  runId: string | null;
  text: string;
  validFrom: string;
  sources: string[];
  /** The facts it would replace, with their text as they are now (gone ones are left out). */
  replaces: { id: string; text: string }[];
  /** The replaced fact it would bring back beside its successor, with both texts as they are now; null: none. */
  revives: { id: string; text: string; successor: string | null } | null;
  status: "pending" | "accepted" | "dismissed";
  factId: string | null;
  createdAt: string;
  /** Where its text came from: the learning job's origin ("chat", "api", "document", "import", "backfill"). */
  origin: string | null;
  /** Who wrote its source memories, when not the space's person (their name); null: the person. */
  writer: string | null;
  /** What the run learned from ("document", "import", "backfill"), its target (a document or import id), a document's name. */
  kind: string | null;
  target: string | null;
  targetName: string | null;
}

/** How many more a run may propose now (its pending ones count against MAX_PROPOSALS_PER_RUN). */
export function proposalRoom(db: Database.Database, runId: string | null): number {
  if (!runId) return MAX_PROPOSALS_PER_CALL;
  const n = (
    stmt(db, "SELECT count(*) AS n FROM fact_proposals WHERE run_id = ? AND status = 'pending'").get(runId) as {
      n: number;
    }
  ).n;
  return Math.max(0, Math.min(MAX_PROPOSALS_PER_CALL, MAX_PROPOSALS_PER_RUN - n));
}

/** Keep a proposal (inside the caller's transaction). */
export function addProposal(db: Database.Database, p: NewProposal): string {
  const id = crypto.randomUUID();
  stmt(
    db,
    `INSERT INTO fact_proposals (id, space_id, run_id, job_id, text, valid_from, sources, replaces, revives)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    p.spaceId,
    p.runId,
    p.jobId,
    p.text,
    p.validFrom,
    JSON.stringify(p.sources),
    JSON.stringify(p.replaces),
    p.revives ?? null,
  );
  return id;
}

const COLS = `p.id, p.space_id AS spaceId, p.run_id AS runId, p.text, p.valid_from AS validFrom, p.sources,
  p.replaces, p.revives, p.status, p.fact_id AS factId, p.created_at AS createdAt, r.kind, r.target,
  (SELECT d.name FROM documents d WHERE r.kind = 'document' AND d.id = r.target) AS targetName,
  (SELECT j.origin FROM fact_jobs j WHERE j.id = p.job_id) AS origin,
  (SELECT pe.name FROM json_each(p.sources) e JOIN memories m ON m.id = e.value JOIN spaces s ON s.id = m.space_id
     JOIN people pe ON pe.id = m.written_by WHERE m.written_by <> s.person_id LIMIT 1) AS writer`;

type Row = Omit<FactProposal, "sources" | "replaces" | "revives"> & {
  sources: string;
  replaces: string;
  revives: string | null;
};

function toProposal(db: Database.Database, r: Row): FactProposal {
  const text = stmt(db, "SELECT text FROM facts WHERE id = ? AND space_id = ? AND deleted_at IS NULL");
  const revived = r.revives
    ? (stmt(
        db,
        "SELECT f.text, s.text AS successor FROM facts f LEFT JOIN facts s ON s.id = f.superseded_by WHERE f.id = ? AND f.space_id = ?",
      ).get(r.revives, r.spaceId) as { text: string; successor: string | null } | undefined)
    : undefined;
  return {
    ...r,
    revives: revived && r.revives ? { id: r.revives, ...revived } : null,
    sources: JSON.parse(r.sources) as string[],
    replaces: (JSON.parse(r.replaces) as string[]).flatMap((id) => {
      const f = text.get(id, r.spaceId) as { text: string } | undefined;
      return f ? [{ id, text: f.text }] : [];
    }),
  };
}

/** The acting person's pending proposals, oldest first: of one space of theirs, or of all of them. */
export function listProposals(db: Database.Database, o: { spaceId?: string; limit?: number } = {}): FactProposal[] {
  return (
    stmt(
      db,
      `SELECT ${COLS} FROM fact_proposals p LEFT JOIN fact_learn_runs r ON r.id = p.run_id
        WHERE p.status = 'pending' AND ${mineScan("p.space_id")} AND (? IS NULL OR p.space_id = ?)
        ORDER BY p.created_at, p.rowid LIMIT ?`,
    ).all(o.spaceId ?? null, o.spaceId ?? null, Math.max(1, Math.min(o.limit ?? 200, 1000))) as Row[]
  ).map((r) => toProposal(db, r));
}

/** A proposal of the acting person's own spaces (another's reads as missing). */
export function getProposal(db: Database.Database, id: string): FactProposal | undefined {
  const r = stmt(
    db,
    `SELECT ${COLS} FROM fact_proposals p LEFT JOIN fact_learn_runs r ON r.id = p.run_id
      WHERE p.id = ? AND ${mineScan("p.space_id")}`,
  ).get(id) as Row | undefined;
  return r ? toProposal(db, r) : undefined;
}

/** Mark a pending proposal decided; false when it is not pending (any more). */
export function decideProposal(
  db: Database.Database,
  id: string,
  status: "accepted" | "dismissed",
  factId: string | null = null,
): boolean {
  return (
    stmt(
      db,
      `UPDATE fact_proposals SET status = ?, fact_id = ?, decided_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')
        WHERE id = ? AND status = 'pending' AND ${mineScan("space_id")}`,
    ).run(status, factId, id).changes > 0
  );
}

/** Dismiss a run's pending proposals (undoing the run). */
export function dismissRunProposals(db: Database.Database, runId: string): number {
  return stmt(
    db,
    `UPDATE fact_proposals SET status = 'dismissed', decided_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')
      WHERE run_id = ? AND status = 'pending'`,
  ).run(runId).changes;
}
