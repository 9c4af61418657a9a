/**
 * Removing a person (issue 32): everything of theirs goes in one transaction — their spaces with every
 * memory (rows, keyword tables, memory_vec, parked vectors, live counts; the ANN indexes hear of the removed
 * vectors after commit), conversations with their messages, documents, pending exchanges, retrieval events
 * (theirs and their recalls of memories shared with them), their per-person settings, sessions, tokens and
 * the person, their name on the memories and facts they wrote into others' shared spaces (it says "a removed
 * person"), and
 * their job history: the entries of the household's job runs that name one of their memories (consolidation
 * quotes them) or them, and their import jobs. After the commit: their uploaded files and saved ANN graphs
 * are deleted (any left by a crash in between go at the next start: the ingest queue's recover(), the ANN
 * index's load), and the store is scrubbed off the request path (server/db/scrub.ts: no page image or index
 * token of theirs left in the files; issue 43).
 */
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { deleteSpace, reassignWrittenBy } from "../memory/store";
import { reassignFactsWrittenBy } from "../memory/facts/store";
import { OWNER_ID } from "../core/space-name";
import { personalSettingsLike } from "../core/settings-store";
import { uploadPath, uploadsDirFor } from "../ingest/queue";
import { ServiceError } from "../core/errors";
import { forgetImportJobsOf, unfinishedImportsOf } from "./import-jobs";
import { markScrubPending, scheduleScrub } from "../db/scrub";
import { annFor } from "../memory/index/ann-registry";
import { dataDir } from "../core/config";

/** What memories and facts a removed person wrote into others' shared spaces say of their writer: no id of theirs. */
export const REMOVED_WRITER = "removed";

/**
 * Test seam (crash-safety test only, server/services/people-removal.test.ts): called after the commit and
 * before the files are deleted, where a crash must leave the store consistent and the files to the sweep.
 */
export interface RemovalTestSeam {
  afterCommitBeforeFiles?: () => void;
}

export interface RemovalResult {
  removed: Record<string, number>;
  /** Upload files deleted. */
  files: number;
  /** Backups made before (`npm run backup`, <data>/backups): they still hold the person's data until deleted. */
  backups: string[];
  /** The store's files are scrubbed in the background (server/db/scrub.ts). */
  scrub: "scheduled";
}

