/**
 * The sign-in throttle against the scripted attack of issue 43 (finding 3), through the real login route:
 * guesses of alice's password with the attacker's own successful sign-in as bob in between, from one
 * address and from many. Each meets a 429 within 10 guesses; alice still signs in from her own browser
 * (its device cookie, or her session); a restart forgets nothing; the admin sees the failures per account.
 */
import assert from "node:assert/strict";
import { after, before, mock, test } from "node:test";
import { setDb, openDb, type OpenedDb } from "../db";
import { openTempStore, type TempStore } from "../test/temp-store";
import { hashPassword } from "./password";
import { createPerson, setPersonPasswordHashQuietly } from "./people";
import { setOwnerPasswordHash } from "./store";
import { POST as login } from "../../app/api/auth/login/route";
import { GET as listPeople } from "../../app/api/v1/people/route";

const CHEAP = { log2N: 10, r: 8, p: 1 };
const PW = { owner: "owner password 1", alice: "alice's password", bob: "bob's password" };
let store: TempStore;
let db: OpenedDb;
const id = { alice: "", bob: "" };
const cheapHash = { alice: "", bob: "" };

/**
 * The throttle's clock (Date and performance.now) moves 5 ms a sign-in and stands still otherwise: a hold lasts
 * 1 s, 2 s, 4 s of it, which guesses slowed by a busy machine would otherwise outlive. The test counts attempts
 * and who is held, in the order they happen; how long a hold lasts, login.test.ts checks with its own clock.
 */
const clock = { virtualMs: 0, perfAtStart: performance.now() };
function tick(ms: number): void {
  clock.virtualMs += ms;
  mock.timers.tick(ms);
}

before(async () => {
  mock.timers.enable({ apis: ["Date"], now: Date.now() });
  mock.method(performance, "now", () => clock.perfAtStart + clock.virtualMs);
  store = openTempStore();
  db = store;
  setDb(store);
  setOwnerPasswordHash(store.sqlite, await hashPassword(PW.owner, CHEAP));
  for (const who of ["alice", "bob"] as const) {
    cheapHash[who] = await hashPassword(PW[who], CHEAP);
    id[who] = createPerson(store.sqlite, { name: who, login: who, role: "member", passwordHash: cheapHash[who] }).id;
  }
});
after(() => {
  mock.timers.reset();
  mock.restoreAll();
  setDb(undefined);
  if (db.sqlite.open) db.sqlite.close();
  store.close();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  cookies: Record<string, string>;
}

/** POST /api/auth/login from `ip` (the socket address the server stamps), with the browser's cookies. */
async function signIn(body: { login?: string; password: string }, ip: string, cookies: Record<string, string> = {}) {
  tick(5);
  const cookie = Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  const res = await login(
    new Request("http://127.0.0.1:3000/api/auth/login", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "application/json", "x-memo-peer": ip, cookie },
      body: JSON.stringify(body),
    }),
  );
  const set: Record<string, string> = {};
  for (const c of res.headers.getSetCookie()) {
    const [kv] = c.split(";");
    const i = kv!.indexOf("=");
    set[kv!.slice(0, i)] = kv!.slice(i + 1);
  }
  const text = await res.text();
  // A successful sign-in upgrades a cheap hash to the full-cost one; the test keeps the cheap ones, since it
  // is about counting attempts, not about what each costs.
  if (res.status === 200)
    for (const who of ["alice", "bob"] as const) setPersonPasswordHashQuietly(db.sqlite, id[who], cheapHash[who]);
  return { status: res.status, retryAfter: res.headers.get("retry-after"), cookies: set, text } as Answer & {
    text: string;
  };
}

/** The attacker knows bob's password and guesses alice's: 20 guesses, a sign-in as bob after each. */
async function attack(ipOf: (i: number) => string, bobIp: (i: number) => string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < 20; i++) {
    answers.push(await signIn({ login: "alice", password: `guess number ${i}` }, ipOf(i)));
    const bob = await signIn({ login: "bob", password: PW.bob }, bobIp(i));
    if (i === 0) assert.equal(bob.status, 200, "the attacker's own sign-in works");
  }
  return answers;
}

function assertThrottled(answers: Answer[], where: string): void {
  const statuses = answers.map((a) => a.status);
  const first = statuses.indexOf(429);
  assert.ok(first >= 0 && first < 10, `${where}: a 429 within 10 guesses (${statuses.join(" ")})`);
  assert.ok(statuses.filter((s) => s === 401).length < 10, `${where}: fewer than 10 guesses checked`);
  const held = answers[first]!;
  assert.ok(Number(held.retryAfter) >= 1, `${where}: Retry-After ${held.retryAfter}`);
}

let aliceBrowser: Record<string, string> = {};

