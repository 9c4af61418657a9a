import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { openTempStore, type TempStore } from "../test/temp-store";
import { changeOwnerPassword, checkOwnerPassword, signIn } from "./login";
import { hashPassword, verifyPassword } from "./password";
import { accountHoldMs, LOGIN_POLICY, loginRetryAfterMs } from "./rate-limit";
import {
  createApiToken,
  createSession,
  listApiTokens,
  ownerPasswordHash,
  revokeApiToken,
  sessionFromToken,
  setOwnerPasswordHash,
  sha256,
  tokenFromBearer,
} from "./store";

const CHEAP = { log2N: 10, r: 8, p: 1 };
const PW = "open sesame 42";
let s: TempStore;

beforeEach(async () => {
  s = openTempStore();
  setOwnerPasswordHash(s.sqlite, await hashPassword(PW, CHEAP));
});
afterEach(() => s.close());

const T0 = Date.parse("2026-01-01T00:00:00Z");
/** The HTTP status of a failed result (0 when it succeeded). */
const statusOf = (r: { ok: boolean; status?: number }) => (r.ok ? 0 : (r.status ?? 0));

test("backoff policy: 5 free failures per address, then 1 s, 2 s, 4 s … capped at 15 min", () => {
  const stats = (n: number, last: number) => ({
    ipFailures: n,
    ipLastFailure: last,
    globalFailures: n,
    globalLastFailure: last,
  });
  assert.equal(loginRetryAfterMs(stats(4, T0), T0), 0);
  assert.equal(loginRetryAfterMs(stats(5, T0), T0), 1000);
  assert.equal(loginRetryAfterMs(stats(6, T0), T0 + 500), 1500);
  assert.equal(loginRetryAfterMs(stats(8, T0), T0), 8000);
  assert.equal(loginRetryAfterMs(stats(40, T0), T0), LOGIN_POLICY.maxDelayMs);
  // The account: failures from every address only hold an attempt back, and briefly.
  const many = { ipFailures: 0, ipLastFailure: null, globalFailures: 52, globalLastFailure: T0 };
  assert.equal(loginRetryAfterMs(many, T0), 0, "other addresses' failures never refuse this one");
  assert.equal(accountHoldMs({ ...many, globalFailures: 49 }, T0), 0);
  assert.equal(accountHoldMs({ ...many, globalFailures: 50 }, T0 + 200), 800);
  assert.equal(accountHoldMs({ ...many, globalFailures: 5000 }, T0), LOGIN_POLICY.accountMaxHoldMs);
});

test("sign-in: wrong passwords are rate limited per address with backoff, the right one is refused while waiting", async () => {
  const db = s.sqlite;
  for (let i = 0; i < 5; i++) {
    const r = await checkOwnerPassword(db, `guess ${i}`, "10.0.0.9", T0 + i);
    assert.deepEqual(r, { ok: false, status: 401, message: "wrong password" });
  }
  const blocked = await checkOwnerPassword(db, PW, "10.0.0.9", T0 + 500);
  assert.equal(blocked.ok, false);
  assert.equal(!blocked.ok && blocked.status, 429);
  assert.equal(!blocked.ok && blocked.retryAfterS, 1);
  assert.match(!blocked.ok ? blocked.message : "", /too many failed sign-in attempts; try again in 1 second/);
  // Another address is not affected by this one's failures.
  assert.deepEqual(await checkOwnerPassword(db, PW, "10.0.0.10", T0 + 501, LOGIN_POLICY, CHEAP), { ok: true });
  // After the wait (counted from when the 5th failure was answered), the 6th failure doubles it. (Margins of
  // ~0.5 s absorb the time the checks themselves take, which moves each failure's time forward.)
  assert.equal(statusOf(await checkOwnerPassword(db, "guess 6", "10.0.0.9", T0 + 1500)), 401);
  const r = await checkOwnerPassword(db, PW, "10.0.0.9", T0 + 2000);
  assert.equal(!r.ok && r.status, 429);
  assert.equal(!r.ok && r.retryAfterS, 2);
  // Success resets the address's count.
  assert.deepEqual(await checkOwnerPassword(db, PW, "10.0.0.9", T0 + 4000, LOGIN_POLICY, CHEAP), { ok: true });
  assert.equal(statusOf(await checkOwnerPassword(db, "one more miss", "10.0.0.9", T0 + 4100)), 401);
  assert.equal(statusOf(await checkOwnerPassword(db, "and another", "10.0.0.9", T0 + 4200)), 401);
});

