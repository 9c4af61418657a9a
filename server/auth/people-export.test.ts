/**
 * Whose memory an admin can take out of Memo (issue 58, docs/security.md "Removing"). The household's promise
 * is that nothing one person does is observable by another; an admin manages people, not their memory. So
 * another person's memory leaves Memo only as part of removing them (`DELETE /api/v1/people/<id>?export=1`:
 * their export file in the removal's answer, sent once the removal has committed), and the owner's never —
 * the owner cannot be removed. Before, `GET /api/v1/people/<id>/export` gave any admin the owner's full
 * memory, or any member's, at any time.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setDb } from "../db";
import { scrubInProgress } from "../db/scrub";
import { setAppContext } from "../context";
import type { MemoContext } from "../core/context";
import { createCaller } from "../api/root";
import { callRoute, routeFiles } from "../test/route-harness";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson, getPerson } from "./people";
import { hashPassword } from "./password";
import { createSession, setOwnerPasswordHash } from "./store";

const OWNER_SECRET = "Owner's cellar key hangs behind the barometer";
const BOB_SECRET = "Bob's diary: the surprise party is on the ninth";
const ADA_OWN = "Ada's note about her bicycle";

let store: TempStore;
let memo: MemoContext;
let bobId: string;
let adaSession: Record<string, string>;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
const session = (personId: string) => ({ cookie: `memo_session=${createSession(store.sqlite, { personId }).token}` });

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  const fast = { log2N: 10, r: 8, p: 1 };
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", fast));
  const pw = await hashPassword("a password 123", fast);
  bobId = createPerson(store.sqlite, { name: "Bob", login: "bob", role: "member", passwordHash: pw }).id;
  const adaId = createPerson(store.sqlite, { name: "Ada", login: "ada", role: "admin", passwordHash: pw }).id;
  adaSession = session(adaId);
  for (const [who, text] of [
    ["owner", OWNER_SECRET],
    [bobId, BOB_SECRET],
    [adaId, ADA_OWN],
  ] as const)
    await createCaller({ memo, headers: new Headers(session(who)) }).memory.add({ text });
});

after(async () => {
  await scrubInProgress(store.sqlite); // the removals' background scrub, before the store closes
  setDb(undefined);
  setAppContext(undefined);
  store.close();
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("an admin's calls to every people route, with the owner's and a member's id, show none of their memories", async () => {
  const keys: string[] = [];
  for (const r of routeFiles().filter((f) => f.pattern.startsWith("/api/v1/people"))) {
    const mod = (await import(r.file)) as Record<string, unknown>;
    for (const m of ["GET", "POST", "PATCH"]) if (typeof mod[m] === "function") keys.push(`${m} ${r.pattern}`);
  }
  assert.ok(keys.length >= 3, keys.join(", "));
  for (const key of keys)
    for (const id of ["owner", bobId]) {
      const a = await callRoute(key, adaSession, { params: { id }, body: key.startsWith("GET") ? undefined : {} });
      for (const secret of [OWNER_SECRET, BOB_SECRET])
        assert.ok(
          !a.body.includes(secret),
          `${key} (${id}) gave an admin another person's memory: ${a.body.slice(0, 200)}`,
        );
    }
});

test("another person's memory leaves only with their removal, and the owner's never", async () => {
  const owner = await callRoute("DELETE /api/v1/people/[id]", adaSession, {
    params: { id: "owner" },
    query: "export=1",
  });
  assert.equal(owner.status, 400, owner.body);
  assert.ok(!owner.body.includes(OWNER_SECRET), "a refused removal sends no export");

  const removed = await callRoute("DELETE /api/v1/people/[id]", adaSession, {
    params: { id: bobId },
    query: "export=1",
  });
  assert.equal(removed.status, 200, removed.body);
  const answer = JSON.parse(removed.body) as {
    removed: Record<string, number>;
    export: { fileName: string; file: { format: string; memories: { content: string }[] } };
  };
  assert.match(answer.export.fileName, /^memo-export-bob-\d{4}-\d{2}-\d{2}\.json$/);
  assert.equal(answer.export.file.format, "memo-export");
  assert.deepEqual(
    answer.export.file.memories.map((m) => m.content),
    [BOB_SECRET],
    "their memories, nobody else's",
  );
  assert.equal(getPerson(store.sqlite, bobId) ?? null, null, "and they are removed");
  assert.equal(
    (store.sqlite.prepare("SELECT count(*) AS n FROM memories WHERE content = ?").get(BOB_SECRET) as { n: number }).n,
    0,
  );
  const again = await callRoute("DELETE /api/v1/people/[id]", adaSession, { params: { id: bobId }, query: "export=1" });
  assert.equal(again.status, 404, again.body);

  // Without export=1 the answer is the removal's alone, as before.
  const carl = createPerson(store.sqlite, { name: "Carl", login: "carl", role: "member", passwordHash: "x" }).id;
  const plain = await callRoute("DELETE /api/v1/people/[id]", adaSession, { params: { id: carl } });
  assert.equal(plain.status, 200, plain.body);
  assert.deepEqual(Object.keys(JSON.parse(plain.body) as object).sort(), ["backups", "files", "removed", "scrub"]);
});
