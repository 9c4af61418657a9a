import type { AttemptStats } from "./store";

/**
 * Sign-in rate limiting with exponential backoff, per client address and for the whole instance.
 *
 * Per address: the first `ipFree` failures (since its last success, within the window) cost nothing; after
 * that each further attempt must wait 2^(failures − ipFree) seconds after the previous failure, capped at
 * `maxDelayMs`. Globally (all addresses together, which also covers an attacker rotating addresses): the
 * same with a larger allowance. While a wait applies, the attempt is refused without checking the password,
 * so a guess costs the attacker time and costs the server nothing.
 */
export interface LoginPolicy {
  windowMs: number;
  ipFree: number;
  globalFree: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const LOGIN_POLICY: LoginPolicy = {
  windowMs: 15 * 60_000,
  ipFree: 5,
  globalFree: 50,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
};

function delayFor(failures: number, free: number, p: LoginPolicy): number {
  if (failures < free) return 0;
  return Math.min(p.baseDelayMs * 2 ** Math.min(failures - free, 30), p.maxDelayMs);
}

/** How long (ms) before the next attempt may be made; 0 when it may be made now. */
export function loginRetryAfterMs(s: AttemptStats, now: number, p: LoginPolicy = LOGIN_POLICY): number {
  const wait = (last: number | null, delay: number) => (last === null || delay === 0 ? 0 : last + delay - now);
  return Math.max(
    0,
    wait(s.ipLastFailure, delayFor(s.ipFailures, p.ipFree, p)),
    wait(s.globalLastFailure, delayFor(s.globalFailures, p.globalFree, p)),
  );
}
