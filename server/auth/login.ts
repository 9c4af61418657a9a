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
import { holdRemaining, LOGIN_POLICY, type LoginPolicy } from "./rate-limit";
import {
  accountFailures,
  addressFailures,
  deviceFailures,
  knownDevice,
  markAttemptFailedAt,
  markAttemptOk,
  pruneAttempts,
  recordAttempt,
  rememberDevice,
  unknownAccount,
  type AttemptSource,
} from "./sign-in-attempts";
import {
  createSession,
  hasOwnerPassword,
  ownerPasswordHash,
  replaceOwnerPasswordHash,
  sessionFromToken,
  setOwnerPasswordHash,
  sha256,
} from "./store";

export type AuthFailure = { ok: false; status: 400 | 401 | 403 | 409 | 429; message: string; retryAfterS?: number };

/**
 * The one answer to every failed sign-in (issue 43, finding 6): a wrong password, a sign-in name nobody
 * has, a disabled person, the owner's name — nothing in it tells which.
 */
export const SIGN_IN_FAILED = "wrong sign-in name or password";

/** Where a sign-in attempt comes from: its address, and the browser's memo_device and memo_session cookies. */
export interface SignInSource {
  ip: string;
  deviceCookie?: string | null;
  sessionToken?: string | null;
}

/**
 * The known device of `personId` an attempt comes from: a browser that signed in as them before (its
 * memo_device cookie), else a live session of theirs (someone signed in, changing their password or signing
 * in again). Null when neither: the attempt is then held by its address's and the account's counters.
 */
function knownSourceOf(db: Database.Database, personId: string, src: SignInSource, now: number): string | null {
  const device = knownDevice(db, src.deviceCookie, personId);
  if (device) return device;
  const session = src.sessionToken ? sessionFromToken(db, src.sessionToken, now) : null;
  return session?.personId === personId ? `s:${session.idHash}` : null;
}

/**
 * Check the owner password for one attempt (`{ password }` alone, and the owner password change), throttled
 * (server/auth/rate-limit.ts) as the owner's account.
 */
export async function checkOwnerPassword(
  db: Database.Database,
  password: string,
  src: SignInSource,
  now = Date.now(),
  policy: LoginPolicy = LOGIN_POLICY,
  /** Parameters a weaker stored hash is upgraded to after a successful check. */
  rehashTo: ScryptParams = DEFAULT_SCRYPT,
): Promise<{ ok: true } | AuthFailure> {
  const hash = ownerPasswordHash(db);
  if (!hash)
    return { ok: false, status: 409, message: "no owner password is set; run `npm run set-password` on the server" };
  const attempt = { ip: src.ip, account: OWNER_ID, device: knownSourceOf(db, OWNER_ID, src, now) };
  return checkPasswordAgainst(db, hash, password, attempt, now, policy, rehashTo, (h) =>
    replaceOwnerPasswordHash(db, h),
  );
}

/** A hash no password matches, checked for an unknown sign-in name so that it costs what a known one does. */
let decoyHash: Promise<string> | null = null;

/**
 * Check a person's password by sign-in name, the owner's included, throttled as that person's account. An
 * unknown or disabled name costs a full check too, is throttled like any account (under a hash of the name)
 * and answers exactly like a wrong password: whether a name exists, and whose it is, is not told.
 */
export async function checkPersonPassword(
  db: Database.Database,
  login: string,
  password: string,
  src: SignInSource,
  now = Date.now(),
  policy: LoginPolicy = LOGIN_POLICY,
  rehashTo: ScryptParams = DEFAULT_SCRYPT,
): Promise<{ ok: true; person: Person } | AuthFailure> {
  const person = personByLogin(db, login);
  const stored =
    !person || person.disabled
      ? null
      : person.id === OWNER_ID
        ? ownerPasswordHash(db)
        : personPasswordHash(db, person.id);
  decoyHash ??= hashPassword(crypto.randomUUID());
  const hash = stored ?? (await decoyHash);
  const attempt = person
    ? { ip: src.ip, account: person.id, device: knownSourceOf(db, person.id, src, now) }
    : { ip: src.ip, account: unknownAccount(login), device: null };
  const r = await checkPasswordAgainst(db, hash, password, attempt, now, policy, rehashTo, (h) => {
    if (person?.id === OWNER_ID) replaceOwnerPasswordHash(db, h);
    else if (person) setPersonPasswordHashQuietly(db, person.id, h);
  });
  if (!r.ok) return r;
  if (!stored || !person) return { ok: false, status: 401, message: SIGN_IN_FAILED };
  return { ok: true, person };
}

