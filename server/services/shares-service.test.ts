/**
 * Shared spaces (issue 32, item 4), end to end through the tRPC procedures as three people: A (the owner)
 * shares `recipes` with B; C is never shared anything. Read-only, read-write, the conversation that adds the
 * space, whose each memory is, and unsharing.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { setDb } from "../db";
import { runAs } from "../core/acting";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { createCaller } from "../api/root";
import { recallForPrompt } from "../chat/turn-recall";
import { conversationSpaces } from "../memory/store";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson, setPersonDisabled } from "../auth/people";
import { hashPassword } from "../auth/password";
import { createSession, setOwnerPasswordHash } from "../auth/store";
import { removePersonData } from "./people-service";
import { forgetPreview } from "../memory/lifecycle/forget";
import type { ServiceError } from "../core/errors";

const SOUP = "Grandma's lentil soup needs cumin, a bay leaf and a squeeze of lemon";
const QUERY = "lentil soup cumin bay leaf lemon";
// Answers may echo the query: "not there" is checked with a word of the memory that the query lacks.
const UNASKED = "Grandma";

let store: TempStore;
let memo: MemoContext;
const ids: Record<"b" | "c", string> = { b: "", c: "" };
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
type Caller = ReturnType<typeof createCaller>;
let a: Caller;
let b: Caller;
let c: Caller;
let soupId: string;

const callerOf = (personId: string) =>
  createCaller({
    memo,
    headers: new Headers({ cookie: `memo_session=${createSession(store.sqlite, { personId }).token}` }),
  });

/** The status a procedure answers with (200 or the error's), and its text. */
async function status(p: Promise<unknown>): Promise<{ status: number; text: string }> {
  try {
    return { status: 200, text: JSON.stringify(await p) };
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    return { status: { NOT_FOUND: 404, FORBIDDEN: 403, BAD_REQUEST: 400 }[e.code as string] ?? 500, text: e.message };
  }
}

/** A turn's recall as turn.ts makes it: the conversation's own space and the spaces it added. */
const turnRecall = (personId: string, conversationId: string, query: string) =>
  runAs({ personId, admin: false }, () =>
    recallForPrompt(memo, {
      space: `${personId}~personal`,
      added: conversationSpaces(store.sqlite, conversationId),
      query,
      context: [],
    }),
  );

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  // A household with a signed-in owner, as the isolation suite makes it (sessions are checked as in use).
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  for (const who of ["b", "c"] as const)
    ids[who] = createPerson(store.sqlite, {
      name: who.toUpperCase(),
      login: who,
      role: "member",
      passwordHash: "x",
    }).id;
  a = callerOf("owner");
  b = callerOf(ids.b);
  c = callerOf(ids.c);
  soupId = (await a.memory.add({ text: SOUP, space: "recipes" })).ids[0]!;
  await a.memory.add({ text: "The boiler service is due in March", space: "recipes" });
  // Every result that qualifies is packed: the test is about which spaces are read, not about the threshold.
  for (const p of [b, c]) await p.retrievalSettings.save({ minConfidence: 0 });
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

test("a read-only share: B recalls it only in a conversation that added it, and cannot write or forget there", async () => {
  assert.equal((await a.spaces.share({ space: "recipes", person: "B", mode: "read" })).mode, "read");
  assert.deepEqual(
    (await a.spaces.shares()).mine.map((s) => [s.space, s.people.map((p) => [p.login, p.mode])]),
    [["recipes", [["b", "read"]]]],
  );
  const shared = (await b.spaces.shares()).withMe;
  assert.deepEqual(
    shared.map((s) => [s.space, s.name, s.ownerName, s.mode]),
    [["owner~recipes", "recipes", "Owner", "read"]],
  );

  await b.memory.add({ text: "B's own note about the allotment" });
  const conv = await b.conversations.create({ title: "dinner" });
  const before = await turnRecall(ids.b, conv.id, QUERY);
  assert.ok(!JSON.stringify(before).includes(UNASKED), "not added: nothing of the shared space");
  assert.ok(!JSON.stringify(await b.memory.search({ query: QUERY })).includes(UNASKED), "B's own search");

  await b.conversations.setSpaces({ id: conv.id, spaces: ["owner~recipes"] });
  const recall = await turnRecall(ids.b, conv.id, QUERY);
  const soup = recall.memories.find((m) => m.id === soupId);
  assert.ok(soup, JSON.stringify(recall.memories.map((m) => m.content)));
  assert.equal(soup.whose?.owner, "Owner", "a shared memory says whose it is");
  assert.ok(recall.block.includes("lentil"), "and reaches the prompt");

  assert.equal((await status(b.memory.remember({ text: "B was here", space: "owner~recipes" }))).status, 403);
  assert.equal((await status(b.memory.forget({ pattern: "lentil", space: "owner~recipes" }))).status, 403);
  for (const p of [b.memory.delete({ id: soupId }), b.manager.delete({ ids: [soupId] })])
    assert.equal((await status(p)).status, 404);
  assert.equal((await a.manager.get({ id: soupId })).softDeleted, false, "A's memory is untouched");
  // Only the space's person manages its shares: B naming `recipes` names B's own (missing) space.
  assert.equal((await status(b.spaces.share({ space: "recipes", person: "c", mode: "write" }))).status, 404);
  assert.equal((await status(b.spaces.unshare({ space: "recipes", person: "b" }))).status, 404);
});

