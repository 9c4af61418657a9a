/**
 * A lease per job name, kept in the store's `meta` table (key `lease:<job>`), so that two processes
 * sharing the SQLite file, or two overlapping runs in one process, never run the same job at once.
 * Taking a lease is one IMMEDIATE transaction (it takes SQLite's write lock before reading, so two
 * takers cannot both see the lease free). A lease expires: a process that dies holding one blocks the
 * job only until `expiresAt`; a live holder renews it while it works.
 */
import crypto from "node:crypto";
import os from "node:os";
import type Database from "better-sqlite3";
import { getMeta, setMeta } from "./meta";

export interface Lease {
  job: string;
  token: string;
  owner: string;
  expiresAt: number;
}

export interface LeaseHolder {
  owner: string;
  expiresAt: number;
}

const key = (job: string) => `lease:${job}`;

/** host:pid, for people reading who holds a lease. */
export const processOwner = () => `${os.hostname()}:${process.pid}`;

function read(db: Database.Database, job: string): Lease | null {
  const raw = getMeta(db, key(job));
  if (!raw) return null;
  try {
    const l = JSON.parse(raw) as Lease;
    return typeof l.token === "string" && typeof l.expiresAt === "number" ? l : null;
  } catch {
    return null;
  }
}

/**
 * A lease held by a process of this host that no longer exists (it was killed or crashed mid-run) is
 * free at once, instead of blocking the job until it expires (up to 5 minutes for consolidation: a
 * "Run now" after a crash was refused meanwhile). Holders on other hosts are only ever timed out.
 */
export function ownerIsDead(owner: string): boolean {
  const at = owner.lastIndexOf(":");
  if (at < 0 || owner.slice(0, at) !== os.hostname()) return false;
  const pid = Number(owner.slice(at + 1));
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

const held = (l: Lease | null, now: number): l is Lease => l !== null && l.expiresAt > now && !ownerIsDead(l.owner);

/** Who holds the lease of a job now (null: free, expired, or its process is gone). */
export function leaseHolder(db: Database.Database, job: string, now = Date.now()): LeaseHolder | null {
  const l = read(db, job);
  return held(l, now) ? { owner: l.owner, expiresAt: l.expiresAt } : null;
}

/** Inside a write transaction: take the lease when it is free or expired; null when someone holds it. */
export function takeLeaseIn(db: Database.Database, job: string, ttlMs: number, now = Date.now()): Lease | null {
  if (held(read(db, job), now)) return null;
  const lease: Lease = { job, token: crypto.randomUUID(), owner: processOwner(), expiresAt: now + ttlMs };
  setMeta(db, key(job), JSON.stringify(lease));
  return lease;
}

/** Take the lease of a job in its own IMMEDIATE transaction; null when someone else holds it. */
export function tryTakeLease(db: Database.Database, job: string, ttlMs: number): Lease | null {
  return db.transaction(() => takeLeaseIn(db, job, ttlMs)).immediate();
}

/** Extend a lease we hold; false when it is no longer ours (it expired and someone took it). */
export function renewLease(db: Database.Database, lease: Lease, ttlMs: number): boolean {
  return db
    .transaction(() => {
      const cur = read(db, lease.job);
      if (!cur || cur.token !== lease.token) return false;
      lease.expiresAt = Date.now() + ttlMs;
      setMeta(db, key(lease.job), JSON.stringify(lease));
      return true;
    })
    .immediate();
}

/** Give a lease back (only if it is still ours). */
export function releaseLease(db: Database.Database, lease: Lease): void {
  db.transaction(() => {
    const cur = read(db, lease.job);
    if (cur?.token === lease.token) db.prepare("DELETE FROM meta WHERE key = ?").run(key(lease.job));
  }).immediate();
}
