/**
 * A data folder that cannot be written (read-only, permissions) or is full. Writes then fail deep in
 * SQLite or fs; this file names those failures for people ("the data folder is not writable", "disk
 * full"), answered as 503 by the one error map (errors.ts), and keeps the fact for health: a failed write
 * marks the store faulty for FAULT_MEMORY_MS, and a cheap probe (create, write, fsync and remove a small
 * file beside the store; at most every PROBE_EVERY_MS, when health is asked) finds a folder that has gone
 * read-only or full before anyone writes. Nothing is half-written: every store write is one transaction, which SQLite
 * rolls back whole when it cannot write.
 */
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "./config";

export type StorageFaultKind = "not-writable" | "full";

export interface StorageFault {
  kind: StorageFaultKind;
  /** For people: what is wrong and what to do. */
  message: string;
}

const FAULT_MEMORY_MS = 10_000;
const PROBE_EVERY_MS = 5_000;

const NOT_WRITABLE_FS = new Set(["EROFS", "EACCES", "EPERM"]);
const FULL_FS = new Set(["ENOSPC", "EDQUOT"]);

export const MESSAGES: Record<StorageFaultKind, string> = {
  "not-writable":
    "the data folder is not writable (read-only or wrong permissions); nothing was saved. Make it writable, then try again",
  full: "disk full: the data folder's disk has no space left; nothing was saved. Free some space, then try again",
};

/** The storage fault an error is, or null: SQLite's read-only and full codes, fs's permission and space errnos. */
export function storageFaultOf(e: unknown): StorageFault | null {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  let kind: StorageFaultKind | null = null;
  if (code === "SQLITE_FULL" || FULL_FS.has(code)) kind = "full";
  else if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_CANTOPEN") kind = "not-writable";
  else if (NOT_WRITABLE_FS.has(code)) {
    // A permission error elsewhere (a file the person picked, a socket) is not the data folder's.
    const p = (e as { path?: unknown }).path;
    if (typeof p === "string" && isInside(path.resolve(p), dataDir())) kind = "not-writable";
  }
  return kind ? { kind, message: MESSAGES[kind] } : null;
}

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

interface State {
  lastFault: (StorageFault & { at: number }) | null;
  probe: { file: string; at: number; fault: StorageFault | null } | null;
}
// globalThis: one state per process, also across module reloads in development.
const g = globalThis as unknown as { __memoStorageFault?: State };
const state: State = (g.__memoStorageFault ??= { lastFault: null, probe: null });

/** Remember that a write just failed with this fault (health reports it for a while). */
export function noteStorageFault(fault: StorageFault): void {
  state.lastFault = { ...fault, at: Date.now() };
  state.probe = null; // probe again on the next health check
}

/**
 * Create, write, fsync and remove a small file beside the store, and check the store file itself is
 * writable: what a write needs. The store's folder, not the data folder's root: it is where SQLite writes.
 */
export function probeStoreFolder(dbFile: string): StorageFault | null {
  if (dbFile === "" || dbFile === ":memory:") return null;
  const file = path.join(path.dirname(dbFile), `.write-probe-${process.pid}`);
  try {
    const fd = fs.openSync(file, "w", 0o600);
    try {
      fs.writeSync(fd, "ok\n");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.rmSync(file, { force: true });
    if (fs.existsSync(dbFile)) fs.accessSync(dbFile, fs.constants.W_OK);
    return null;
  } catch (e) {
    try {
      fs.rmSync(file, { force: true });
    } catch {
      /* nothing was created */
    }
    // ENOSPC/EDQUOT say full; anything else (EROFS, EACCES, ENOTDIR, ENOENT…) means writes cannot land.
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" && FULL_FS.has(code)
      ? { kind: "full", message: MESSAGES.full }
      : { kind: "not-writable", message: MESSAGES["not-writable"] };
  }
}

/** The store's state for health: the probe fails, or a write failed recently; null when fine. */
export function storageProblem(dbFile: string, now = Date.now()): StorageFault | null {
  if (!state.probe || state.probe.file !== dbFile || now - state.probe.at >= PROBE_EVERY_MS)
    state.probe = { file: dbFile, at: now, fault: probeStoreFolder(dbFile) };
  if (state.probe.fault) return state.probe.fault;
  const last = state.lastFault;
  if (last && now - last.at < FAULT_MEMORY_MS) return { kind: last.kind, message: last.message };
  return null;
}

/** Forget what was seen (tests). */
export function resetStorageFaults(): void {
  state.lastFault = null;
  state.probe = null;
}
