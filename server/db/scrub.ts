/**
 * The store scrub after a person's removal (issue 43: no byte of theirs left that a file read could find).
 * secure_delete and FTS5's secure-delete (secure-delete.ts) zero what the removal's transaction deletes; what
 * they cannot reach is older: page images in the -wal file, and FTS5 tokens deleted before secure-delete was
 * on. The scrub rewrites every FTS5 index from its live rows, VACUUMs and truncates the -wal file
 * (scrub-worker.ts), in a worker thread on its own connection, off the request path: the event loop keeps
 * serving, and another connection's write waits for it (busy_timeout; VACUUM takes about 1 s per 150 MB here).
 *
 * The removal's transaction records `meta.scrub_pending` (a token), so a scrub that did not finish — the
 * process stopped, or a reader kept the -wal file busy — runs again: retried with backoff, and at the next
 * start (resumePendingScrub, server/boot.ts). The worker clears the token only when the -wal file was emptied.
 */
import crypto from "node:crypto";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { getMeta, setMeta } from "../core/meta";
import type { ScrubOutcome } from "./scrub-worker";

const PENDING = "scrub_pending";
/** Waits before the next try after a busy -wal file or a locked store. */
const RETRY_MS = [2_000, 10_000, 60_000, 300_000, 1_800_000];

interface State {
  running: Promise<ScrubOutcome> | null;
  /** Another scrub was asked for while one ran: run once more after it. */
  again: Promise<ScrubOutcome> | null;
  attempt: number;
}
const g = globalThis as unknown as { __memoScrub?: Map<string, State> };
const states = (g.__memoScrub ??= new Map());

/** Record, inside the caller's transaction, that the store must be scrubbed (so a stop before it is no loss). */
export function markScrubPending(db: Database.Database): void {
  setMeta(db, PENDING, crypto.randomUUID());
}

export function scrubPending(db: Database.Database): boolean {
  return getMeta(db, PENDING) !== undefined;
}

function runWorker(file: string, token: string | null): Promise<ScrubOutcome> {
  return new Promise((resolve) => {
    // Loaded from the source tree, as the parse worker is (server/ingest/parse-thread.ts): tsx compiles it.
    const w = new Worker(path.join(/* turbopackIgnore: true */ process.cwd(), "server", "db", "scrub-worker.ts"), {
      execArgv: ["--import", "tsx"],
      workerData: { file, token },
    });
    w.unref(); // a scrub in progress never keeps the process alive: the token makes the next start redo it
    let settled = false;
    const done = (o: ScrubOutcome) => {
      if (!settled) (settled = true), resolve(o);
    };
    w.once("message", (o: ScrubOutcome) => done(o));
    w.once("error", (e) => done({ ok: false, busy: false, error: e.message, ms: 0 }));
    w.once("exit", (code) => done({ ok: false, busy: false, error: `the scrub worker exited (${code})`, ms: 0 }));
  });
}

function start(db: Database.Database, state: State): Promise<ScrubOutcome> {
  const file = db.name;
  const run = runWorker(file, getMeta(db, PENDING) ?? null).then((o) => {
    state.running = null;
    if (o.ok) {
      state.attempt = 0;
      console.info(`[store] scrubbed the store after a removal in ${Math.round(o.ms)} ms (FTS indexes, VACUUM, -wal)`);
    } else if (o.busy && state.attempt < RETRY_MS.length && db.open) {
      const wait = RETRY_MS[state.attempt++]!;
      console.warn(`[store] the scrub after a removal found the store busy; trying again in ${wait / 1000} s`);
      setTimeout(() => db.open && void scheduleScrub(db), wait).unref();
    } else if (db.open) {
      console.error(`[store] the scrub after a removal failed: ${o.error ?? "busy"}; it runs again at the next start`);
    }
    return o;
  });
  state.running = run;
  return run;
}

/**
 * Scrub the store now, or after the scrub in progress (one more run covers every request made meanwhile).
 * Resolves with how it went; an in-memory store has no files and needs none.
 */
export function scheduleScrub(db: Database.Database): Promise<ScrubOutcome> {
  if (db.memory || db.name === ":memory:") return Promise.resolve({ ok: true, busy: false, error: null, ms: 0 });
  let state = states.get(db.name);
  if (!state) states.set(db.name, (state = { running: null, again: null, attempt: 0 }));
  const s = state;
  if (!s.running) return start(db, s);
  s.again ??= s.running.then(() => {
    s.again = null;
    return start(db, s);
  });
  return s.again;
}

/** The scrub in progress or queued for this store (the last of them), or null when none: tests wait on it. */
export function scrubInProgress(db: Database.Database): Promise<ScrubOutcome> | null {
  const s = states.get(db.name);
  return s?.again ?? s?.running ?? null;
}

/** At start: a scrub a removal asked for and that did not finish runs now. */
export function resumePendingScrub(db: Database.Database): void {
  if (scrubPending(db)) void scheduleScrub(db);
}