test("a read-write share: B writes into A's space and the memory shows B as its writer, to both", async () => {
  await a.spaces.share({ space: "recipes", person: ids.b, mode: "write" });
  const [id] = (await b.memory.remember({ text: "The oven runs ten degrees hot", space: "owner~recipes" })).ids;
  const seenByA = await a.manager.get({ id: id! });
  assert.equal(seenByA.spaceId, "recipes", "it is in A's space");
  assert.deepEqual({ owner: seenByA.whose?.owner, writer: seenByA.whose?.writer }, { owner: "Owner", writer: "B" });
  const seenByB = (await b.manager.list({ space: "owner~recipes" })).items.find((m) => m.id === id);
  assert.equal(seenByB?.whose?.writer, "B");
  assert.equal(seenByB?.whose?.space, "owner~recipes", "named as B names it");
  const hit = (await a.memory.search({ query: "oven ten degrees hot", space: "recipes" })).results.find(
    (r) => r.id === id,
  );
  assert.equal(hit?.whose?.writer, "B", "Debug Search says who wrote it");
  // Write access covers the space's memories: pin one of A's.
  assert.equal((await b.manager.setPinned({ ids: [soupId], pinned: true })).changed, 1);
  // B's own lists and counts still hold only B's.
  assert.ok(!JSON.stringify(await b.manager.list({ status: "all" })).includes("oven"));
  assert.equal((await b.analytics.overview({})).totals.memories, 1);
});

test("C, shared nothing, sees none of it by any path", async () => {
  assert.deepEqual((await c.spaces.shares()).withMe, []);
  const missing = await status(c.memory.search({ query: QUERY, space: "owner~no-such" }));
  const named = await status(c.memory.search({ query: QUERY, space: "owner~recipes" }));
  assert.equal(named.status, 404);
  assert.equal(named.text, "space 'owner~recipes' does not exist");
  assert.equal(named.text.replace("recipes", "<s>"), missing.text.replace("no-such", "<s>"));
  // /forget's preview (the REST route's) answers the same for A's space as for one that does not exist.
  const preview = (space: string) =>
    runAs({ personId: ids.c, admin: false }, () => {
      try {
        return JSON.stringify(forgetPreview(memo, "lentil", space));
      } catch (e) {
        return `${(e as ServiceError).status} ${(e as Error).message}`;
      }
    });
  assert.equal(preview("recipes"), "404 space 'owner~recipes' does not exist");
  assert.equal(preview("recipes").replace("recipes", "<s>"), preview("no-such").replace("no-such", "<s>"));
  const conv = await c.conversations.create({});
  assert.equal((await status(c.conversations.setSpaces({ id: conv.id, spaces: ["owner~recipes"] }))).status, 404);
  for (const [real, fake] of [[soupId, crypto.randomUUID()]]) {
    const r = await status(c.manager.get({ id: real! }));
    const f = await status(c.manager.get({ id: fake! }));
    assert.equal(r.text.replace(real!, "<id>"), f.text.replace(fake!, "<id>"));
  }
  // Even a recall handed A's space directly reads nothing: the store asks who acts.
  const forced = await runAs({ personId: ids.c, admin: false }, () =>
    recallForPrompt(memo, { space: `${ids.c}~personal`, added: ["recipes"], query: QUERY, context: [] }),
  );
  assert.ok(!JSON.stringify(forced).includes(UNASKED));
  // Not even the text of A's memory, sent to A's space, answers with its id (the store keeps one copy per space).
  const dup = await status(c.memory.remember({ text: SOUP, space: "owner~recipes" }));
  assert.equal(dup.status, 404, dup.text);
  assert.ok(!dup.text.includes(soupId));
});

