/**
 * A sharee is told a space was shared with them (issue 48), through the tRPC procedures as three people:
 * the owner shares `recipes` with B; C is shared nothing. B's notice names the space, whose it is and how it
 * is shared, until B dismisses it or adds the space to a chat; a new mode tells B again; C sees nothing.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { TRPCError } from "@trpc/server";
import { openDb, setDb } from "../db";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { createCaller } from "../api/root";
import { migrationsBefore } from "../test/migrations-before";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "../auth/people";
import { hashPassword } from "../auth/password";
import { createSession, setOwnerPasswordHash } from "../auth/store";

let store: TempStore;
let memo: MemoContext;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
type Caller = ReturnType<typeof createCaller>;
let a: Caller;
let b: Caller;
let c: Caller;
let bId = "";

const callerOf = (personId: string) =>
  createCaller({
    memo,
    headers: new Headers({ cookie: `memo_session=${createSession(store.sqlite, { personId }).token}` }),
  });

const noticesOf = async (p: Caller) =>
  (await p.spaces.shareNotices()).map((n) => [n.space, n.name, n.ownerName, n.mode].join(" "));

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  const ids = ["b", "c"].map(
    (who) => createPerson(store.sqlite, { name: who.toUpperCase(), login: who, role: "member", passwordHash: "x" }).id,
  );
  bId = ids[0]!;
  a = callerOf("owner");
  b = callerOf(ids[0]!);
  c = callerOf(ids[1]!);
  await a.memory.add({ text: "Grandma's lentil soup needs cumin", space: "recipes" });
  await a.memory.add({ text: "The boiler service is due in March", space: "house" });
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

test("a share is a notice to its person until dismissed; a new mode, or sharing anew, tells them again", async () => {
  assert.deepEqual(await noticesOf(b), [], "nothing shared yet");
  await a.spaces.share({ space: "recipes", person: "b", mode: "read" });
  assert.deepEqual(await noticesOf(b), ["owner~recipes recipes Owner read"]);
  assert.deepEqual(await noticesOf(c), [], "C was shared nothing");
  assert.deepEqual(await noticesOf(a), [], "the sharer is not told of their own share");

  // Sharing again with the same mode is not news; B dismissing is per person.
  await a.spaces.share({ space: "recipes", person: "b", mode: "read" });
  assert.equal((await b.spaces.dismissShareNotice({ space: "owner~recipes" })).space, "owner~recipes");
  assert.deepEqual(await noticesOf(b), []);
  await a.spaces.share({ space: "recipes", person: "b", mode: "read" });
  assert.deepEqual(await noticesOf(b), [], "the same share again is not news");

  await a.spaces.share({ space: "recipes", person: "b", mode: "write" });
  assert.deepEqual(await noticesOf(b), ["owner~recipes recipes Owner write"], "read → write is told");

  await a.spaces.unshare({ space: "recipes", person: "b" });
  assert.deepEqual(await noticesOf(b), [], "an ended share is no notice");
  await a.spaces.share({ space: "recipes", person: bId, mode: "read" });
  assert.deepEqual(await noticesOf(b), ["owner~recipes recipes Owner read"], "shared anew: told again");
  // Stored in SQL: the share row says when B saw it.
  await b.spaces.dismissShareNotice({ space: "owner~recipes" });
  const row = store.sqlite
    .prepare("SELECT seen_at AS seenAt FROM space_shares WHERE space_id = 'recipes' AND person_id = ?")
    .get(bId) as { seenAt: string | null };
  assert.match(row.seenAt ?? "", /^\d{4}-\d\d-\d\dT/);
});

test("adding the shared space to a chat is seeing it; a space not shared with you cannot be dismissed", async () => {
  await a.spaces.share({ space: "house", person: "b", mode: "read" });
  assert.deepEqual(await noticesOf(b), ["owner~house house Owner read"]);
  const conv = await b.conversations.create({ title: "boiler" });
  await b.conversations.setSpaces({ id: conv.id, spaces: ["owner~house"] });
  assert.deepEqual(await noticesOf(b), [], "opened in a chat: the notice is gone");

  for (const [who, space] of [
    [c, "owner~house"],
    [c, "owner~nowhere"],
    [b, "house"], // B's own (missing) space, not the owner's
  ] as const) {
    await assert.rejects(
      who.spaces.dismissShareNotice({ space }),
      (e: unknown) => e instanceof TRPCError && e.code === "NOT_FOUND" && /is not shared with you/.test(e.message),
    );
  }
});

test("a share made before migration 0025 is news to its person once after the upgrade", async () => {
  const dir = migrationsBefore(25);
  const file = path.join(dir, "memory.db");
  try {
    const old = openDb(file, dir);
    old.sqlite
      .prepare("INSERT INTO people (id, name, login, role, password_hash) VALUES ('p1', 'P', 'p', 'member', 'x')")
      .run();
    old.sqlite.prepare("INSERT INTO spaces (id, person_id) VALUES ('garden', 'owner')").run();
    old.sqlite.prepare("INSERT INTO space_shares (space_id, person_id, mode) VALUES ('garden', 'p1', 'read')").run();
    old.sqlite.close();
    const now = openDb(file);
    try {
      const rows = now.sqlite.prepare("SELECT space_id AS s, seen_at AS seenAt FROM space_shares").all();
      assert.deepEqual(rows, [{ s: "garden", seenAt: null }]);
    } finally {
      now.sqlite.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