test("sign-in: 51 wrong passwords from other addresses never lock the owner out of a fresh address (issue 33 item 8)", async () => {
  const db = s.sqlite;
  for (let i = 0; i <= LOGIN_POLICY.accountFree; i++)
    assert.equal(
      statusOf(await checkOwnerPassword(db, "x", `10.1.${i >> 8}.${i & 255}`, T0 + i, LOGIN_POLICY, CHEAP)),
      401,
    );
  // The account's failures hold the attempt back (at most accountMaxHoldMs), then it is checked.
  const t = performance.now();
  assert.deepEqual(await checkOwnerPassword(db, PW, "192.168.1.50", T0 + 100, LOGIN_POLICY, CHEAP), { ok: true });
  const waited = performance.now() - t;
  assert.ok(waited >= 1000 && waited < LOGIN_POLICY.accountMaxHoldMs + 3000, `held ${waited} ms`);
  // The attacker's own addresses are still limited one by one.
  for (let i = 0; i < 5; i++) await checkOwnerPassword(db, `guess ${i}`, "10.9.9.9", T0 + 200 + i, LOGIN_POLICY, CHEAP);
  assert.equal(statusOf(await checkOwnerPassword(db, PW, "10.9.9.9", T0 + 300, LOGIN_POLICY, CHEAP)), 429);
});

test("sign-in: parallel guesses get no more tries (each is recorded before the slow check)", async () => {
  const db = s.sqlite;
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => checkOwnerPassword(db, `par ${i}`, "10.0.0.77", T0)),
  );
  assert.equal(results.filter((r) => !r.ok && r.status === 401).length, 5, "the free five are checked");
  assert.equal(results.filter((r) => !r.ok && r.status === 429).length, 7, "the rest are refused unchecked");
  const n = (
    db.prepare("SELECT count(*) AS n FROM login_attempts WHERE ip = '10.0.0.77' AND ok = 0").get() as { n: number }
  ).n;
  assert.equal(n, 5);
  assert.equal(statusOf(await checkOwnerPassword(db, PW, "10.0.0.77", T0 + 1)), 429);
});

test("a successful sign-in re-hashes a weak stored hash with today's parameters", async () => {
  const before = ownerPasswordHash(s.sqlite)!;
  assert.match(before, /^scrypt\$10\$/);
  assert.deepEqual(await checkOwnerPassword(s.sqlite, PW, "127.0.0.1"), { ok: true });
  const after = ownerPasswordHash(s.sqlite)!;
  assert.match(after, /^scrypt\$17\$8\$1\$/);
  assert.equal(await verifyPassword(PW, after), true);
});

test("sessions: only the hash is stored; lookup, sliding expiry, expiry and password change", async () => {
  const db = s.sqlite;
  const r = await signIn(db, { password: PW, ip: "127.0.0.1", userAgent: "test" }, T0);
  assert.ok(r.ok);
  const token = r.ok ? r.token : "";
  assert.ok(token.length >= 43);
  const rows = db.prepare("SELECT id_hash FROM auth_sessions").all() as { id_hash: string }[];
  assert.deepEqual(rows, [{ id_hash: sha256(token) }]);
  assert.ok(sessionFromToken(db, token, T0 + 1000));
  assert.equal(sessionFromToken(db, `${token}x`, T0), null);
  assert.equal(sessionFromToken(db, sha256(token), T0), null, "the stored hash is not a credential");
  // Used after a day: its expiry slides to 30 days from then.
  const later = sessionFromToken(db, token, T0 + 86_400_000)!;
  assert.equal(later.expiresAt, new Date(T0 + 31 * 86_400_000).toISOString());
  assert.equal(sessionFromToken(db, token, T0 + 62 * 86_400_000), null, "expired");
  // A password change signs out every other session, keeping the one that made it, and revokes every API
  // token (issue 33 item 9: a token or session got with the old password does not outlive it).
  const a = createSession(db, {}).token;
  const b = createSession(db, {}).token;
  const apiToken = createApiToken(db, "made before the change").token;
  const changed = await changeOwnerPassword(db, {
    current: PW,
    password: "a brand new secret",
    ip: "127.0.0.1",
    keepSession: a,
    loginRequired: true,
  });
  assert.deepEqual(changed, { ok: true, sessionsRevoked: 1, tokensRevoked: 1 });
  assert.ok(sessionFromToken(db, a));
  assert.equal(sessionFromToken(db, b), null);
  assert.equal(tokenFromBearer(db, apiToken), null);
});

