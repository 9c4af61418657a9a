import type { AttemptStats } from "./store";

/**
 * Sign-in rate limiting: a refusal with exponential backoff per client address, and a short hold for the
 * account as a whole.
 *
 * Per address: the first `ipFree` failures (since its last success, within the window) cost nothing; after
 * that each further attempt must wait 2^(failures − ipFree) seconds after the previous failure, capped at
 * `maxDelayMs`. While that wait applies, the attempt is refused (429) without checking the password, so a
 * guess costs the attacker time and costs the server nothing.
 *
 * For the account (all addresses together, which covers an attacker rotating addresses): past
 * `accountFree` failures in the window, every attempt is held back before its check, 2^(failures −
 * accountFree) seconds after the latest failure but never more than `accountMaxHoldMs`. It slows guessing
 * from many addresses and never refuses: nobody else's failures can keep the owner out (issue 33 item 8).
 */
export interface LoginPolicy {
  windowMs: number;
  ipFree: number;
  baseDelayMs: number;
  maxDelayMs: number;
  accountFree: number;
  accountMaxHoldMs: number;
}

export const LOGIN_POLICY: LoginPolicy = {
  windowMs: 15 * 60_000,
  ipFree: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
  accountFree: 50,
  accountMaxHoldMs: 2000,
};

function delayFor(failures: number, free: number, p: LoginPolicy, cap: number): number {
  if (failures < free) return 0;
  return Math.min(p.baseDelayMs * 2 ** Math.min(failures - free, 30), cap);
}

const remaining = (last: number | null, delay: number, now: number) =>
  last === null || delay === 0 ? 0 : Math.max(0, last + delay - now);

/** How long (ms) before this address may try again; 0 when it may try now. */
export function loginRetryAfterMs(s: AttemptStats, now: number, p: LoginPolicy = LOGIN_POLICY): number {
  return remaining(s.ipLastFailure, delayFor(s.ipFailures, p.ipFree, p, p.maxDelayMs), now);
}

/** How long (ms) to hold this attempt before checking it, for the account's recent failures (≤ accountMaxHoldMs). */
export function accountHoldMs(s: AttemptStats, now: number, p: LoginPolicy = LOGIN_POLICY): number {
  return remaining(s.globalLastFailure, delayFor(s.globalFailures, p.accountFree, p, p.accountMaxHoldMs), now);
}
