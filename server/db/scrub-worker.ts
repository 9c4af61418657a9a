/**
 * The store scrub (server/db/scrub.ts), run in a worker thread on its own connection so that the server's
 * event loop keeps answering while it rewrites the file. Steps: every FTS5 table's index rewritten from its
 * live rows (tokens deleted before secure-delete was on go), VACUUM (the file rebuilt from live pages only,
 * the freelist dropped), then a TRUNCATE checkpoint (the -wal file, which holds older page images, emptied).
 * Posts one ScrubOutcome and exits.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { fts5Tables, optimizeFts, secureDeleteFts } from "./secure-delete";

export interface ScrubOutcome {
  ok: boolean;
  /** The checkpoint could not empty the -wal file (another connection was reading): try again later. */
  busy: boolean;
  error: string | null;
  ms: number;
}

function run(file: string, token: string | null): ScrubOutcome {
  const t0 = performance.now();
  const db = new Database(file, { fileMustExist: true });
  try {
    sqliteVec.load(db);
    db.pragma("busy_timeout = 5000");
    db.pragma("secure_delete = ON");
    for (const t of fts5Tables(db)) {
      secureDeleteFts(db, t);
      optimizeFts(db, t);
    }
    db.exec("VACUUM");
    // Done for what was asked, if the checkpoint empties the -wal file (else the token is put back for the next
    // try). A removal committed meanwhile wrote another token, and is scrubbed next.
    const cleared =
      token === null ? 0 : db.prepare("DELETE FROM meta WHERE key = 'scrub_pending' AND value = ?").run(token).changes;
    const [c] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number; checkpointed: number }[];
    const busy = (c?.busy ?? 0) !== 0;
    if (busy && cleared) db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('scrub_pending', ?)").run(token);
    return { ok: !busy, busy, error: null, ms: performance.now() - t0 };
  } finally {
    db.close();
  }
}

const { file, token } = workerData as { file: string; token: string | null };
let outcome: ScrubOutcome;
try {
  outcome = run(file, token);
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  outcome = { ok: false, busy: /SQLITE_BUSY|database is locked/i.test(message), error: message, ms: 0 };
}
parentPort?.postMessage(outcome);