test("password change: the person may keep the other sessions and API tokens (the box unticked)", async () => {
  const db = s.sqlite;
  const other = createSession(db, {}).token;
  const apiToken = createApiToken(db, "kept").token;
  const changed = await changeOwnerPassword(db, {
    current: PW,
    password: "a brand new secret",
    ip: "127.0.0.1",
    loginRequired: true,
    revokeOthers: false,
  });
  assert.deepEqual(changed, { ok: true, sessionsRevoked: 0, tokensRevoked: 0 });
  assert.ok(sessionFromToken(db, other));
  assert.ok(tokenFromBearer(db, apiToken));
});

test("password change needs the current password; the first one may be set from the web only on loopback", async () => {
  const db = s.sqlite;
  assert.deepEqual(await changeOwnerPassword(db, { password: "new password!", ip: "1.1.1.1", loginRequired: true }), {
    ok: false,
    status: 400,
    message: "enter the current password",
  });
  assert.equal(
    statusOf(
      await changeOwnerPassword(db, { current: "nope", password: "new password!", ip: "1.1.1.1", loginRequired: true }),
    ),
    401,
  );
  assert.equal(
    statusOf(await changeOwnerPassword(db, { current: PW, password: "short", ip: "1.1.1.1", loginRequired: true })),
    400,
  );
  db.prepare("DELETE FROM auth_owner").run();
  assert.equal(
    statusOf(await changeOwnerPassword(db, { password: "first password", ip: "1.1.1.1", loginRequired: true })),
    403,
  );
  assert.deepEqual(
    await changeOwnerPassword(db, { password: "first password", ip: "127.0.0.1", loginRequired: false }),
    { ok: true, sessionsRevoked: 0, tokensRevoked: 0 },
  );
  assert.equal(await verifyPassword("first password", ownerPasswordHash(db)!), true);
});

test("API tokens: the secret is shown once and stored as a hash; revoked tokens stop working", () => {
  const db = s.sqlite;
  const t = createApiToken(db, "laptop scripts");
  assert.match(t.token, /^memo_[A-Za-z0-9_-]{43}$/);
  assert.equal(t.prefix, t.token.slice(0, 11));
  const stored = db.prepare("SELECT * FROM api_tokens").all() as Record<string, unknown>[];
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.token_hash, sha256(t.token));
  assert.ok(!JSON.stringify(stored).includes(t.token), "the token itself is not stored");
  assert.ok(!JSON.stringify(listApiTokens(db)).includes(t.token), "nor listed");
  assert.equal(tokenFromBearer(db, t.token)?.id, t.id);
  assert.ok(listApiTokens(db)[0]!.lastUsedAt, "use is recorded");
  // A different last character (flipping to a fixed "A" would equal the token 1 time in 64).
  assert.equal(tokenFromBearer(db, t.token.slice(0, -1) + (t.token.endsWith("A") ? "B" : "A")), null);
  assert.equal(tokenFromBearer(db, "memo_"), null);
  assert.equal(revokeApiToken(db, t.id), true);
  assert.equal(revokeApiToken(db, t.id), false, "already revoked");
  assert.equal(tokenFromBearer(db, t.token), null);
  assert.ok(listApiTokens(db)[0]!.revokedAt);
});

test("no owner password: sign-in says how to set one", async () => {
  s.sqlite.prepare("DELETE FROM auth_owner").run();
  const r = await signIn(s.sqlite, { password: PW, ip: "1.2.3.4" });
  assert.equal(!r.ok && r.status, 409);
  assert.match(!r.ok ? r.message : "", /npm run set-password/);
});