test("after A stops sharing, B's search, recall, Manager and analytics show and count none of A's memories", async () => {
  const conv = (await b.conversations.list()).find((x) => x.title === "dinner")!;
  assert.equal((await a.spaces.unshare({ space: "recipes", person: "b" })).removed, true);
  assert.deepEqual(conversationSpaces(store.sqlite, conv.id), []);
  assert.deepEqual((await b.spaces.shares()).withMe, []);
  const recall = await turnRecall(ids.b, conv.id, QUERY);
  assert.ok(!JSON.stringify(recall).includes(UNASKED));
  assert.equal((await status(b.memory.search({ query: QUERY, space: "owner~recipes" }))).status, 404);
  assert.equal((await b.manager.list({ space: "owner~recipes", status: "all" })).total, 0);
  assert.equal((await status(b.manager.get({ id: soupId }))).status, 404);
  assert.equal((await status(b.memory.remember({ text: "B again", space: "owner~recipes" }))).status, 404);
  assert.equal((await b.analytics.overview({})).totals.memories, 1);
  // What B wrote while it was shared stays in A's space, A's, still saying who wrote it.
  const oven = (await a.manager.list({ space: "recipes", text: "oven" })).items[0];
  assert.equal(oven?.whose?.writer, "B");
});

test("deleting a shared space ends its shares", async () => {
  await a.spaces.create({ name: "bills" });
  await a.spaces.share({ space: "bills", person: "c" });
  assert.equal((await c.spaces.shares()).withMe.length, 1);
  await a.spaces.delete({ name: "bills", confirm: "bills" });
  assert.deepEqual((await c.spaces.shares()).withMe, []);
});

test("sharing names no one by its refusals: an unknown, disabled or own name or id all get one status and message (issue 43, finding 6)", async () => {
  const e = createPerson(store.sqlite, { name: "E", login: "e-disabled", role: "member", passwordHash: "x" }).id;
  setPersonDisabled(store.sqlite, e, true);
  await b.memory.add({ text: "B's note to share", space: "garden" });
  const refused = ["nosuch", "e-disabled", e, "b", ids.b, "p0000000000000000"];
  const answers = async (call: (person: string) => Promise<unknown>, people: string[]) =>
    new Set(await Promise.all(people.map(async (p) => JSON.stringify(await status(call(p))))));
  const share = await answers((person) => b.spaces.share({ space: "garden", person, mode: "read" }), refused);
  assert.equal(share.size, 1, [...share].join("\n"));
  // Unsharing: anyone the space is not shared with (an active person included) reads like no one.
  const unshare = await answers((person) => b.spaces.unshare({ space: "garden", person }), [...refused, "c", ids.c]);
  assert.equal(unshare.size, 1, [...unshare].join("\n"));
  for (const r of [...share, ...unshare].map((t) => JSON.parse(t) as { status: number; text: string })) {
    assert.equal(r.status, 404);
    assert.ok(!r.text.includes("nosuch"), r.text);
  }
  assert.deepEqual((await b.spaces.shares()).mine, [], "nothing was shared");
  // A person who is there (and active) is shared with as before, and unshared by sign-in name or id.
  assert.equal((await b.spaces.share({ space: "garden", person: "c", mode: "read" })).personId, ids.c);
  assert.equal((await b.spaces.unshare({ space: "garden", person: "C" })).removed, true);
  // A share with someone later disabled can still be stopped.
  const f = createPerson(store.sqlite, { name: "F", login: "f", role: "member", passwordHash: "x" }).id;
  await b.spaces.share({ space: "garden", person: "f", mode: "write" });
  setPersonDisabled(store.sqlite, f, true);
  assert.equal((await b.spaces.unshare({ space: "garden", person: f })).removed, true);
});

test("removing a person removes the shares made to them and the shares of their spaces", async () => {
  const d = createPerson(store.sqlite, { name: "D", login: "d", role: "member", passwordHash: "x" }).id;
  const dCaller = callerOf(d);
  await a.spaces.share({ space: "recipes", person: "d", mode: "write" });
  await dCaller.memory.add({ text: "D's note for sharing", space: "notes" });
  await dCaller.spaces.share({ space: "notes", person: "c" });
  assert.equal((await c.spaces.shares()).withMe.length, 1);
  removePersonData(store.sqlite, d);
  const n = (sql: string, ...p: unknown[]) => (store.sqlite.prepare(sql).get(...p) as { n: number }).n;
  assert.equal(n("SELECT count(*) AS n FROM space_shares WHERE person_id = ?", d), 0);
  assert.deepEqual((await c.spaces.shares()).withMe, [], "D's space went with D, and its share");
  assert.deepEqual(
    (await a.spaces.shares()).mine.flatMap((s) => s.people.map((p) => p.login)),
    [],
    "A's share with D is gone",
  );
});
