/**
 * Import jobs: a validated import plan runs in the background, one job at a time (they share the
 * embedding server with chat), and reports progress that the Manager page polls. Jobs live in memory
 * (on globalThis: route handlers and the tRPC route are separate bundles); the last 20 are kept.
 */
import crypto from "node:crypto";
import type { MemoContext } from "../core/context";
import { asServiceError } from "../core/errors";
import { importGroups, type ImportPlan } from "./transfer-service";
import { acting, actingPersonId } from "../core/acting";
import type { ImportFormatId } from "./import/formats";
import { type ImportedConversationsSummary, writeImportedConversations } from "../chat/imported-conversations";

/** The import format (server/import/formats.ts). */
export type ImportKind = ImportFormatId;

export interface ImportJob {
  id: string;
  /** Who started it: a person sees only their own import jobs. */
  personId: string;
  kind: ImportKind;
  /** The file name (or "request body"). */
  label: string;
  /** Target space; null: each memory's own space (Memo export). */
  space: string | null;
  status: "queued" | "running" | "done" | "failed";
  /** What the file held. */
  detail: string;
  /** Malformed parts of the file left out, one line each (the rest was imported). */
  problems: string[];
  /** Memories to embed and write (duplicates excluded), how many are done, written, and skipped as duplicates. */
  total: number;
  done: number;
  imported: number;
  duplicates: number;
  error: string | null;
  /** HTTP status of the failure, for `?wait=true` callers. */
  errorStatus: number | null;
  /** A conversation export's conversations, now chats (null: not one, or not finished). */
  conversations: ImportedConversationsSummary | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const KEEP = 20;
const g = globalThis as unknown as {
  __memoImportJobs?: {
    jobs: Map<string, ImportJob>;
    tail: Promise<unknown>;
    waits: Map<string, Promise<ImportJob>>;
    /** The memories each finished job wrote (what "learn facts from this import" reads; never sent to a page). */
    ids: Map<string, string[]>;
  };
};
function registry() {
  g.__memoImportJobs ??= { jobs: new Map(), tail: Promise.resolve(), waits: new Map(), ids: new Map() };
  return g.__memoImportJobs;
}

/** The acting person's import jobs (another person's read as missing). */
const isOwn = (j: ImportJob) => acting().system || j.personId === actingPersonId();

export function listImportJobs(): ImportJob[] {
  return [...registry().jobs.values()]
    .filter(isOwn)
    .sort((a, b) => b.queuedAt.localeCompare(a.queuedAt) || b.id.localeCompare(a.id));
}

/** The memories an import of the acting person wrote (undefined: not theirs, unknown, or not finished). */
export function importedMemoryIds(id: string): string[] | undefined {
  return getImportJob(id) ? registry().ids.get(id) : undefined;
}

export function getImportJob(id: string): ImportJob | undefined {
  const j = registry().jobs.get(id);
  return j && isOwn(j) ? { ...j } : undefined;
}

/** Resolves with the job once it has finished (done or failed). */
export function waitForImport(id: string): Promise<ImportJob> {
  const p = registry().waits.get(id);
  if (!p) throw new Error(`no import job ${id}`);
  return p;
}

/** Queue a validated plan; returns the job at once (status queued or running). */
export function enqueueImport(
  ctx: MemoContext,
  kind: ImportKind,
  label: string,
  space: string | null,
  plan: ImportPlan,
): ImportJob {
  const reg = registry();
  const job: ImportJob = {
    id: crypto.randomUUID(),
    personId: actingPersonId(),
    kind,
    label: label.slice(0, 200),
    space,
    status: "queued",
    detail: plan.detail,
    problems: plan.problems ?? [],
    total: plan.groups.reduce((n, gr) => n + gr.length, 0),
    done: 0,
    imported: 0,
    duplicates: 0,
    error: null,
    errorStatus: null,
    conversations: null,
    queuedAt: new Date().toISOString(),
    startedAt: null,
    finishedAt: null,
  };
  reg.jobs.set(job.id, job);
  // Forget the oldest finished jobs beyond KEEP.
  const finished = listImportJobs().filter((j) => j.status === "done" || j.status === "failed");
  for (const old of finished.slice(KEEP)) {
    reg.jobs.delete(old.id);
    reg.waits.delete(old.id);
    reg.ids.delete(old.id);
  }
  const run = async (): Promise<ImportJob> => {
    job.status = "running";
    job.startedAt = new Date().toISOString();
    try {
      const r = await importGroups(ctx, plan.groups, (p) => Object.assign(job, p));
      reg.ids.set(job.id, r.ids);
      // Once their memories are stored, the conversations become chats (linked to them).
      if (plan.conversations) job.conversations = await writeImportedConversations(ctx.db, plan.conversations);
      Object.assign(job, {
        total: r.total,
        done: r.done,
        imported: r.imported,
        duplicates: r.duplicates,
        status: "done",
      });
    } catch (e) {
      const se = asServiceError(e);
      job.status = "failed";
      job.error = se ? se.message : e instanceof Error ? e.message : String(e);
      job.errorStatus = se?.status ?? 500;
      if (!se) console.error("[import] unexpected error", e);
    } finally {
      job.finishedAt = new Date().toISOString();
    }
    return { ...job };
  };
  const p = reg.tail.then(run, run);
  reg.tail = p.catch(() => undefined);
  reg.waits.set(job.id, p);
  return { ...job };
}

/** A person's imports that are still queued or running (their removal waits for these). */
export function unfinishedImportsOf(personId: string): number {
  return [...registry().jobs.values()].filter(
    (j) => j.personId === personId && (j.status === "queued" || j.status === "running"),
  ).length;
}

/** Forget a removed person's import history (their file names, counts and errors). */
export function forgetImportJobsOf(personId: string): number {
  const reg = registry();
  let n = 0;
  for (const j of [...reg.jobs.values()]) {
    if (j.personId !== personId) continue;
    reg.jobs.delete(j.id);
    reg.waits.delete(j.id);
    reg.ids.delete(j.id);
    n++;
  }
  return n;
}
