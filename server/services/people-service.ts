/**
 * Removing a person (issue 32): everything of theirs goes in one transaction — their spaces with every
 * memory (rows, memory_fts, memory_vec, parked vectors; the ANN indexes hear of the removed vectors after
 * commit), conversations with their messages, documents, pending exchanges, retrieval events, their
 * per-person settings, sessions, tokens and the person. Uploaded files are deleted after the commit (and
 * any left over by the sweep at start).
 */
import fs from "node:fs";
import type Database from "better-sqlite3";
import { deleteSpace } from "../memory/store";
import { OWNER_ID } from "../core/space-name";
import { personalSettingsLike } from "../core/settings-store";
import { uploadPath, uploadsDirFor } from "../ingest/queue";
import { ServiceError } from "../core/errors";

export function removePersonData(
  db: Database.Database,
  personId: string,
): { removed: Record<string, number>; files: number } {
  if (personId === OWNER_ID) throw new ServiceError(400, "the owner cannot be removed");
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
    // deleteSpace's own transaction nests as a savepoint: all of it commits or none does.
    for (const key of spaces) {
      for (const [t, n] of Object.entries(deleteSpace(db, key).removed)) removed[t] = (removed[t] ?? 0) + n;
    }
    removed.settings = db.prepare("DELETE FROM settings WHERE key LIKE ?").run(personalSettingsLike(personId)).changes;
    removed.auth_sessions = db.prepare("DELETE FROM auth_sessions WHERE person_id = ?").run(personId).changes;
    removed.api_tokens = db.prepare("DELETE FROM api_tokens WHERE person_id = ?").run(personId).changes;
    removed.people = db.prepare("DELETE FROM people WHERE id = ?").run(personId).changes;
  })();
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
  return { removed, files: docs.length - filesLeft };
}
