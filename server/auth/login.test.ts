import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { openTempStore, type TempStore } from "../test/temp-store";
import { changeOwnerPassword, checkOwnerPassword, checkPersonPassword, SIGN_IN_FAILED, signIn } from "./login";
import { hashPassword, verifyPassword } from "./password";
import { createPerson, setPersonDisabled } from "./people";
import { holdAfter, holdRemaining, LOGIN_POLICY } from "./rate-limit";
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

const at = (ip: string) => ({ ip });

test("the hold grows: 5 free failures, then 1 s, 2 s, 4 s … after the latest one, capped at 15 min", () => {
  for (let n = 0; n < 5; n++) assert.equal(holdAfter(n), 0);
  assert.deepEqual(
    [5, 6, 7, 8, 9, 10, 14].map((n) => holdAfter(n)),
    [1000, 2000, 4000, 8000, 16_000, 32_000, 512_000],
  );
  assert.equal(holdAfter(15), LOGIN_POLICY.maxDelayMs, "2^10 s is past the cap");
  assert.equal(holdAfter(5000), LOGIN_POLICY.maxDelayMs);
  assert.equal(holdRemaining({ failures: 4, lastFailure: T0 }, T0), 0);
  assert.equal(holdRemaining({ failures: 6, lastFailure: T0 }, T0 + 500), 1500);
  assert.equal(holdRemaining({ failures: 6, lastFailure: T0 }, T0 + 2500), 0);
  assert.equal(holdRemaining({ failures: 0, lastFailure: null }, T0), 0);
});

test("sign-in: wrong passwords hold the address and the account, each failure doubling the hold; a refusal checks nothing", async () => {
  const db = s.sqlite;
  for (let i = 0; i < 5; i++) {
    const r = await checkOwnerPassword(db, `guess ${i}`, at("10.0.0.9"), T0 + i);
    assert.deepEqual(r, { ok: false, status: 401, message: SIGN_IN_FAILED });
  }
  const blocked = await checkOwnerPassword(db, PW, at("10.0.0.9"), T0 + 500);
  assert.equal(!blocked.ok && blocked.status, 429);
  assert.equal(!blocked.ok && blocked.retryAfterS, 1);
  assert.match(!blocked.ok ? blocked.message : "", /too many failed sign-in attempts; try again in 1 second/);
  // The account is held from another address too: rotating addresses gains nothing.
  assert.equal(statusOf(await checkOwnerPassword(db, PW, at("10.0.0.10"), T0 + 501)), 429);
  // After the wait (counted from when the 5th failure was answered), the 6th failure doubles it. (Margins of
  // ~0.5 s absorb the time the checks themselves take, which moves each failure's time forward.)
  assert.equal(statusOf(await checkOwnerPassword(db, "guess 6", at("10.0.0.9"), T0 + 1500)), 401);
  const r = await checkOwnerPassword(db, PW, at("10.0.0.9"), T0 + 2000);
  assert.equal(!r.ok && r.status, 429);
  assert.equal(!r.ok && r.retryAfterS, 2);
  // The owner's own success from that address explains its failures there: both counters are clear again.
  assert.deepEqual(await checkOwnerPassword(db, PW, at("10.0.0.9"), T0 + 4000, LOGIN_POLICY, CHEAP), { ok: true });
  assert.equal(statusOf(await checkOwnerPassword(db, "one more miss", at("10.0.0.11"), T0 + 4100)), 401);
});

