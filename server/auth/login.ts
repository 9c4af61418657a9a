import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { OWNER_ID } from "../core/space-name";
import {
  getPerson,
  personByLogin,
  personPasswordHash,
  setPersonPasswordHash,
  setPersonPasswordHashQuietly,
  type Person,
} from "./people";
import {
  DEFAULT_SCRYPT,
  hashPassword,
  needsRehash,
  passwordProblem,
  verifyPassword,
  type ScryptParams,
} from "./password";
import { accountHoldMs, LOGIN_POLICY, loginRetryAfterMs, type LoginPolicy } from "./rate-limit";
import {
  attemptStats,
  createSession,
  hasOwnerPassword,
  markAttemptFailedAt,
  markAttemptOk,
  ownerPasswordHash,
  pruneAttempts,
  recordAttempt,
  replaceOwnerPasswordHash,
  setOwnerPasswordHash,
  sha256,
} from "./store";

export type AuthFailure = { ok: false; status: 400 | 401 | 403 | 409 | 429; message: string; retryAfterS?: number };

/**
 * Check the owner password for one sign-in attempt, rate-limited (server/auth/rate-limit.ts): refused while
 * this address must wait, held a moment while the account sees many failures. The attempt is recorded as
 * failed before the (slow) check, so parallel guesses all count, and marked ok after.
 */
export async function checkOwnerPassword(
  db: Database.Database,
  password: string,
  ip: string,
  now = Date.now(),
  policy: LoginPolicy = LOGIN_POLICY,
  /** Parameters a weaker stored hash is upgraded to after a successful check. */
  rehashTo: ScryptParams = DEFAULT_SCRYPT,
): Promise<{ ok: true } | AuthFailure> {
  const hash = ownerPasswordHash(db);
  if (!hash)
    return { ok: false, status: 409, message: "no owner password is set; run `npm run set-password` on the server" };
  return checkPasswordAgainst(db, hash, password, ip, now, policy, rehashTo, (h) => replaceOwnerPasswordHash(db, h));
}

/** A hash no password matches, checked for an unknown sign-in name so that it costs what a known one does. */
let decoyHash: Promise<string> | null = null;

/**
 * Check a person's password (the owner's by `checkOwnerPassword`), with the same rate limit by address. An
 * unknown or disabled sign-in name costs a full check too and answers like a wrong password: whether a name
 * exists is not told.
 */
export async function checkPersonPassword(
  db: Database.Database,
  login: string,
  password: string,
  ip: string,
  now = Date.now(),
): Promise<{ ok: true; person: Person } | AuthFailure> {
  const person = personByLogin(db, login);
  if (person?.id === OWNER_ID) {
    const r = await checkOwnerPassword(db, password, ip, now);
    return r.ok ? { ok: true, person } : r;
  }
  const stored = person && !person.disabled ? personPasswordHash(db, person.id) : null;
  decoyHash ??= hashPassword(crypto.randomUUID());
  const hash = stored ?? (await decoyHash);
  const r = await checkPasswordAgainst(db, hash, password, ip, now, LOGIN_POLICY, DEFAULT_SCRYPT, (h) => {
    if (person) setPersonPasswordHashQuietly(db, person.id, h);
  });
  if (!r.ok) return r.status === 401 ? { ...r, message: "wrong sign-in name or password" } : r;
  if (!stored || !person) return { ok: false, status: 401, message: "wrong sign-in name or password" };
  return { ok: true, person };
}