async function checkPasswordAgainst(
  db: Database.Database,
  hash: string,
  password: string,
  attempt: AttemptSource,
  now: number,
  policy: LoginPolicy,
  rehashTo: ScryptParams,
  rehash: (h: string) => void,
): Promise<{ ok: true } | AuthFailure> {
  const since = now - policy.windowMs;
  const counters = attempt.device
    ? [deviceFailures(db, attempt.account, attempt.device, since)]
    : [addressFailures(db, attempt.ip, since), accountFailures(db, attempt.account, since)];
  const wait = Math.max(...counters.map((c) => holdRemaining(c, now, policy)));
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    return {
      ok: false,
      status: 429,
      message: `too many failed sign-in attempts; try again in ${s} second${s === 1 ? "" : "s"}`,
      retryAfterS: s,
    };
  }
  const id = recordAttempt(db, attempt, now);
  if (id % 100 === 0) pruneAttempts(db, policy.windowMs, now);
  const t0 = performance.now();
  if (!(await verifyPassword(password, hash))) {
    markAttemptFailedAt(db, id, now + Math.round(performance.now() - t0));
    return { ok: false, status: 401, message: SIGN_IN_FAILED };
  }
  markAttemptOk(db, id);
  if (needsRehash(hash, rehashTo)) rehash(await hashPassword(password, rehashTo));
  return { ok: true };
}

/**
 * Sign in: `{ password }` alone is the owner (as before people existed), `{ login, password }` anyone. A
 * success makes the browser a known device of the person (`deviceCookie`: what its memo_device cookie is to
 * hold from now on).
 */
export async function signIn(
  db: Database.Database,
  input: SignInSource & { login?: string; password: string; userAgent?: string | null },
  now = Date.now(),
  policy: LoginPolicy = LOGIN_POLICY,
  rehashTo: ScryptParams = DEFAULT_SCRYPT,
): Promise<
  | {
      ok: true;
      token: string;
      expiresAt: string;
      personId: string;
      mustChangePassword: boolean;
      deviceCookie: string;
    }
  | AuthFailure
> {
  let personId = OWNER_ID;
  let mustChangePassword = false;
  if (input.login === undefined) {
    const checked = await checkOwnerPassword(db, input.password, input, now, policy, rehashTo);
    if (!checked.ok) return checked;
  } else {
    const checked = await checkPersonPassword(db, input.login, input.password, input, now, policy, rehashTo);
    if (!checked.ok) return checked;
    personId = checked.person.id;
    mustChangePassword = checked.person.mustChangePassword;
  }
  return {
    ok: true,
    personId,
    mustChangePassword,
    deviceCookie: rememberDevice(db, input.deviceCookie, personId, now),
    ...createSession(db, { ip: input.ip, userAgent: input.userAgent, personId }, now),
  };
}

/**
 * A person other than the owner changes their own password: the current one is checked (rate-limited like
 * a sign-in), the must-change flag clears, and their other sessions and tokens end (this session stays).
 */
export async function changePersonPassword(
  db: Database.Database,
  input: { personId: string; current: string; password: string; keepSession?: string } & SignInSource,
): Promise<{ ok: true } | AuthFailure> {
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, status: 400, message: problem };
  const person = getPerson(db, input.personId);
  if (!person || person.id === OWNER_ID)
    return { ok: false, status: 400, message: "the owner changes the owner password" };
  const checked = await checkPersonPassword(db, person.login, input.current, input);
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
    keepSession?: string;
    loginRequired: boolean;
    /** Sign out every other session and revoke every API token (default: yes). */
    revokeOthers?: boolean;
  } & SignInSource,
): Promise<{ ok: true; sessionsRevoked: number; tokensRevoked: number } | AuthFailure> {
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, status: 400, message: problem };
  if (hasOwnerPassword(db)) {
    if (!input.current) return { ok: false, status: 400, message: "enter the current password" };
    const checked = await checkOwnerPassword(db, input.current, input);
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
