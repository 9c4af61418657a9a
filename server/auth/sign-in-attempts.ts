import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { stmt } from "../core/statements";
import { sha256 } from "./store";

/**
 * The sign-in log the throttle reads (login_attempts, migrations 0003 and 0020) and the browsers known to
 * have signed in as a person (login_devices). Both live in the store, so a restart forgets nothing.
 *
 * Every attempt records its address, whom it tried (`account`) and, when it came from a browser already
 * known for that person, which one (`device`). A failure stops counting once a success explains it: a later
 * success of the same account from the same address (or, for a known device, from that device). So a
 * success never clears anyone else's failures — signing in as bob does nothing for guesses of alice's
 * password — and alice's own success clears only the failures she made where she made it.
 */

export const DEVICE_COOKIE = "memo_device";
/** A person keeps at most this many known browsers; the least recently used go first. */
const MAX_DEVICES_PER_PERSON = 20;

/** Whom an attempt tried, where from. */
export interface AttemptSource {
  ip: string;
  /** A person's id; for a sign-in name nobody has, unknownAccount(name). */
  account: string;
  /** The known device or session of that person the attempt came from (knownSourceOf), or null. */
  device: string | null;
}

/**
 * The account key of a sign-in name nobody has: counted like any account, so that a name's throttle tells
 * nothing of whether it exists, and kept as a hash, since people type passwords into the name box.
 */
export function unknownAccount(login: string): string {
  return `?${sha256(login.trim().toLowerCase()).slice(0, 24)}`;
}

export const isUnknownAccount = (account: string): boolean => account.startsWith("?");

/** Record an attempt as failed before the password is checked (so parallel guesses all count); mark it ok after. */
export function recordAttempt(db: Database.Database, src: AttemptSource, now = Date.now()): number {
  return Number(
    stmt(db, "INSERT INTO login_attempts (ip, account, device, at, ok) VALUES (?, ?, ?, ?, 0)").run(
      src.ip.slice(0, 64),
      src.account,
      src.device,
      now,
    ).lastInsertRowid,
  );
}

export function markAttemptOk(db: Database.Database, id: number): void {
  stmt(db, "UPDATE login_attempts SET ok = 1 WHERE id = ?").run(id);
}

/** A failed attempt's time becomes when its check finished: the backoff runs from the answer, not the request. */
export function markAttemptFailedAt(db: Database.Database, id: number, at: number): void {
  stmt(db, "UPDATE login_attempts SET at = ? WHERE id = ?").run(at, id);
}

export function pruneAttempts(db: Database.Database, olderThanMs: number, now = Date.now()): number {
  return stmt(db, "DELETE FROM login_attempts WHERE at < ?").run(now - olderThanMs).changes;
}

/** The failures a later success of the same account from the same address (or known device) has not explained. */
const STANDING = `f.ok = 0 AND f.at >= ? AND NOT EXISTS (
    SELECT 1 FROM login_attempts s WHERE s.account = f.account AND s.ok = 1 AND s.at > f.at
       AND CASE WHEN f.device IS NULL THEN s.device IS NULL AND s.ip = f.ip ELSE s.device = f.device END)`;

export interface FailureCount {
  failures: number;
  /** When the latest of them was answered (epoch ms). */
  lastFailure: number | null;
}

function failureCount(db: Database.Database, where: string, ...args: unknown[]): FailureCount {
  const r = stmt(
    db,
    `SELECT count(*) AS n, max(f.at) AS last FROM login_attempts f WHERE ${where} AND ${STANDING}`,
  ).get(...args) as { n: number; last: number | null };
  return { failures: r.n, lastFailure: r.last };
}

/** Standing failures from one address against any account, not counting those from known devices. */
export function addressFailures(db: Database.Database, ip: string, since: number): FailureCount {
  return failureCount(db, "f.ip = ? AND f.device IS NULL", ip.slice(0, 64), since);
}

/** Standing failures against one account from every address, not counting those from its known devices. */
export function accountFailures(db: Database.Database, account: string, since: number): FailureCount {
  return failureCount(db, "f.account = ? AND f.device IS NULL", account, since);
}

/** Standing failures against one account from one of its known devices. */
export function deviceFailures(db: Database.Database, account: string, device: string, since: number): FailureCount {
  return failureCount(db, "f.account = ? AND f.device = ?", account, device, since);
}

export interface StandingFailures {
  account: string;
  ip: string;
  /** From a known device of the account (those hold only that device). */
  known: boolean;
  failures: number;
  lastFailure: number;
}

/** Every standing failure since `since`, grouped by account, address and whether a known device made it. */
export function standingFailures(db: Database.Database, since: number): StandingFailures[] {
  return (
    stmt(
      db,
      `SELECT f.account, f.ip, f.device IS NOT NULL AS known, count(*) AS failures, max(f.at) AS lastFailure
         FROM login_attempts f WHERE f.account != '' AND ${STANDING}
        GROUP BY f.account, f.ip, known ORDER BY lastFailure DESC`,
    ).all(since) as (Omit<StandingFailures, "known"> & { known: number })[]
  ).map((r) => ({ ...r, known: Boolean(r.known) }));
}

// ---- known devices ----------------------------------------------------------------------------------

/** The cookie's value as sent, if it has the form of one (a random 256-bit secret, base64url). */
const deviceSecretOf = (v: string | null | undefined): string | null => (v && /^[A-Za-z0-9_-]{43}$/.test(v) ? v : null);

/** The device key of a browser known to have signed in as `personId` (its memo_device cookie), or null. */
export function knownDevice(db: Database.Database, cookie: string | null | undefined, personId: string): string | null {
  const secret = deviceSecretOf(cookie);
  if (!secret) return null;
  const hash = sha256(secret);
  const row = stmt(db, "SELECT 1 FROM login_devices WHERE secret_hash = ? AND person_id = ?").get(hash, personId);
  return row ? `d:${hash}` : null;
}

/**
 * After a successful sign-in: this browser is known for the person from now on. Keeps the browser's own
 * cookie when it sent one (one browser, one secret, whoever signs in on it), else makes one. Returns the
 * secret the cookie is to hold.
 */
export function rememberDevice(
  db: Database.Database,
  cookie: string | null | undefined,
  personId: string,
  now = Date.now(),
): string {
  const secret = deviceSecretOf(cookie) ?? crypto.randomBytes(32).toString("base64url");
  db.transaction(() => {
    stmt(
      db,
      `INSERT INTO login_devices (secret_hash, person_id, created_at, last_used_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (secret_hash, person_id) DO UPDATE SET last_used_at = excluded.last_used_at`,
    ).run(sha256(secret), personId, now, now);
    stmt(
      db,
      `DELETE FROM login_devices WHERE person_id = ? AND secret_hash NOT IN (
         SELECT secret_hash FROM login_devices WHERE person_id = ? ORDER BY last_used_at DESC LIMIT ${MAX_DEVICES_PER_PERSON})`,
    ).run(personId, personId);
  })();
  return secret;
}
