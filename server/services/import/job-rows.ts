/**
 * The import jobs' rows (drizzle/0029_import_jobs.sql): one named query per thing the job machinery asks of
 * them. A job is a received file on disk and where its reading stands; the batch writer moves that cursor in
 * the same transaction as the batch's memories (runner.ts), so a restart resumes exactly there.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import type { ImportedConversationsSummary } from "../../chat/imported-conversations";
import type { ImportFormatId } from "./formats";

export type ImportStatus = "queued" | "running" | "done" | "failed" | "cancelled";

/** An import job as the API and the Manager page show it. */
export interface ImportJob {
  id: string;
  /** Who started it: a person sees only their own import jobs. */
  personId: string;
  kind: ImportFormatId;
  /** The file name (or "request body"). */
  label: string;
  /** Target space; null: each memory's own space (Memo export). */
  space: string | null;
  status: ImportStatus;
  /** What the file held (so far, while it is read). */
  detail: string;
  /** Malformed parts of the file left out, one line each (the rest was imported). */
  problems: string[];
  /** The received file's size, and how far into it the stored memories reach (the progress of a streamed import). */
  bytesTotal: number;
  bytesDone: number;
  /** Memories to embed and write read so far (duplicates excluded), how many are done, written, and skipped as duplicates. */
  total: number;
  done: number;
  imported: number;
  duplicates: number;
  error: string | null;
  /** HTTP status of the failure, for `?wait=true` callers. */
  errorStatus: number | null;
  /** A cancel asked for: keep what was stored, or forget it. */
  cancel: "keep" | "forget" | null;
  /** A conversation export's conversations now in the chat list (null: not a conversation export). */
  conversations: ImportedConversationsSummary | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A job's row with what the runner needs beyond the public view. */
export interface ImportJobRow extends Omit<ImportJob, "conversations"> {
  admin: boolean;
  file: string | null;
  nextItem: number;
  nextGroup: number;
  conversations: number;
  exchanges: number;
  skippedMessages: number;
  undated: number;
  malformed: number;
  /** The detail line a whole-file plan gave (a Memo export); null: made from the counts. */
  savedDetail: string | null;
}

const COLUMNS = `id, person_id AS personId, admin, kind, label, space, file, status, detail AS savedDetail, problems,
  bytes_total AS bytesTotal, bytes_done AS bytesDone, next_item AS nextItem, next_group AS nextGroup,
  conversations, exchanges, skipped_messages AS skippedMessages, undated, malformed, total, done, imported,
  duplicates, error, error_status AS errorStatus, cancel, queued_at AS queuedAt, started_at AS startedAt,
  finished_at AS finishedAt`;

type Raw = Omit<ImportJobRow, "admin" | "problems" | "detail"> & { admin: number; problems: string };

/** The row as read, with its detail line (`detail` formats the counts per kind: import-jobs.ts). */
function fromRaw(r: Raw | undefined): Omit<ImportJobRow, "detail"> | undefined {
  if (!r) return undefined;
  return { ...r, admin: r.admin === 1, problems: JSON.parse(r.problems) as string[] };
}

export type NewImportJob = Pick<ImportJobRow, "id" | "personId" | "admin" | "kind" | "label" | "space" | "file"> & {
  bytesTotal: number;
  queuedAt: string;
};

export function insertImportJob(db: Database.Database, j: NewImportJob): void {
  stmt(
    db,
    `INSERT INTO import_jobs (id, person_id, admin, kind, label, space, file, bytes_total, queued_at)
     VALUES (@id, @personId, @admin, @kind, @label, @space, @file, @bytesTotal, @queuedAt)`,
  ).run({ ...j, admin: j.admin ? 1 : 0 });
}

export function importJobRow(db: Database.Database, id: string): Omit<ImportJobRow, "detail"> | undefined {
  return fromRaw(stmt(db, `SELECT ${COLUMNS} FROM import_jobs WHERE id = ?`).get(id) as Raw | undefined);
}

/** A person's jobs (null: everyone's), newest first. */
export function importJobRows(db: Database.Database, personId: string | null, limit: number) {
  const rows = (
    personId === null
      ? stmt(db, `SELECT ${COLUMNS} FROM import_jobs ORDER BY queued_at DESC, id DESC LIMIT ?`).all(limit)
      : stmt(db, `SELECT ${COLUMNS} FROM import_jobs WHERE person_id = ? ORDER BY queued_at DESC, id DESC LIMIT ?`).all(
          personId,
          limit,
        )
  ) as Raw[];
  return rows.map((r) => fromRaw(r)!);
}

/** Queued and running jobs, oldest first (the runner's work list). */
export function unfinishedImportRows(db: Database.Database): { id: string; personId: string }[] {
  return stmt(
    db,
    "SELECT id, person_id AS personId FROM import_jobs WHERE status IN ('queued', 'running') ORDER BY queued_at, rowid",
  ).all() as { id: string; personId: string }[];
}

export function unfinishedImportCount(db: Database.Database, personId: string): number {
  return (
    stmt(db, "SELECT count(*) AS n FROM import_jobs WHERE person_id = ? AND status IN ('queued', 'running')").get(
      personId,
    ) as { n: number }
  ).n;
}

/** The files named by a job row (a file in the imports folder no row names is left from a crash mid-upload). */
export function importJobFiles(db: Database.Database): Set<string> {
  return new Set(
    (stmt(db, "SELECT file FROM import_jobs WHERE file IS NOT NULL").all() as { file: string }[]).map((r) => r.file),
  );
}

export function saveImportDetail(db: Database.Database, id: string, detail: string): void {
  stmt(db, "UPDATE import_jobs SET detail = ? WHERE id = ?").run(detail, id);
}

export function markImportRunning(db: Database.Database, id: string, at: string): void {
  stmt(
    db,
    "UPDATE import_jobs SET status = 'running', started_at = coalesce(started_at, ?) WHERE id = ? AND status = 'queued'",
  ).run(at, id);
}

/** Counts a batch adds, and the cursor after it. */
export interface BatchProgress {
  nextItem: number;
  nextGroup: number;
  bytesDone: number;
  conversations: number;
  exchanges: number;
  skippedMessages: number;
  undated: number;
  malformed: number;
  total: number;
  done: number;
  imported: number;
  duplicates: number;
  problems: string[];
}

/** Move the cursor and add a batch's counts (inside the batch's transaction). */
export function recordImportBatch(db: Database.Database, id: string, p: BatchProgress): void {
  stmt(
    db,
    `UPDATE import_jobs SET next_item = @nextItem, next_group = @nextGroup, bytes_done = max(bytes_done, @bytesDone),
       conversations = conversations + @conversations, exchanges = exchanges + @exchanges,
       skipped_messages = skipped_messages + @skippedMessages, undated = undated + @undated,
       malformed = malformed + @malformed, total = total + @total, done = done + @done,
       imported = imported + @imported, duplicates = duplicates + @duplicates, problems = @problemsJson
     WHERE id = @id`,
  ).run({ ...p, id, problemsJson: JSON.stringify(p.problems) });
}

export function addImportedMemories(db: Database.Database, jobId: string, memoryIds: string[]): void {
  const ins = stmt(db, "INSERT OR IGNORE INTO import_job_memories (job_id, memory_id) VALUES (?, ?)");
  for (const m of memoryIds) ins.run(jobId, m);
}

export function importedMemoriesOf(db: Database.Database, jobId: string): string[] {
  return (
    stmt(db, "SELECT memory_id AS id FROM import_job_memories WHERE job_id = ? ORDER BY rowid").all(jobId) as {
      id: string;
    }[]
  ).map((r) => r.id);
}

/** Record a conversation the job wrote as a chat (`created`), or found already imported (inside the batch's transaction). */
export function addImportedConversation(
  db: Database.Database,
  jobId: string,
  conversationId: string,
  created: boolean,
): void {
  stmt(db, "INSERT OR IGNORE INTO import_job_conversations (job_id, conversation_id, created) VALUES (?, ?, ?)").run(
    jobId,
    conversationId,
    created ? 1 : 0,
  );
}

/** The chats a job wrote (or found), in file order: how many, how many it created, and the first `limit` still there. */
export function importedConversationsOf(
  db: Database.Database,
  jobId: string,
  limit: number,
): ImportedConversationsSummary {
  const n = stmt(
    db,
    "SELECT count(*) AS total, coalesce(sum(created), 0) AS created FROM import_job_conversations WHERE job_id = ?",
  ).get(jobId) as { total: number; created: number };
  const first = stmt(
    db,
    `SELECT c.id, c.title FROM import_job_conversations j JOIN conversations c ON c.id = j.conversation_id
     WHERE j.job_id = ? ORDER BY j.rowid LIMIT ?`,
  ).all(jobId, limit) as { id: string; title: string }[];
  return { total: n.total, created: n.created, first };
}

/** The chats a job created (not those it found already imported). */
export function createdConversationsOf(db: Database.Database, jobId: string): string[] {
  return (
    stmt(
      db,
      "SELECT conversation_id AS id FROM import_job_conversations WHERE job_id = ? AND created = 1 ORDER BY rowid",
    ).all(jobId) as { id: string }[]
  ).map((r) => r.id);
}

/** Has this person an import that finished (done)? */
export function hasFinishedImport(db: Database.Database, personId: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM import_jobs WHERE person_id = ? AND status = 'done' LIMIT 1").get(personId) !== undefined
  );
}

