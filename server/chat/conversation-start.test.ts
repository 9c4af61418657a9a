/**
 * Shared spaces picked before the first message (issue 48): POST /api/chat (the real route) starts a new
 * conversation with `sharedSpaces` as a signed-in member. A space the person may not read, or one of their
 * own, is refused with a clear 4xx before anything is stored (no conversation is left); spaces shared with
 * them are recorded as the conversation's added spaces and no longer a notice. No provider is set up: the
 * turn ends in an error event after the conversation is made, which is all this checks.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { POST as chatRoute } from "../../app/api/chat/route";
import { setDb } from "../db";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import { createCaller } from "../api/root";
import { openTempStore, type TempStore } from "../test/temp-store";
import { TestDimEmbedder } from "../test/test-dim-embedder";
import { createPerson } from "../auth/people";
import { hashPassword } from "../auth/password";
import { createSession, setOwnerPasswordHash } from "../auth/store";

for (const k of ["MEMO_PROVIDER", "MEMO_OPENAI_BASE_URL", "MEMO_OPENAI_API_KEY", "MEMO_OPENAI_MODEL"])
  delete process.env[k];

let store: TempStore;
let memo: MemoContext;
const env = { MEMO_HOST: process.env.MEMO_HOST, MEMO_DATA_DIR: process.env.MEMO_DATA_DIR };
let bCookie = "";
let b: ReturnType<typeof createCaller>;

const conversationCount = () =>
  (store.sqlite.prepare("SELECT count(*) AS n FROM conversations").get() as { n: number }).n;

async function firstTurn(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await chatRoute(
    new Request("http://127.0.0.1:3000/api/chat", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "application/json", cookie: bCookie },
      body: JSON.stringify({ message: "What goes into the soup?", ...body }),
    }),
  );
  return { status: res.status, text: await res.text() };
}

before(async () => {
  store = openTempStore();
  process.env.MEMO_DATA_DIR = store.dir;
  delete process.env.MEMO_HOST;
  memo = { db: store.sqlite, embedder: new TestDimEmbedder("test-16d-a") };
  setDb(store);
  setAppContext(memo);
  setOwnerPasswordHash(store.sqlite, await hashPassword("owner password", { log2N: 10, r: 8, p: 1 }));
  const bId = createPerson(store.sqlite, { name: "B", login: "b", role: "member", passwordHash: "x" }).id;
  bCookie = `memo_session=${createSession(store.sqlite, { personId: bId }).token}`;
  const a = createCaller({
    memo,
    headers: new Headers({ cookie: `memo_session=${createSession(store.sqlite, { personId: "owner" }).token}` }),
  });
  b = createCaller({ memo, headers: new Headers({ cookie: bCookie }) });
  await a.memory.add({ text: "Grandma's lentil soup needs cumin", space: "recipes" });
  await a.memory.add({ text: "The safe's code is 4411", space: "private" });
  await a.spaces.share({ space: "recipes", person: "b", mode: "read" });
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

test("a first turn with a space the person may not read, or their own, is refused before anything is stored", async () => {
  const before = conversationCount();
  for (const [spaces, status, message] of [
    [["owner~private"], 404, "space 'owner~private' does not exist"],
    [["owner~recipes", "owner~nowhere"], 404, "space 'owner~nowhere' does not exist"],
    [["personal"], 400, "only spaces shared with you can be added to a conversation"],
    [["not a space!"], 400, "space must be"],
  ] as const) {
    const r = await firstTurn({ sharedSpaces: spaces });
    assert.equal(r.status, status, r.text);
    assert.ok(r.text.includes(message), r.text);
    assert.ok(!r.text.includes("4411"), "nothing of the space is told");
  }
  assert.equal(conversationCount(), before, "no conversation was left behind");
  // An existing conversation's spaces are set with conversations.setSpaces, not by a later turn.
  const conv = await b.conversations.create({ title: "soup" });
  const later = await firstTurn({ conversationId: conv.id, sharedSpaces: ["owner~recipes"] });
  assert.equal(later.status, 400, later.text);
  assert.match(later.text, /only be chosen when a conversation starts/);
});

test("a first turn with spaces shared with the person records them on the new conversation, and they are seen", async () => {
  assert.deepEqual(
    (await b.spaces.shareNotices()).map((n) => n.space),
    ["owner~recipes"],
  );
  const r = await firstTurn({ sharedSpaces: ["owner~recipes"] });
  assert.equal(r.status, 200, r.text);
  const start = JSON.parse(r.text.split("\n\n")[0]!.replace(/^data: /, "")) as {
    type: string;
    conversation: { id: string };
  };
  assert.equal(start.type, "start");
  assert.deepEqual((await b.conversations.spaces({ id: start.conversation.id })).spaces, ["owner~recipes"]);
  assert.deepEqual(await b.spaces.shareNotices(), [], "picking the space is seeing it");
});