test("sign-in: another account's success clears nothing — the attacker's own sign-in as bob never helps against alice", async () => {
  const db = s.sqlite;
  const bob = createPerson(db, {
    name: "Bob",
    login: "bob",
    role: "member",
    passwordHash: await hashPassword("bob's password", CHEAP),
  });
  createPerson(db, {
    name: "Alice",
    login: "alice",
    role: "member",
    passwordHash: await hashPassword("alice's password", CHEAP),
  });
  const guess = (i: number, ip = "10.0.0.9") => checkPersonPassword(db, "alice", `guess ${i}`, at(ip), T0 + i * 10);
  for (let i = 0; i < 4; i++) {
    assert.equal(statusOf(await guess(i)), 401);
    const asBob = await checkPersonPassword(
      db,
      "bob",
      "bob's password",
      at("10.0.0.9"),
      T0 + i * 10 + 5,
      LOGIN_POLICY,
      CHEAP,
    );
    assert.equal(asBob.ok && asBob.person.id, bob.id);
  }
  assert.equal(statusOf(await guess(4)), 401, "the fifth is still free");
  assert.equal(statusOf(await guess(5)), 429, "the address holds, bob's sign-ins notwithstanding");
  assert.equal(statusOf(await guess(6, "10.0.0.99")), 429, "and so does alice's account, from anywhere");
  // bob's own account is not alice's: from a clean address bob signs in; from the attacker's address, held.
  assert.equal(
    statusOf(await checkPersonPassword(db, "bob", "bob's password", at("10.7.7.7"), T0 + 70, LOGIN_POLICY, CHEAP)),
    0,
  );
  assert.equal(
    statusOf(await checkPersonPassword(db, "bob", "bob's password", at("10.0.0.9"), T0 + 71, LOGIN_POLICY, CHEAP)),
    429,
  );
});

test("sign-in: every failure answers alike — a sign-in name nobody has, a disabled person, the owner's name — and is throttled alike", async () => {
  const db = s.sqlite;
  const cleo = createPerson(db, {
    name: "Cleo",
    login: "cleo",
    role: "member",
    passwordHash: await hashPassword("cleo's password", CHEAP),
  });
  const dora = createPerson(db, {
    name: "Dora",
    login: "dora",
    role: "member",
    passwordHash: await hashPassword("dora's password", CHEAP),
  });
  setPersonDisabled(db, dora.id, true);
  const answers = async (login: string, n: number) => {
    const out: unknown[] = [];
    for (let i = 0; i < 7; i++) {
      // A fresh address each time: the sequence is the account's throttle alone.
      const r = await checkPersonPassword(db, login, `wrong ${i}`, at(`10.${n}.0.${i}`), T0 + i);
      // (How many seconds a 429 says depends on how long each check took, which the test's cheap hashes
      // and the decoy's full-cost one make differ: the sequence of answers is compared without them.)
      out.push(r.ok ? "ok" : { status: r.status, message: r.message.replace(/\d+ seconds?/, "N seconds") });
    }
    return JSON.stringify(out);
  };
  const cleoSeq = await answers("cleo", 1);
  assert.match(cleoSeq, /wrong sign-in name or password/);
  assert.match(cleoSeq, /429/);
  for (const [login, n] of [
    ["nosuch", 2],
    ["dora", 3],
    ["owner", 4],
  ] as const)
    assert.equal(await answers(login, n), cleoSeq, login);
  // The owner's password alone: the same failure message.
  assert.deepEqual(await checkOwnerPassword(db, "wrong", at("10.6.0.1"), T0 + 100_000), {
    ok: false,
    status: 401,
    message: SIGN_IN_FAILED,
  });
  assert.equal(cleo.disabled, false);
});

