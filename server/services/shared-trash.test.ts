/**
 * The trash of a shared space is its owner's alone (issue 43, finding 4). A (the owner) shares `pantry` with B,
 * first read-only, then read-write; A's soft-deleted memory there must answer B exactly like a missing one by
 * every path that can show or change soft-deleted memories: the Manager's list (status `deleted` and `all`)
 * and `get`, REST `GET /api/v1/memories/<id>`, restore (tRPC `memory.restore`, `manager.restore`, REST
 * `POST /api/v1/memories/restore`, `analytics.keep`), purge (`manager.purge`, `memory.delete { purge }`,
 * REST `DELETE ?purge=true`), pin, importance and edit. A memory B deletes in A's space goes to A's trash.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { setDb } from "../db";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { createCaller } from "../api/root";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "../auth/people";
import { hashPassword } from "../auth/password";
import { createSession, setOwnerPasswordHash } from "../auth/store";
import { checkInvariant } from "../memory/store";
import { importFacts } from "./facts-service";
import * as memoryRoute from "../../app/api/v1/memories/[id]/route";
import * as restoreRoute from "../../app/api/v1/memories/restore/route";
import * as forgetRoute from "../../app/api/v1/forget/route";

const TRASHED = "Old pantry inventory: three tins of saffron, thrown out";
const LIVE = "The pantry shelf holds the rice and the lentils";

let store: TempStore;
let memo: MemoContext;
let bCookie: string;
let trashedId: string;
let liveId: string;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
type Caller = ReturnType<typeof createCaller>;
let a: Caller;
let b: Caller;

const callerOf = (cookie: string) => createCaller({ memo, headers: new Headers({ cookie }) });

/** A procedure's outcome as status and text (a tRPC error's code mapped to its HTTP status). */
async function outcome(p: Promise<unknown>): Promise<{ status: number; text: string }> {
  try {
    return { status: 200, text: JSON.stringify(await p) };
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    return { status: { NOT_FOUND: 404, FORBIDDEN: 403, BAD_REQUEST: 400 }[e.code as string] ?? 500, text: e.message };
  }
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function rest(
  handler: unknown,
  method: string,
  url: string,
  opts: { id?: string; body?: unknown } = {},
): Promise<{ status: number; text: string }> {
  const req = new Request(`http://127.0.0.1:3000${url}`, {
    method,
    headers: { host: "127.0.0.1:3000", cookie: bCookie, "content-type": "application/json" },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const res = await (handler as Handler)(req, {
    params: Promise.resolve<Record<string, string>>(opts.id ? { id: opts.id } : {}),
  });
  return { status: res.status, text: await res.text() };
}

/** A's trashed id answers B exactly as an id that does not exist (same status, same text with the id swapped). */
async function likeMissing(where: string, call: (id: string) => Promise<{ status: number; text: string }>) {
  const fake = crypto.randomUUID();
  const real = await call(trashedId);
  const missing = await call(fake);
  assert.ok(!real.text.includes("saffron"), `${where} showed B A's trashed text: ${real.text}`);
  assert.equal(real.text.split(trashedId).join("<id>"), missing.text.split(fake).join("<id>"), where);
  assert.equal(real.status, missing.status, where);
}

const aTrash = async () => (await a.manager.list({ space: "pantry", status: "deleted" })).items.map((m) => m.id).sort();

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  const bId = createPerson(store.sqlite, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  a = callerOf(`memo_session=${createSession(store.sqlite, { personId: "owner" }).token}`);
  bCookie = `memo_session=${createSession(store.sqlite, { personId: bId }).token}`;
  b = callerOf(bCookie);
  trashedId = (await a.memory.add({ text: TRASHED, space: "pantry" })).ids[0]!;
  liveId = (await a.memory.add({ text: LIVE, space: "pantry" })).ids[0]!;
  await a.memory.delete({ id: trashedId });
});

after(() => {
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("a read-only sharee sees none of the owner's trash: the Manager's list and get, REST GET by id", async () => {
  await a.spaces.share({ space: "pantry", person: "b", mode: "read" });
  for (const status of ["deleted", "all"] as const) {
    const listed = await b.manager.list({ space: "owner~pantry", status });
    assert.ok(!JSON.stringify(listed).includes("saffron"), `list ${status}: ${JSON.stringify(listed.items)}`);
    assert.equal(listed.total, status === "deleted" ? 0 : 1, `list ${status} counts none of A's trash`);
  }
  // The live memory is still B's to read: the share works, only the trash is A's.
  assert.equal((await b.manager.get({ id: liveId })).content, LIVE);
  await likeMissing("manager.get", (id) => outcome(b.manager.get({ id })));
  await likeMissing("GET /api/v1/memories/<id>", (id) =>
    rest(memoryRoute.GET, "GET", `/api/v1/memories/${id}`, { id }),
  );
  assert.deepEqual(await aTrash(), [trashedId], "A still has it in the trash");
});

test("a read-write sharee can neither restore, purge, pin nor edit the owner's trashed memory, by any path", async () => {
  await a.spaces.share({ space: "pantry", person: "b", mode: "write" });
  assert.equal((await b.manager.list({ space: "owner~pantry", status: "deleted" })).total, 0);
  await likeMissing("manager.get (read-write)", (id) => outcome(b.manager.get({ id })));
  await likeMissing("GET /api/v1/memories/<id> (read-write)", (id) =>
    rest(memoryRoute.GET, "GET", `/api/v1/memories/${id}`, { id }),
  );
  for (const [name, call] of [
    ["manager.restore", (id: string) => b.manager.restore({ ids: [id] })],
    ["manager.purge", (id: string) => b.manager.purge({ ids: [id] })],
    ["manager.setPinned", (id: string) => b.manager.setPinned({ ids: [id], pinned: true })],
    ["manager.setImportance", (id: string) => b.manager.setImportance({ ids: [id], importance: 3 })],
    ["manager.delete", (id: string) => b.manager.delete({ ids: [id] })],
    ["manager.edit", (id: string) => b.manager.edit({ id, content: "saffron, edited by b" })],
    ["memory.delete (purge)", (id: string) => b.memory.delete({ id, purge: true })],
  ] as const)
    await likeMissing(name, (id) => outcome(call(id)));
  await likeMissing("DELETE /api/v1/memories/<id>?purge=true", (id) =>
    rest(memoryRoute.DELETE, "DELETE", `/api/v1/memories/${id}?purge=true`, { id }),
  );
  // Restores by a list of ids answer with what they restored: none of A's.
  assert.deepEqual((await b.memory.restore({ ids: [trashedId] })).restored, []);
  const viaRest = await rest(restoreRoute.POST, "POST", "/api/v1/memories/restore", { body: { ids: [trashedId] } });
  assert.deepEqual(JSON.parse(viaRest.text), { restored: [] });
  assert.deepEqual((await b.analytics.keep({ ids: [trashedId] })).kept, []);

  const kept = await a.manager.get({ id: trashedId });
  assert.deepEqual(
    [kept.softDeleted, kept.pinned, kept.importance, kept.content],
    [true, false, 1, TRASHED],
    "A's trashed memory is as A left it",
  );
  assert.deepEqual(await aTrash(), [trashedId]);
  assert.deepEqual(checkInvariant(store.sqlite), []);
});

test("what a read-write sharee deletes in the owner's space goes to the owner's trash, out of the sharee's reach", async () => {
  assert.deepEqual((await b.manager.delete({ ids: [liveId] })).deleted, [liveId]);
  assert.equal((await outcome(b.manager.get({ id: liveId }))).status, 404);
  assert.deepEqual((await b.manager.restore({ ids: [liveId] }).catch(() => ({ restored: [] }))).restored, []);
  assert.deepEqual(await aTrash(), [liveId, trashedId].sort(), "both are in A's trash");
  // /forget by B in A's space: forgotten, and no undo is offered that B could not carry out.
  const again = (await a.memory.add({ text: "A pantry note about cardamom pods", space: "pantry" })).ids[0]!;
  const forgot = await rest(forgetRoute.POST, "POST", "/api/v1/forget", {
    body: { pattern: "cardamom", space: "owner~pantry" },
  });
  const body = JSON.parse(forgot.text) as { count: number; undo: { ids: string[] }; message: string };
  assert.equal(body.count, 1, forgot.text);
  assert.deepEqual(body.undo.ids, [], "B cannot undo it: the trash is A's");
  assert.match(body.message, /owner can restore/);
  assert.ok((await aTrash()).includes(again));
  // A restores from A's own trash.
  assert.deepEqual((await a.manager.restore({ ids: [liveId] })).restored, [liveId]);
  assert.equal((await b.manager.get({ id: liveId })).content, LIVE, "live again: B reads it again");
});

test("facts (issue 48): a sharee reads none of the owner's trash through a fact's sources, and cannot restore a fact the owner deleted", async () => {
  const SECRET = "Turmeric receipt from the old pantry, since trashed";
  const trashedSource = (await a.memory.add({ text: SECRET, space: "pantry" })).ids[0]!;
  const liveSource = (await a.memory.add({ text: "The pantry has a jar of turmeric", space: "pantry" })).ids[0]!;
  const { ids } = await importFacts(memo, {
    space: "pantry",
    items: [
      { text: "The pantry keeps turmeric.", sources: [trashedSource, liveSource] },
      { text: "The pantry keeps a tin of cocoa.", sources: [liveSource] },
    ],
  });
  const [fact, cocoa] = ids as [string, string];
  await a.memory.delete({ id: trashedSource });
  await a.facts.delete({ id: cocoa });
  for (const mode of ["read", "write"] as const) {
    await a.spaces.share({ space: "pantry", person: "b", mode });
    const sources = await b.facts.sources({ id: fact });
    assert.deepEqual(
      sources.sources.map((s) => s.memoryId),
      [liveSource],
      `${mode}: facts.sources lists only the live source`,
    );
    assert.ok(!JSON.stringify(sources).includes("Turmeric receipt"), `${mode}: no excerpt of A's trash`);
    for (const [where, seen] of [
      ["facts.list", (await b.facts.list({ space: "owner~pantry" })).facts],
      ["facts.history", (await b.facts.history({ id: fact })).facts],
    ] as const) {
      const f = seen.find((x) => x.id === fact);
      assert.deepEqual(f?.sources, [liveSource], `${mode}: ${where} drops the trashed source id`);
    }
  }
  // Read-write: restoring the fact A deleted answers like a missing fact; A's trash is A's.
  const fake = crypto.randomUUID();
  const real = await outcome(b.facts.restore({ id: cocoa }));
  const missing = await outcome(b.facts.restore({ id: fake }));
  assert.equal(real.status, 404, real.text);
  assert.equal(real.text.split(cocoa).join("<id>"), missing.text.split(fake).join("<id>"));
  assert.equal(
    (await b.facts.list({ space: "owner~pantry" })).facts.some((f) => f.id === cocoa),
    false,
  );
  // A still sees the trashed source (marked not live) and restores the fact.
  const mine = await a.facts.sources({ id: fact });
  assert.deepEqual(
    mine.sources.map((s) => [s.memoryId, s.live]).sort(),
    [
      [liveSource, true],
      [trashedSource, false],
    ].sort(),
  );
  assert.equal((await a.facts.restore({ id: cocoa })).fact.id, cocoa);
});
