import type { FailureCount } from "./sign-in-attempts";

/**
 * Sign-in throttling (issue 43, finding 3): a growing hold per target account and per client address.
 *
 * Three counters of standing failures (server/auth/sign-in-attempts.ts: a failure stands until a success
 * of the same account from the same address or known device explains it):
 *  - the address: failures from it against any account;
 *  - the account: failures against it from every address (an attacker rotating addresses);
 *  - a known device of the account: failures from that browser (or signed-in session) alone.
 * An attempt from a device known for the account it tries is held by that device's counter only; any other
 * attempt by both the address's and the account's. Past `free` failures within the window each counter
 * holds further attempts for base·2^(failures − free) after its latest failure, capped at `maxDelayMs`;
 * a held attempt is refused (429, Retry-After) without checking the password, so it costs nothing.
 *
 * So guesses of alice's password meet a 429 by the sixth, from one address or many, whoever else signs in
 * between; and alice still signs in from a browser she signed in from before, whose failures are its own.
 */
export interface LoginPolicy {
  /** Failures older than this no longer count (they are pruned after it too). */
  windowMs: number;
  /** Failures each counter allows before it holds. */
  free: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const LOGIN_POLICY: LoginPolicy = {
  windowMs: 24 * 3_600_000,
  free: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
};

/** How long (ms) a counter with this many failures holds after its latest one: 0, then 1 s, 2 s, 4 s … capped. */
export function holdAfter(failures: number, p: LoginPolicy = LOGIN_POLICY): number {
  if (failures < p.free) return 0;
  return Math.min(p.baseDelayMs * 2 ** Math.min(failures - p.free, 30), p.maxDelayMs);
}

/** How long (ms) from `now` a counter still holds; 0 when an attempt may go ahead. */
export function holdRemaining(c: FailureCount, now: number, p: LoginPolicy = LOGIN_POLICY): number {
  const hold = holdAfter(c.failures, p);
  return c.lastFailure === null || hold === 0 ? 0 : Math.max(0, c.lastFailure + hold - now);
}