export function removePersonData(
  db: Database.Database,
  personId: string,
  testSeam: RemovalTestSeam = {},
): RemovalResult {
  if (personId === OWNER_ID) throw new ServiceError(400, "the owner cannot be removed");
  // An import still writing into their spaces would make them again after the removal.
  if (unfinishedImportsOf(db, personId) > 0)
    throw new ServiceError(409, "an import of this person's is still running: remove them once it has finished");
  const spaces = (db.prepare("SELECT id FROM spaces WHERE person_id = ?").all(personId) as { id: string }[]).map(
    (r) => r.id,
  );
  const docs = (
    db
      .prepare("SELECT id FROM documents WHERE space_id IN (SELECT id FROM spaces WHERE person_id = ?)")
      .all(personId) as { id: string }[]
  ).map((r) => r.id);
  const removed: Record<string, number> = {};
  db.transaction(() => {
    if (!db.prepare("SELECT 1 FROM people WHERE id = ?").get(personId))
      throw new ServiceError(404, "no person with this id");
    // Their job history first, while their memories can still be named (see scrubJobRuns).
    const ids = new Set(
      (
        db
          .prepare("SELECT id FROM memories WHERE space_id IN (SELECT id FROM spaces WHERE person_id = ?)")
          .all(personId) as { id: string }[]
      ).map((r) => r.id),
    );
    removed.job_runs = scrubJobRuns(db, personId, ids);
    // deleteSpace's own transaction nests as a savepoint: all of it commits or none does.
    for (const key of spaces) {
      for (const [t, n] of Object.entries(deleteSpace(db, key).removed)) removed[t] = (removed[t] ?? 0) + n;
    }
    // Their recalls of memories shared with them (events naming no space of theirs, drizzle/0021).
    removed.retrieval_events =
      (removed.retrieval_events ?? 0) +
      db.prepare("DELETE FROM retrieval_events WHERE person_id = ?").run(personId).changes;
    // What they wrote into others' spaces stays there, the space's person's, no longer naming them.
    removed.written_by = reassignWrittenBy(db, personId, REMOVED_WRITER);
    // Facts they wrote there too (issue 48: the removal test reads the files for their id).
    removed.facts_written_by = reassignFactsWrittenBy(db, personId, REMOVED_WRITER);
    removed.settings = db.prepare("DELETE FROM settings WHERE key LIKE ?").run(personalSettingsLike(personId)).changes;
    removed.auth_sessions = db.prepare("DELETE FROM auth_sessions WHERE person_id = ?").run(personId).changes;
    removed.api_tokens = db.prepare("DELETE FROM api_tokens WHERE person_id = ?").run(personId).changes;
    // Sign-in attempts against them (their known browsers, login_devices, go with the person row).
    removed.login_attempts = db.prepare("DELETE FROM login_attempts WHERE account = ?").run(personId).changes;
    removed.people = db.prepare("DELETE FROM people WHERE id = ?").run(personId).changes;
    markScrubPending(db);
  })();
  removed.import_jobs = forgetImportJobsOf(db, personId);
  testSeam.afterCommitBeforeFiles?.();
  // After the commit: a file the rows no longer name is unreachable; one that cannot be deleted now is
  // removed by the ingest queue's sweep of unnamed upload files at the next start (server/ingest/queue.ts).
  let filesLeft = 0;
  const dir = uploadsDirFor(db);
  for (const id of docs) {
    try {
      fs.rmSync(uploadPath(dir, id), { force: true });
    } catch {
      filesLeft++;
    }
  }
  // Their saved ANN graphs (vectors and keys) leave the disk now, not at the next save.
  annFor(db)?.dropSpaces(spaces);
  // Older page images in the -wal file and any FTS5 token of theirs deleted before secure-delete was on.
  void scheduleScrub(db);
  return { removed, files: docs.length - filesLeft, backups: backupsOnDisk(), scrub: "scheduled" };
}

/** The backup files in <data>/backups (scripts/backup.ts's default folder), oldest first. */
function backupsOnDisk(): string[] {
  const dir = path.join(dataDir(), "backups");
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".db"))
      .sort();
  } catch {
    return [];
  }
}

/**
 * Take a removed person out of the household's job history (job_runs): every list entry of a run's result
 * that names one of their memories (a consolidation merge, proposal or skip quotes both texts; decay lists
 * ids) or their spaces is dropped, and so is their entry in a decay run's per-person rules. Counts stay (they
 * quote nothing). Returns how many runs were changed.
 */
function scrubJobRuns(db: Database.Database, personId: string, ids: Set<string>): number {
  const prefix = `${personId}~`;
  const names = (v: unknown): boolean => {
    if (typeof v === "string") return ids.has(v) || v.startsWith(prefix);
    if (Array.isArray(v)) return v.some(names);
    if (v !== null && typeof v === "object") return Object.values(v).some(names);
    return false;
  };
  const scrub = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.filter((x) => !names(x)).map(scrub);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (k !== personId && !k.startsWith(prefix)) out[k] = scrub(x);
      return out;
    }
    return v;
  };
  const update = db.prepare("UPDATE job_runs SET result = ? WHERE id = ?");
  let changed = 0;
  const rows = db.prepare("SELECT id, result FROM job_runs WHERE result IS NOT NULL").all() as {
    id: number;
    result: string;
  }[];
  for (const row of rows) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.result);
    } catch {
      continue;
    }
    const next = JSON.stringify(scrub(parsed));
    if (next !== row.result) {
      update.run(next, row.id);
      changed++;
    }
  }
  return changed;
}
