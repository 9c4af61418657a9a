import type Database from "better-sqlite3";
import { holdRemaining, LOGIN_POLICY, type LoginPolicy } from "./rate-limit";
import {
  accountFailures,
  addressFailures,
  isUnknownAccount,
  standingFailures,
  type StandingFailures,
} from "./sign-in-attempts";

/**
 * What an admin sees of failed sign-ins (Settings → People, GET /api/v1/people): per account the standing
 * failures (those no success of the account from the same place has explained) within the throttle's
 * window, the latest, until when the account holds attempts from new browsers, and each address the
 * failures came from with its own hold. Sign-in names nobody has are summed into one entry: their names are
 * kept only as hashes (people type passwords into the name box).
 */
export interface AddressFailures {
  address: string;
  /** Failures from this address against this account. */
  failures: number;
  lastFailureAt: string;
  /** Until when this address is refused (its failures against every account), or null. */
  heldUntil: string | null;
}

export interface SignInFailures {
  /** Failures from browsers not known for the account: what holds the account. */
  failures: number;
  /** Failures from the account's own known browsers (each holds only that browser). */
  knownDeviceFailures: number;
  lastFailureAt: string | null;
  /** Until when attempts from browsers not known for the account are refused, or null. */
  heldUntil: string | null;
  addresses: AddressFailures[];
}

export const NO_FAILURES: SignInFailures = {
  failures: 0,
  knownDeviceFailures: 0,
  lastFailureAt: null,
  heldUntil: null,
  addresses: [],
};

const iso = (ms: number) => new Date(ms).toISOString();
const until = (remaining: number, now: number) => (remaining > 0 ? iso(now + remaining) : null);

export function signInFailureReport(
  db: Database.Database,
  now = Date.now(),
  policy: LoginPolicy = LOGIN_POLICY,
): { byAccount: Map<string, SignInFailures>; unknownNames: SignInFailures & { names: number } } {
  const since = now - policy.windowMs;
  const rows = standingFailures(db, since);
  const addressHold = new Map<string, string | null>();
  const holdOf = (ip: string) => {
    if (!addressHold.has(ip))
      addressHold.set(ip, until(holdRemaining(addressFailures(db, ip, since), now, policy), now));
    return addressHold.get(ip)!;
  };
  const summarise = (group: StandingFailures[], accountHeld: string | null): SignInFailures => {
    const addresses = new Map<string, AddressFailures>();
    let failures = 0;
    let knownDeviceFailures = 0;
    let last = 0;
    for (const r of group) {
      last = Math.max(last, r.lastFailure);
      if (r.known) {
        knownDeviceFailures += r.failures;
        continue;
      }
      failures += r.failures;
      const a = addresses.get(r.ip) ?? { address: r.ip, failures: 0, lastFailureAt: iso(0), heldUntil: holdOf(r.ip) };
      a.failures += r.failures;
      if (Date.parse(a.lastFailureAt) < r.lastFailure) a.lastFailureAt = iso(r.lastFailure);
      addresses.set(r.ip, a);
    }
    return {
      failures,
      knownDeviceFailures,
      lastFailureAt: last ? iso(last) : null,
      heldUntil: accountHeld,
      addresses: [...addresses.values()].sort((x, y) => y.lastFailureAt.localeCompare(x.lastFailureAt)),
    };
  };
  const groups = new Map<string, StandingFailures[]>();
  for (const r of rows) {
    const key = isUnknownAccount(r.account) ? "?" : r.account;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const byAccount = new Map<string, SignInFailures>();
  for (const [account, group] of groups)
    if (account !== "?")
      byAccount.set(
        account,
        summarise(group, until(holdRemaining(accountFailures(db, account, since), now, policy), now)),
      );
  const unknown = groups.get("?") ?? [];
  // Each unknown name holds on its own; the summary says whether any of them holds now.
  const names = [...new Set(unknown.map((r) => r.account))];
  const held = names
    .map((n) => until(holdRemaining(accountFailures(db, n, since), now, policy), now))
    .filter((x): x is string => x !== null)
    .sort()
    .at(-1);
  return { byAccount, unknownNames: { ...summarise(unknown, held ?? null), names: names.length } };
}
