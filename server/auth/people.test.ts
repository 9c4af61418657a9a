/**
 * People (issue 32, step 2): sign-in by name, the people and tokens REST contract, and disabling. Runs the
 * real route modules against a temporary store, on loopback (no MEMO_HOST), where adding the first person
 * turns sign-in on.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setDb } from "../db";
import { openTempStore, type TempStore } from "../test/temp-store";
import { checkAccess, gateResponse } from "./gate";
import { hashPassword } from "./password";
import { setOwnerPasswordHash } from "./store";
import { createCaller } from "../api/root";
import { POST as login } from "../../app/api/auth/login/route";
import { GET as listPeople, POST as addPerson } from "../../app/api/v1/people/route";
import { DELETE as removePerson, PATCH as patchPerson } from "../../app/api/v1/people/[id]/route";
import { insertMemories } from "../memory/store";
import { spaceKey } from "../core/space-name";
import { axisVector } from "../test/temp-store";
import { POST as makeToken } from "../../app/api/v1/tokens/route";

let store: TempStore;
const OWNER_PW = "owner password 1";
before(async () => {
  store = openTempStore();
  setOwnerPasswordHash(store.sqlite, await hashPassword(OWNER_PW, { log2N: 10, r: 8, p: 1 }));
  setDb(store);
});
after(() => {
  setDb(undefined);
  store.close();
});

const URL0 = "http://127.0.0.1:3000";
function req(path: string, method = "GET", body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL0 + path, {
    method,
    headers: { host: "127.0.0.1:3000", ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
const params = (id: string) => ({ params: Promise.resolve({ id }) });
async function signIn(body: { login?: string; password: string }): Promise<Record<string, string>> {
  const res = await login(req("/api/auth/login", "POST", body));
  assert.equal(res.status, 200, await res.clone().text());
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie };
}
const allowed = (path: string, headers: Record<string, string>) =>
  checkAccess(req(path, "GET", undefined, headers)).result;

test("people: add, sign in by name, tokens act as their person, disable stops them at once, remove", async () => {
  // Single-user on loopback: no sign-in, the owner at the machine adds the first person.
  assert.equal(allowed("/api/v1/people", {}).ok, true);
  const added = await addPerson(
    req("/api/v1/people", "POST", { name: "Bob", login: "bob", password: "bob's password", role: "member" }),
  );
  assert.equal(added.status, 201);
  const bob = (await added.json()) as { id: string; login: string };
  assert.equal(bob.login, "bob");
  // Now accounts are on, even on loopback.
  const anon = allowed("/api/v1/people", {});
  assert.equal(anon.ok, false);
  assert.equal(!anon.ok && anon.status, 401);
  // The owner who added them at the machine stays signed in (issue 48: the page's next request got 401).
  const kept = added.headers.get("set-cookie")?.split(";")[0];
  assert.match(kept ?? "", /^memo_session=./, "a session for the owner comes with the answer");
  const listed = await listPeople(req("/api/v1/people", "GET", undefined, { cookie: kept! }));
  assert.equal(listed.status, 200, "the owner's page lists the people with it");

  const dup = await addPerson(
    req("/api/v1/people", "POST", { name: "B2", login: "BOB", password: "another password", role: "member" }),
  );
  assert.equal(dup.status, 401, "no session now: nobody may add people");

  const owner = await signIn({ password: OWNER_PW });
  const dup2 = await addPerson(
    req("/api/v1/people", "POST", { name: "B2", login: "BOB", password: "another password" }, owner),
  );
  assert.equal(dup2.status, 409, "sign-in names are unique, case-insensitively");

  const wrong = await login(req("/api/auth/login", "POST", { login: "bob", password: "nope nope nope" }));
  assert.equal(wrong.status, 401);
  const unknown = await login(req("/api/auth/login", "POST", { login: "nobody", password: "nope nope nope" }));
  assert.equal(unknown.status, 401);
  assert.equal(
    ((await unknown.json()) as { error: { message: string } }).error.message,
    ((await wrong.json()) as { error: { message: string } }).error.message,
    "an unknown name answers like a wrong password",
  );
  // The owner's sign-in name, and the owner's password alone, answer the same too (issue 43, finding 6):
  // no failure tells whose name it was.
  const failures = await Promise.all(
    [
      { login: "owner", password: "nope nope nope" },
      { login: "OWNER", password: "nope nope nope" },
      { password: "nope nope nope" },
      { login: "bob", password: "nope nope nope" },
      { login: "nobody", password: "nope nope nope" },
    ].map(async (body) => {
      const r = await login(req("/api/auth/login", "POST", body, { "x-memo-peer": `192.0.2.${body.login ?? "x"}` }));
      return JSON.stringify({ status: r.status, body: await r.json() });
    }),
  );
  assert.equal(new Set(failures).size, 1, failures.join("\n"));

  const bobS = await signIn({ login: "bob", password: "bob's password" });
  const s = allowed("/api/v1/search", bobS);
  assert.ok(
    s.ok && s.principal.kind === "session" && s.principal.session.personId === bob.id && !s.principal.session.admin,
  );

  // A member cannot manage people; the owner (admin) can.
  assert.equal((await listPeople(req("/api/v1/people", "GET", undefined, bobS))).status, 403);
  const list = (await (await listPeople(req("/api/v1/people", "GET", undefined, owner))).json()) as {
    people: { login: string }[];
  };
  assert.deepEqual(
    list.people.map((p) => p.login),
    ["owner", "bob"],
  );

  // Bob's token acts as Bob; a token cannot make tokens.
  const tk = await makeToken(req("/api/v1/tokens", "POST", { name: "bob's script" }, bobS));
  assert.equal(tk.status, 201);
  const { token } = (await tk.json()) as { token: string };
  const bearer = { authorization: `Bearer ${token}` };
  const viaToken = allowed("/api/v1/search", bearer);
  assert.ok(viaToken.ok && viaToken.principal.kind === "token" && viaToken.principal.token.personId === bob.id);
  assert.equal((await makeToken(req("/api/v1/tokens", "POST", { name: "more" }, bearer))).status, 403);

  // Bob changes his own password: this session stays, the old password stops working.
  const bobCaller = createCaller({ memo: { db: store.sqlite, embedder: {} as never }, headers: new Headers(bobS) });
  assert.equal((await bobCaller.access.me())?.login, "bob");
  await assert.rejects(bobCaller.access.changeMyPassword({ current: "wrong one", password: "bob's new password" }));
  await bobCaller.access.changeMyPassword({ current: "bob's password", password: "bob's new password" });
  assert.equal(allowed("/api/v1/search", bobS).ok, true, "the session that changed it stays");
  assert.equal((await login(req("/api/auth/login", "POST", { login: "bob", password: "bob's password" }))).status, 401);
  await signIn({ login: "bob", password: "bob's new password" });

  // Disabling: Bob's session and token are refused at his next request, and he cannot sign in.
  const dis = await patchPerson(req(`/api/v1/people/${bob.id}`, "PATCH", { disabled: true }, owner), params(bob.id));
  assert.equal(dis.status, 200);
  assert.equal(allowed("/api/v1/search", bobS).ok, false);
  assert.equal(allowed("/api/v1/search", bearer).ok, false);
  assert.equal(
    (await login(req("/api/auth/login", "POST", { login: "bob", password: "bob's new password" }))).status,
    401,
  );
  assert.equal(allowed("/api/v1/search", owner).ok, true, "the owner's session is untouched");

  // An admin gets the person's export only with their removal (issue 58): their memories, nobody else's.
  insertMemories(
    store.sqlite,
    [
      { spaceId: spaceKey(bob.id, "personal"), content: "bob keeps bees on the roof" },
      { spaceId: spaceKey("owner", "personal"), content: "the owner's own note" },
    ],
    [axisVector(768, 1), axisVector(768, 2)],
    "test-model",
  );
  assert.equal(
    (await removePerson(req("/api/v1/people/nobody?export=1", "DELETE", undefined, owner), params("nobody"))).status,
    404,
  );
  // Removal: the person and their sessions and tokens are gone, and their sign-in attempts and known browsers.
  const n = (sql: string) => (store.sqlite.prepare(sql).get(bob.id) as { n: number }).n;
  assert.ok(n("SELECT count(*) AS n FROM login_devices WHERE person_id = ?") > 0, "bob's browsers were known");
  assert.ok(n("SELECT count(*) AS n FROM login_attempts WHERE account = ?") > 0, "bob's sign-ins were counted");
  const rm = await removePerson(req(`/api/v1/people/${bob.id}?export=1`, "DELETE", undefined, owner), params(bob.id));
  assert.equal(rm.status, 200);
  const exp = (await rm.json()) as { export: { fileName: string; file: { memories: { content: string }[] } } };
  assert.match(exp.export.fileName, /^memo-export-bob-/);
  assert.deepEqual(
    exp.export.file.memories.map((m) => m.content),
    ["bob keeps bees on the roof"],
  );
  assert.equal(n("SELECT count(*) AS n FROM login_devices WHERE person_id = ?"), 0);
  assert.equal(n("SELECT count(*) AS n FROM login_attempts WHERE account = ?"), 0);
  assert.equal(n("SELECT count(*) AS n FROM people WHERE id = ?"), 0);
  assert.equal(n("SELECT count(*) AS n FROM api_tokens WHERE person_id = ?"), 0);
  assert.equal(n("SELECT count(*) AS n FROM auth_sessions WHERE person_id = ?"), 0);
  assert.equal(
    (await removePerson(req("/api/v1/people/owner", "DELETE", undefined, owner), params("owner"))).status,
    400,
  );
});

test("a password an admin set must be changed first: everything else is refused (403, pages go to /password)", async () => {
  const owner = await signIn({ password: OWNER_PW });
  const added = await addPerson(
    req(
      "/api/v1/people",
      "POST",
      { name: "Cleo", login: "cleo", password: "cleo's first password", role: "member", mustChangePassword: true },
      owner,
    ),
  );
  assert.equal(added.status, 201);
  const cleo = await signIn({ login: "cleo", password: "cleo's first password" });
  const gate = (path: string, method = "GET") => gateResponse(req(path, method, undefined, cleo));

  // APIs: a JSON 403 that says what to do, whatever the route class.
  for (const [path, method] of [
    ["/api/v1/search", "POST"],
    ["/api/v1/tokens", "POST"],
    ["/api/trpc/memory.list", "GET"],
    ["/api/trpc/access.me,memory.list", "GET"],
    ["/api/trpc/access.createToken", "POST"],
    ["/v1/models", "GET"],
    ["/mcp", "POST"],
  ] as const) {
    const res = gate(path, method);
    assert.equal(res?.status, 403, path);
    assert.match(await res!.text(), /change your password first/, path);
    assert.match(res!.headers.get("content-type") ?? "", /json/, path);
  }
  // Pages: to the change page, and back afterwards.
  const page = gate("/settings?x=1");
  assert.equal(page?.status, 303);
  assert.equal(page?.headers.get("location"), `${URL0}/password?next=${encodeURIComponent("/settings?x=1")}`);
  // What the change page needs, and signing out, go through.
  for (const [path, method] of [
    ["/password", "GET"],
    ["/api/trpc/access.me", "GET"],
    ["/api/trpc/access.me,access.changeMyPassword", "POST"],
    ["/api/auth/logout", "POST"],
  ] as const)
    assert.equal(gate(path, method), null, path);

  // The handlers behind the gate refuse again (second lock): no token can be made yet, nothing is read.
  assert.equal((await makeToken(req("/api/v1/tokens", "POST", { name: "early" }, cleo))).status, 403);
  const cleoCaller = createCaller({ memo: { db: store.sqlite, embedder: {} as never }, headers: new Headers(cleo) });
  await assert.rejects(cleoCaller.access.createToken({ name: "early" }), /change your password first/);
  await assert.rejects(cleoCaller.access.tokens(), /change your password first/);
  const cleoId = ((await added.json()) as { id: string }).id;
  const n = () =>
    (store.sqlite.prepare("SELECT count(*) AS n FROM api_tokens WHERE person_id = ?").get(cleoId) as { n: number }).n;
  assert.equal(n(), 0);
  assert.equal((await cleoCaller.access.me())?.mustChangePassword, true);

  // Changed: the same session goes everywhere, and tokens can be made.
  await cleoCaller.access.changeMyPassword({ current: "cleo's first password", password: "cleo's own password" });
  assert.equal(gate("/api/v1/search", "POST"), null);
  assert.equal(gate("/settings"), null);
  assert.equal((await makeToken(req("/api/v1/tokens", "POST", { name: "now" }, cleo))).status, 201);
  assert.equal(n(), 1);

  // An admin's reset with must-change puts the rule back (and revokes the token made meanwhile).
  const reset = await patchPerson(
    req(`/api/v1/people/${cleoId}`, "PATCH", { password: "a reset password 2" }, owner),
    params(cleoId),
  );
  assert.equal(reset.status, 200);
  const again = await signIn({ login: "cleo", password: "a reset password 2" });
  assert.equal(gateResponse(req("/api/v1/search", "POST", undefined, again))?.status, 403);
  // The owner is never held by the rule.
  assert.equal(gateResponse(req("/api/v1/search", "POST", undefined, owner)), null);
});
