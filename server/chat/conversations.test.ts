import assert from "node:assert/strict";
import { after, test } from "node:test";
import { spaceExists } from "../memory/store";
import { openTempStore, type TempStore } from "../test/temp-store";
import {
  appendMessages,
  createConversation,
  DEFAULT_TITLE,
  deleteConversation,
  getConversationWithMessages,
  listConversations,
  previousUserMessages,
  promptHistory,
  renameConversation,
  titleFrom,
  updateCommand,
} from "./conversations";
import { ServiceError } from "../core/errors";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function db() {
  const s = openTempStore();
  stores.push(s);
  return s.sqlite;
}
const is = (status: number, re?: RegExp) => (e: unknown) =>
  e instanceof ServiceError && e.status === status && (!re || re.test(e.message));

test("create in a space (created when new), list newest first, rename, delete with its messages", async () => {
  const d = db();
  const a = createConversation(d);
  assert.deepEqual([a.spaceId, a.title, a.messageCount], ["personal", DEFAULT_TITLE, 0]);
  const b = createConversation(d, { space: "work", title: "  Planning   Q3 " });
  assert.equal(b.title, "Planning Q3");
  assert.ok(spaceExists(d, "work"));
  await new Promise((r) => setTimeout(r, 5)); // times have millisecond resolution
  appendMessages(d, a.id, [{ role: "user", content: "hello" }]);
  assert.deepEqual(
    listConversations(d).map((c) => c.id),
    [a.id, b.id],
    "the one with the latest message first",
  );
  assert.deepEqual(
    listConversations(d, { space: "work" }).map((c) => c.id),
    [b.id],
  );
  assert.throws(() => listConversations(d, { space: "nope" }), is(404));
  assert.equal(renameConversation(d, b.id, "Budget").title, "Budget");
  assert.throws(() => renameConversation(d, b.id, "   "), is(400, /empty/));
  assert.throws(() => renameConversation(d, "00000000-0000-4000-8000-000000000000", "x"), is(404));
  assert.throws(() => createConversation(d, { space: "bad space!" }), is(400));
  assert.deepEqual(deleteConversation(d, a.id), { id: a.id, messages: 1 });
  assert.equal((d.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n, 0);
  assert.throws(() => deleteConversation(d, a.id), is(404));
});

test("messages keep their order and recalled memories; the first user message names the conversation", () => {
  const d = db();
  const c = createConversation(d);
  const recalled = [
    {
      id: "m1",
      content: "fact",
      timestamp: "2024-01-01T00:00:00.000Z",
      kind: "chat" as const,
      matchType: "hybrid" as const,
      importance: 2,
      pinned: false,
      scores: {
        similarity: 0.8,
        ftsRank: 1,
        rrf: 0.03,
        bm25: -2,
        vectorRank: 1,
        fused: 0.5,
        final: 0.6,
        confidence: 1,
      },
    },
  ];
  appendMessages(d, c.id, [
    { role: "user", content: "What did I say about the boat trip to the islands next summer with everyone?" },
    { role: "assistant", content: "You said…", recalled },
  ]);
  const { conversation, messages } = getConversationWithMessages(d, c.id);
  assert.equal(conversation.title, "What did I say about the boat trip to the islands next…");
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.ok(messages[0]!.createdAt < messages[1]!.createdAt);
  assert.deepEqual(messages[1]!.recalled, recalled);
  assert.equal(messages[0]!.recalled, null);
  assert.equal(conversation.messageCount, 2);
  assert.equal(conversation.preview, "You said…");
  assert.throws(
    () => appendMessages(d, "00000000-0000-4000-8000-000000000000", [{ role: "user", content: "x" }]),
    is(404),
  );
});

test("titles: short messages as they are, long ones cut at a word", () => {
  assert.equal(titleFrom("  hi \n there "), "hi there");
  assert.equal(titleFrom(""), DEFAULT_TITLE);
  assert.ok(titleFrom("a".repeat(100)).length <= 61);
});

test("titles: a chat opened with a command is named by what it did, not by its syntax", () => {
  assert.equal(titleFrom("/remember My sister Anna lives in Berlin"), "My sister Anna lives in Berlin");
  assert.equal(titleFrom('/forget "peanut"'), "Forget “peanut”");
  assert.equal(titleFrom("/help"), "Commands and shortcuts");
  assert.doesNotMatch(titleFrom(`/remember ${"word ".repeat(30)}`), /^\//);
  assert.equal(titleFrom("/remember"), "/remember"); // not a command that did anything: as typed
});

test("query context and prompt history leave memory commands out; the history keeps to its budget", () => {
  const d = db();
  const c = createConversation(d);
  appendMessages(d, c.id, [
    { role: "user", content: "one" },
    { role: "assistant", content: "reply one" },
    { role: "user", content: "/remember the code is 1234" },
    { role: "assistant", content: "Remembered", command: { type: "remember", text: "the code is 1234", ids: ["x"] } },
    { role: "user", content: "two" },
    { role: "assistant", content: "reply two" },
    { role: "user", content: "three" },
  ]);
  const last = getConversationWithMessages(d, c.id).messages.at(-1)!;
  assert.deepEqual(previousUserMessages(d, c.id, 3, last.id), ["one", "two"]);
  assert.deepEqual(previousUserMessages(d, c.id, 1), ["three"]);
  assert.deepEqual(promptHistory(d, c.id, 10_000, last.id), [
    { role: "user", content: "one" },
    { role: "assistant", content: "reply one" },
    { role: "user", content: "two" },
    { role: "assistant", content: "reply two" },
  ]);
  assert.deepEqual(promptHistory(d, c.id, 12, last.id), [
    { role: "user", content: "two" },
    { role: "assistant", content: "reply two" },
  ]);
});

test("a command reply's record can be updated (an undone /forget)", () => {
  const d = db();
  const c = createConversation(d);
  const [, a] = appendMessages(d, c.id, [
    { role: "user", content: "/forget tea" },
    {
      role: "assistant",
      content: "Forgot 1",
      command: {
        type: "forget",
        pattern: "tea",
        count: 1,
        items: [],
        undo: { ids: [], until: "2999-01-01T00:00:00.000Z" },
        undoneAt: null,
      },
    },
  ]);
  const cmd = a!.command!;
  assert.equal(cmd.type, "forget");
  const m = updateCommand(d, a!.id, {
    ...(cmd as Extract<typeof cmd, { type: "forget" }>),
    undoneAt: "2025-01-01T00:00:00.000Z",
  });
  assert.equal((m.command as { undoneAt: string }).undoneAt, "2025-01-01T00:00:00.000Z");
});