test("sign-in: a browser the person signed in from before is held by its own failures alone, not the account's", async () => {
  const db = s.sqlite;
  const alice = createPerson(db, {
    name: "Alice",
    login: "alice",
    role: "member",
    passwordHash: await hashPassword("alice's password", CHEAP),
  });
  const first = await signIn(
    db,
    { login: "alice", password: "alice's password", ip: "192.0.2.10" },
    T0,
    LOGIN_POLICY,
    CHEAP,
  );
  assert.ok(first.ok);
  const device = first.ok ? first.deviceCookie : "";
  assert.match(device, /^[A-Za-z0-9_-]{43}$/);
  const stored = db.prepare("SELECT secret_hash FROM login_devices WHERE person_id = ?").all(alice.id) as {
    secret_hash: string;
  }[];
  assert.deepEqual(stored, [{ secret_hash: sha256(device) }], "only the cookie's hash is kept");
  // An attack from many addresses holds alice's account …
  for (let i = 0; i < 6; i++)
    await checkPersonPassword(db, "alice", `guess ${i}`, at(`198.51.100.${i}`), T0 + 1000 + i);
  assert.equal(statusOf(await checkPersonPassword(db, "alice", "alice's password", at("192.0.2.77"), T0 + 1010)), 429);
  // … but not her own browser, wherever it is, nor a session of hers.
  const own = { ip: "192.0.2.99", deviceCookie: device };
  assert.equal(
    statusOf(await checkPersonPassword(db, "alice", "alice's password", own, T0 + 1020, LOGIN_POLICY, CHEAP)),
    0,
  );
  const session = createSession(db, { personId: alice.id }, T0).token;
  const signedIn = { ip: "192.0.2.98", sessionToken: session };
  assert.equal(
    statusOf(await checkPersonPassword(db, "alice", "alice's password", signedIn, T0 + 1030, LOGIN_POLICY, CHEAP)),
    0,
  );
  // Someone else's device cookie or session is no device of alice's.
  const bobId = createPerson(db, {
    name: "Bob",
    login: "bob",
    role: "member",
    passwordHash: await hashPassword("bob's password", CHEAP),
  }).id;
  const bobs = await signIn(
    db,
    { login: "bob", password: "bob's password", ip: "192.0.2.200" },
    T0 + 1040,
    LOGIN_POLICY,
  );
  assert.ok(bobs.ok && bobs.personId === bobId);
  const bobDevice = {
    ip: "192.0.2.201",
    deviceCookie: bobs.ok ? bobs.deviceCookie : "",
    sessionToken: bobs.ok ? bobs.token : "",
  };
  assert.equal(statusOf(await checkPersonPassword(db, "alice", "alice's password", bobDevice, T0 + 1050)), 429);
  // The browser's own wrong guesses hold only that browser: 5 free, then held …
  for (let i = 0; i < 5; i++)
    assert.equal(statusOf(await checkPersonPassword(db, "alice", `typo ${i}`, own, T0 + 2000 + i)), 401);
  assert.equal(statusOf(await checkPersonPassword(db, "alice", "alice's password", own, T0 + 2010)), 429);
  // … and they are not the account's: her session still signs in.
  assert.equal(
    statusOf(await checkPersonPassword(db, "alice", "alice's password", signedIn, T0 + 2020, LOGIN_POLICY, CHEAP)),
    0,
  );
});

test("sign-in: parallel guesses get no more tries (each is recorded before the slow check)", async () => {
  const db = s.sqlite;
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => checkOwnerPassword(db, `par ${i}`, at("10.0.0.77"), T0)),
  );
  assert.equal(results.filter((r) => !r.ok && r.status === 401).length, 5, "the free five are checked");
  assert.equal(results.filter((r) => !r.ok && r.status === 429).length, 7, "the rest are refused unchecked");
  const n = (
    db.prepare("SELECT count(*) AS n FROM login_attempts WHERE ip = '10.0.0.77' AND ok = 0").get() as { n: number }
  ).n;
  assert.equal(n, 5);
  assert.equal(statusOf(await checkOwnerPassword(db, PW, at("10.0.0.77"), T0 + 1)), 429);
});

test("a successful sign-in re-hashes a weak stored hash with today's parameters", async () => {
  const before = ownerPasswordHash(s.sqlite)!;
  assert.match(before, /^scrypt\$10\$/);
  assert.deepEqual(await checkOwnerPassword(s.sqlite, PW, { ip: "127.0.0.1" }), { ok: true });
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