test("alice signs in at home first: her browser gets a device cookie besides the session", async () => {
  const r = await signIn({ login: "alice", password: PW.alice }, "192.0.2.10");
  assert.equal(r.status, 200);
  assert.ok(r.cookies.memo_session, "a session");
  assert.match(r.cookies.memo_device ?? "", /^[A-Za-z0-9_-]{43}$/, "and a known-device cookie");
  aliceBrowser = r.cookies;
});

test("the scripted attack from one address gets 429 within 10 guesses, the attacker's sign-ins as bob notwithstanding", async () => {
  assertThrottled(
    await attack(
      () => "203.0.113.9",
      () => "203.0.113.9",
    ),
    "one address",
  );
  // The next scenario starts from a clean log (the account's failures would hold it from its first guess).
  db.sqlite.prepare("DELETE FROM login_attempts").run();
});

/** Guess until the account holds (a 429 at an address never used), so that the checks right after meet the hold. */
async function untilHeld(account: string, n: number): Promise<void> {
  for (let i = 0; i < 20; i++)
    if ((await signIn({ login: account, password: `probe ${i}` }, `198.18.${n}.${i + 1}`)).status === 429) return;
  assert.fail(`${account}'s account never held`);
}

test("the scripted attack from many addresses gets 429 within 10 guesses; alice still signs in from her own browser", async () => {
  // Every guess from an address never used before: the 429s are the account's hold.
  assertThrottled(
    await attack(
      (i) => `198.51.100.${i + 1}`,
      (i) => `198.51.100.${i + 101}`,
    ),
    "many addresses",
  );
  await untilHeld("alice", 1);
  // A fresh browser at a fresh address, with alice's right password: held too, the account is under attack.
  const fresh = await signIn({ login: "alice", password: PW.alice }, "192.0.2.77");
  assert.equal(fresh.status, 429, fresh.text);
  // Alice's own browser, known from her earlier sign-in: its device cookie (at home, or on the road) …
  const home = await signIn({ login: "alice", password: PW.alice }, "192.0.2.10", {
    memo_device: aliceBrowser.memo_device!,
  });
  assert.equal(home.status, 200, home.text);
  await untilHeld("alice", 2);
  const away = await signIn({ login: "alice", password: PW.alice }, "192.0.2.99", {
    memo_device: aliceBrowser.memo_device!,
  });
  assert.equal(away.status, 200, away.text);
  // … or her live session (a browser signed in before devices were remembered) lets her in.
  await untilHeld("alice", 3);
  const session = await signIn({ login: "alice", password: PW.alice }, "192.0.2.98", {
    memo_session: aliceBrowser.memo_session!,
  });
  assert.equal(session.status, 200, session.text);
});

test("a restart forgets nothing: an account held before the store is reopened is held after", async () => {
  await untilHeld("alice", 4);
  const file = db.file;
  db.sqlite.close();
  db = openDb(file);
  setDb(db);
  const r = await signIn({ login: "alice", password: PW.alice }, "192.0.2.150");
  assert.equal(r.status, 429, r.text);
  assert.ok(Number(r.retryAfter) >= 1);
});

test("the admin sees failed sign-ins per account in the people list; a member cannot list people", async () => {
  const owner = await signIn({ password: PW.owner }, "127.0.0.1");
  assert.equal(owner.status, 200);
  tick(20_000); // a while after the restart: alice's hold has passed, so the next guess is checked (and counted)
  await untilHeld("alice", 5);
  const res = await listPeople(
    new Request("http://127.0.0.1:3000/api/v1/people", {
      headers: { host: "127.0.0.1:3000", cookie: `memo_session=${owner.cookies.memo_session}` },
    }),
  );
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    people: {
      login: string;
      signIn: {
        failures: number;
        lastFailureAt: string | null;
        heldUntil: string | null;
        addresses: { address: string; failures: number }[];
      };
    }[];
  };
  const alice = body.people.find((p) => p.login === "alice")!.signIn;
  assert.ok(alice.failures >= 6, JSON.stringify(alice));
  assert.ok(alice.lastFailureAt && Date.parse(alice.lastFailureAt) > Date.now() - 60_000);
  assert.ok(alice.heldUntil && Date.parse(alice.heldUntil) > Date.now(), "alice's account is held");
  const addresses = alice.addresses.map((a) => a.address);
  assert.ok(addresses.includes("198.51.100.1") && addresses.includes("198.51.100.2"), addresses.join(" "));
  const bob = body.people.find((p) => p.login === "bob")!.signIn;
  assert.equal(bob.failures, 0, "bob's account had no failures");

  const member = await signIn({ login: "bob", password: PW.bob }, "192.0.2.202");
  const asMember = await listPeople(
    new Request("http://127.0.0.1:3000/api/v1/people", {
      headers: { host: "127.0.0.1:3000", cookie: `memo_session=${member.cookies.memo_session}` },
    }),
  );
  assert.equal(asMember.status, 403);
});
