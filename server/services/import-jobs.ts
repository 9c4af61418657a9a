/**
 * Import jobs (issue 55): a received export is a file under the data folder (`imports/`) and a row in the
 * store (import_jobs), worked in batches by the import runner (import/runner.ts), which takes people in turn.
 * A job survives a restart and resumes where it stopped; its person (or an admin) can cancel it, keeping or
 * forgetting what it already stored; a person may have a few imports in flight at once (MEMO_IMPORT_MAX_IN_FLIGHT).
 * The runner lives on globalThis: route handlers and the tRPC route are separate bundles of one process.
 */
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { acting, actingPersonId, runAs } from "../core/acting";
import { dataDir } from "../core/config";
import { ServiceError } from "../core/errors";
import { appContext } from "../context";
import { softDeleteMemories } from "../memory/store";
import { conversationsDetail, MAX_PROBLEMS } from "./import/conversations";
import type { ImportFormatId } from "./import/formats";
import { LINKED_CONVERSATIONS } from "../chat/imported-conversations";
import { deleteConversation } from "../chat/conversations";
import type { PlanWhole } from "./import/job-reader";
import {
  createdConversationsOf,
  deleteImportJobsOf,
  finishImportJob,
  type ImportJob,
  type ImportJobRow,
  importedConversationsOf,
  importedMemoriesOf,
  importJobFiles,
  importJobRow,
  importJobRows,
  insertImportJob,
  pruneImportJobs,
  unfinishedImportCount,
} from "./import/job-rows";
import { planImport } from "./import/registry";
import { ImportRunner } from "./import/runner";

export type { ImportJob } from "./import/job-rows";
/** The import format (server/services/import/formats.ts). */
export type ImportKind = ImportFormatId;

/** Finished jobs kept per person (the list is a history, not an archive). */
const KEEP = 20;

function positiveEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const v = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The largest export accepted, in bytes (MEMO_IMPORT_MAX_MB, default 2048: a heavy user's history with room to spare). */
export function importMaxBytes(): number {
  return Math.floor(positiveEnv("MEMO_IMPORT_MAX_MB", 2048) * 1024 * 1024);
}

/** How many imports one person may have queued or running at once (MEMO_IMPORT_MAX_IN_FLIGHT, default 3). */
export function importsInFlightLimit(): number {
  return Math.floor(positiveEnv("MEMO_IMPORT_MAX_IN_FLIGHT", 3));
}

/** Where received files wait to be read (removed when their job ends). */
export function importsFolder(): string {
  return path.join(dataDir(), "imports");
}

const g = globalThis as unknown as { __memoImportRunner?: ImportRunner };

/** A file planned whole on this thread: the default until the server hands its off-thread planner (server/boot.ts). */
const planHere: PlanWhole = async (format, bytes, space) =>
  planImport(format, JSON.parse(new TextDecoder().decode(bytes)) as unknown, space);

/** The process's runner (made on first use). */
export function importRunner(): ImportRunner {
  g.__memoImportRunner ??= new ImportRunner({ context: appContext, planWhole: planHere });
  return g.__memoImportRunner;
}

/**
 * At start-up: remove received files no job names (a crash between receiving and queueing), and resume the
 * jobs the last process left queued or running.
 */
export function startImportRunner(planWhole?: PlanWhole): ImportRunner {
  const runner = importRunner();
  if (planWhole) runner.setPlanner(planWhole);
  const folder = importsFolder();
  if (fs.existsSync(folder)) {
    const named = importJobFiles(appContext().db);
    for (const f of fs.readdirSync(folder)) {
      const file = path.join(folder, f);
      if (!named.has(file)) fs.rmSync(file, { force: true });
    }
  }
  runner.wake();
  return runner;
}

/** The acting person's job (another person's reads as missing; an admin may reach any for a cancel). */
const isOwn = (j: { personId: string }, adminToo = false) =>
  acting().system || j.personId === actingPersonId() || (adminToo && acting().admin);

function view(db: Database.Database, r: Omit<ImportJobRow, "detail">): ImportJob {
  const detail =
    r.savedDetail ??
    (r.kind === "memo"
      ? r.status === "queued"
        ? "queued"
        : "reading the file"
      : conversationsDetail(r) + (r.status === "running" || r.status === "queued" ? " so far" : ""));
  const problems =
    r.malformed > MAX_PROBLEMS
      ? [...r.problems, `and ${r.malformed - MAX_PROBLEMS} more malformed conversations`]
      : r.problems;
  return {
    id: r.id,
    personId: r.personId,
    kind: r.kind,
    label: r.label,
    space: r.space,
    status: r.status,
    detail,
    problems,
    bytesTotal: r.bytesTotal,
    bytesDone: r.bytesDone,
    total: r.total,
    done: r.done,
    imported: r.imported,
    duplicates: r.duplicates,
    error: r.error,
    errorStatus: r.errorStatus,
    cancel: r.cancel,
    // The chats its conversations became (so far, while it runs); derived from the rows it wrote.
    conversations: r.kind === "memo" ? null : importedConversationsOf(db, r.id, LINKED_CONVERSATIONS),
    queuedAt: r.queuedAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

export function listImportJobs(db: Database.Database): ImportJob[] {
  return importJobRows(db, acting().system ? null : actingPersonId(), 100).map((r) => view(db, r));
}

export function getImportJob(db: Database.Database, id: string): ImportJob | undefined {
  const r = importJobRow(db, id);
  return r && isOwn(r) ? view(db, r) : undefined;
}

/** The memories an import of the acting person wrote (undefined: not theirs, unknown, or not finished). */
export function importedMemoryIds(db: Database.Database, id: string): string[] | undefined {
  const j = getImportJob(db, id);
  return j?.status === "done" ? importedMemoriesOf(db, id) : undefined;
}

/** A 429 when the acting person already has as many imports in flight as allowed (checked before receiving a file). */
export function checkImportAllowed(db: Database.Database): void {
  const limit = importsInFlightLimit();
  const n = unfinishedImportCount(db, actingPersonId());
  if (n >= limit)
    throw new ServiceError(
      429,
      `you have ${n} import${n === 1 ? "" : "s"} queued or running (at most ${limit} at once, MEMO_IMPORT_MAX_IN_FLIGHT): wait for one to finish or cancel one`,
    );
}

/** Queue a received file (already validated) for the acting person; returns the job at once. */
export function enqueueImportFile(
  db: Database.Database,
  j: { id: string; kind: ImportKind; label: string; space: string | null; file: string; bytesTotal: number },
): ImportJob {
  const personId = actingPersonId();
  db.transaction(() => {
    checkImportAllowed(db);
    insertImportJob(db, {
      ...j,
      label: j.label.slice(0, 200),
      personId,
      admin: acting().admin,
      queuedAt: new Date().toISOString(),
    });
    pruneImportJobs(db, personId, KEEP);
  })();
  importRunner().wake();
  return getImportJob(db, j.id)!;
}

/** Resolves with the job once it has finished (done, failed or cancelled). */
export async function waitForImport(db: Database.Database, id: string): Promise<ImportJob> {
  for (;;) {
    const j = getImportJob(db, id);
    if (!j) throw new Error(`no import job ${id}`);
    if (j.status !== "queued" && j.status !== "running") return j;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Cancel a queued or running import (its person's, or any for an admin). `forget`: the memories it already
 * stored go to the trash too (restorable there like any deleted memory); otherwise they stay. A batch being
 * embedded at that moment writes nothing (runner.ts).
 */
export function cancelImport(
  db: Database.Database,
  id: string,
  forget: boolean,
): { job: ImportJob; forgotten: number } {
  const r = importJobRow(db, id);
  if (!r || !isOwn(r, true)) throw new ServiceError(404, `import job ${id} not found`);
  if (
    !finishImportJob(db, id, { status: "cancelled", at: new Date().toISOString(), cancel: forget ? "forget" : "keep" })
  )
    throw new ServiceError(409, `import job ${id} is ${r.status}: only a queued or running import can be cancelled`);
  importRunner().drop(id);
  if (r.file) fs.rmSync(r.file, { force: true });
  let forgotten = 0;
  if (forget) {
    const ids = importedMemoriesOf(db, id);
    // As the job's person: the memories are in their spaces (an admin's cancel reaches them through them).
    runAs({ personId: r.personId, admin: r.admin }, () => {
      for (let i = 0; i < ids.length; i += 500) forgotten += softDeleteMemories(db, ids.slice(i, i + 500)).length;
      // The chats it created go too (not those an earlier import wrote): they hold what was forgotten.
      for (const c of createdConversationsOf(db, id)) {
        try {
          deleteConversation(db, c);
        } catch (e) {
          if (!(e instanceof ServiceError && e.status === 404)) throw e; // already deleted by its person
        }
      }
    });
  }
  return { job: getImportJob(db, id) ?? view(db, importJobRow(db, id)!), forgotten };
}

/** A person's imports that are still queued or running (their removal waits for these). */
export function unfinishedImportsOf(db: Database.Database, personId: string): number {
  return unfinishedImportCount(db, personId);
}

/** Forget a removed person's import history (their file names, counts and errors). */
export function forgetImportJobsOf(db: Database.Database, personId: string): number {
  return deleteImportJobsOf(db, personId);
}