/** Finish a job (done, failed or cancelled); only an unfinished one changes. Returns whether it did. */
export function finishImportJob(
  db: Database.Database,
  id: string,
  end: {
    status: "done" | "failed" | "cancelled";
    at: string;
    error?: string | null;
    errorStatus?: number | null;
    cancel?: "keep" | "forget" | null;
  },
): boolean {
  return (
    stmt(
      db,
      `UPDATE import_jobs SET status = @status, finished_at = @at, error = @error, error_status = @errorStatus,
         cancel = @cancel, file = NULL WHERE id = @id AND status IN ('queued', 'running')`,
    ).run({ id, error: null, errorStatus: null, cancel: null, ...end }).changes > 0
  );
}

/** Forget a removed person's import history (their file names, counts and errors). */
export function deleteImportJobsOf(db: Database.Database, personId: string): number {
  stmt(db, "DELETE FROM import_job_conversations WHERE job_id IN (SELECT id FROM import_jobs WHERE person_id = ?)").run(
    personId,
  );
  stmt(db, "DELETE FROM import_job_memories WHERE job_id IN (SELECT id FROM import_jobs WHERE person_id = ?)").run(
    personId,
  );
  return stmt(db, "DELETE FROM import_jobs WHERE person_id = ?").run(personId).changes;
}

/** Forget the oldest finished jobs of a person beyond `keep` (the history is a list, not an archive). */
export function pruneImportJobs(db: Database.Database, personId: string, keep: number): void {
  const old = `SELECT id FROM import_jobs WHERE person_id = ? AND status IN ('done', 'failed', 'cancelled')
    ORDER BY queued_at DESC, id DESC LIMIT -1 OFFSET ?`;
  stmt(db, `DELETE FROM import_job_memories WHERE job_id IN (${old})`).run(personId, keep);
  stmt(db, `DELETE FROM import_job_conversations WHERE job_id IN (${old})`).run(personId, keep);
  stmt(db, `DELETE FROM import_jobs WHERE id IN (${old})`).run(personId, keep);
}