async function checkPasswordAgainst(
  db: Database.Database,
  hash: string,
  password: string,
  ip: string,
  now: number,
  policy: LoginPolicy,
  rehashTo: ScryptParams,
  rehash: (h: string) => void,
): Promise<{ ok: true } | AuthFailure> {
  const stats = attemptStats(db, ip, policy.windowMs, now);
  const wait = loginRetryAfterMs(stats, now, policy);
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return {
      ok: false,
      status: 429,
      message: `too many failed sign-in attempts; try again in ${s} second${s === 1 ? "" : "s"}`,
      retryAfterS: s,
    };
  }
  const id = recordAttempt(db, ip, now);
  if (id % 100 === 0) pruneAttempts(db, 24 * 3_600_000, now);
  const t0 = performance.now();
  const hold = accountHoldMs(stats, now, policy);
  if (hold > 0) await new Promise((r) => setTimeout(r, hold));
  if (!(await verifyPassword(password, hash))) {
    markAttemptFailedAt(db, id, now + Math.round(performance.now() - t0));
    return { ok: false, status: 401, message: "wrong password" };
  }
  markAttemptOk(db, id);
  if (needsRehash(hash, rehashTo)) rehash(await hashPassword(password, rehashTo));
  return { ok: true };
}

/** Sign in: `{ password }` alone is the owner (as before people existed), `{ login, password }` anyone. */
export async function signIn(
  db: Database.Database,
  input: { login?: string; password: string; ip: string; userAgent?: string | null },
  now = Date.now(),
): Promise<
  { ok: true; token: string; expiresAt: string; personId: string; mustChangePassword: boolean } | AuthFailure
> {
  let personId = OWNER_ID;
  let mustChangePassword = false;
  if (input.login === undefined) {
    const checked = await checkOwnerPassword(db, input.password, input.ip, now);
    if (!checked.ok) return checked;
  } else {
    const checked = await checkPersonPassword(db, input.login, input.password, input.ip, now);
    if (!checked.ok) return checked;
    personId = checked.person.id;
    mustChangePassword = checked.person.mustChangePassword;
  }
  return {
    ok: true,
    personId,
    mustChangePassword,
    ...createSession(db, { ip: input.ip, userAgent: input.userAgent, personId }, now),
  };
}

/**
 * A person other than the owner changes their own password: the current one is checked (rate-limited like
 * a sign-in), the must-change flag clears, and their other sessions and tokens end (this session stays).
 */
export async function changePersonPassword(
  db: Database.Database,
  input: { personId: string; current: string; password: string; ip: string; keepSession?: string },
): Promise<{ ok: true } | AuthFailure> {
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, status: 400, message: problem };
  const person = getPerson(db, input.personId);
  if (!person || person.id === OWNER_ID)
    return { ok: false, status: 400, message: "the owner changes the owner password" };
  const checked = await checkPersonPassword(db, person.login, input.current, input.ip);
  if (!checked.ok) return checked.status === 401 ? { ...checked, message: "the current password is wrong" } : checked;
  setPersonPasswordHash(
    db,
    person.id,
    await hashPassword(input.password),
    false,
    input.keepSession ? sha256(input.keepSession) : undefined,
  );
  return { ok: true };
}

/**
 * Set or change the owner password. Changing needs the current one (rate-limited like a sign-in); setting
 * the first one from the web is allowed only while no sign-in is required (loopback), i.e. by someone at
 * the machine. Unless asked not to, every other session is signed out and every API token revoked.
 */
export async function changeOwnerPassword(
  db: Database.Database,
  input: {
    current?: string;
    password: string;
    ip: string;
    keepSession?: string;
    loginRequired: boolean;
    /** Sign out every other session and revoke every API token (default: yes). */
    revokeOthers?: boolean;
  },
): Promise<{ ok: true; sessionsRevoked: number; tokensRevoked: number } | AuthFailure> {
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, status: 400, message: problem };
  if (hasOwnerPassword(db)) {
    if (!input.current) return { ok: false, status: 400, message: "enter the current password" };
    const checked = await checkOwnerPassword(db, input.current, input.ip);
    if (!checked.ok) return checked.status === 401 ? { ...checked, message: "the current password is wrong" } : checked;
  } else if (input.loginRequired) {
    return { ok: false, status: 403, message: "set the first password on the server with `npm run set-password`" };
  }
  const revoked = setOwnerPasswordHash(
    db,
    await hashPassword(input.password),
    input.keepSession,
    input.revokeOthers ?? true,
  );
  return { ok: true, ...revoked };
}
