/**
 * Conversation search (conversation_fts, kept in step by triggers), pinning, Markdown export.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { openTempStore, type TempStore } from "../test/temp-store";
import {
  appendMessages,
  createConversation,
  deleteConversation,
  listConversations,
  renameConversation,
} from "../chat/conversations";
import {
  conversationMarkdown,
  conversationMatch,
  exportFileName,
  pinConversation,
  searchConversations,
} from "./conversation-extras";
import { ServiceError } from "../core/errors";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
function db() {
  const s = openTempStore();
  stores.push(s);
  return s.sqlite;
}
const ids = (r: { id: string }[]) => r.map((c) => c.id);

test("search: titles and message text, every word, the last as a prefix; FTS syntax is plain text", () => {
  const d = db();
  const jam = createConversation(d, { title: "Apricot jam" });
  appendMessages(d, jam.id, [
    { role: "user", content: "the secret is cardamom" },
    { role: "assistant", content: "Noted: cardamom." },
  ]);
  const bike = createConversation(d, { space: "work", title: "Bicycle repair" });
  appendMessages(d, bike.id, [{ role: "user", content: "the chain slips on hills" }]);

  assert.deepEqual(ids(searchConversations(d, "apricot")), [jam.id], "title");
  assert.deepEqual(ids(searchConversations(d, "CARDAM")), [jam.id], "message text, prefix, any case");
  assert.deepEqual(ids(searchConversations(d, "chain hills")), [bike.id], "across spaces");
  assert.deepEqual(ids(searchConversations(d, "chain cardamom")), [], "every word must occur in one message or title");
  const hit = searchConversations(d, "cardamom")[0]!;
  assert.match(hit.snippet ?? "", /«cardamom»/);
  for (const nasty of [
    '"',
    "*",
    "(",
    "chain OR",
    "NEAR(chain hills)",
    "title:chain",
    "^chain",
    "chain -hills",
    "'; DROP TABLE messages; --",
  ]) {
    assert.doesNotThrow(() => searchConversations(d, nasty), nasty);
  }
  assert.deepEqual(ids(searchConversations(d, '"chain*')), [bike.id]);
  assert.deepEqual(searchConversations(d, "  *() "), []);
  assert.equal(conversationMatch('a"b'), '"a" AND "b"*');
  assert.throws(
    () => searchConversations(d, "x".repeat(201)),
    (e) => e instanceof ServiceError && e.status === 400,
  );
});

test("the index follows renames, edits and deletes", () => {
  const d = db();
  const c = createConversation(d, { title: "Garden plans" });
  const [m] = appendMessages(d, c.id, [{ role: "user", content: "plant tulips in october" }]);
  renameConversation(d, c.id, "Spring bulbs");
  assert.deepEqual(ids(searchConversations(d, "garden")), []);
  assert.deepEqual(ids(searchConversations(d, "bulbs")), [c.id]);
  d.prepare("UPDATE messages SET content = 'plant crocus' WHERE id = ?").run(m!.id);
  assert.deepEqual(ids(searchConversations(d, "tulips")), []);
  assert.deepEqual(ids(searchConversations(d, "crocus")), [c.id]);
  d.prepare("DELETE FROM messages WHERE id = ?").run(m!.id);
  assert.deepEqual(ids(searchConversations(d, "crocus")), []);
  deleteConversation(d, c.id);
  assert.deepEqual(ids(searchConversations(d, "bulbs")), []);
  assert.equal((d.prepare("SELECT count(*) AS n FROM conversation_fts").get() as { n: number }).n, 0);
});

test("pinned conversations come first in the list and in search results", async () => {
  const d = db();
  const a = createConversation(d, { title: "Alpha notes" });
  await new Promise((r) => setTimeout(r, 5));
  const b = createConversation(d, { title: "Beta notes" });
  appendMessages(d, b.id, [{ role: "user", content: "newest" }]);
  assert.deepEqual(ids(listConversations(d)), [b.id, a.id]);
  assert.equal(pinConversation(d, a.id, true).pinned, true);
  assert.deepEqual(ids(listConversations(d)), [a.id, b.id]);
  assert.deepEqual(ids(searchConversations(d, "notes")), [a.id, b.id]);
  pinConversation(d, a.id, false);
  assert.deepEqual(ids(listConversations(d)), [b.id, a.id]);
  assert.throws(
    () => pinConversation(d, "00000000-0000-4000-8000-000000000009", true),
    (e) => e instanceof ServiceError && e.status === 404,
  );
});

test("Markdown export: title, speakers with times, text as written, recalled memories folded", () => {
  const d = db();
  const c = createConversation(d, { title: "Trip: Lisbon / Porto?" });
  appendMessages(d, c.id, [
    { role: "user", content: "Plan **two** days" },
    {
      role: "assistant",
      content: "Day 1: Alfama.\n\n```\ncode\n```",
      recalled: [
        {
          id: "m1",
          content: "User likes trams",
          timestamp: "2024-01-02T00:00:00.000Z",
          kind: "chat",
          matchType: "hybrid",
          importance: 1,
          pinned: false,
          scores: { similarity: 0.8, ftsRank: 1, rrf: 0.03, final: 0.03 } as never,
        },
      ],
    },
  ]);
  const { filename, markdown } = conversationMarkdown(d, c.id);
  assert.equal(filename, "trip-lisbon-porto.md");
  assert.match(markdown, /^# Trip: Lisbon \/ Porto\?\n/);
  assert.match(markdown, /## You · \d{4}-\d{2}-\d{2}T[\d:.]+Z\n\nPlan \*\*two\*\* days\n/);
  assert.match(markdown, /## Memo · .*\n\nDay 1: Alfama\.\n\n```\ncode\n```\n/);
  assert.match(markdown, /Recalled memories \(1\)[\s\S]*- 2024-01-02 \(hybrid\): User likes trams/);
  assert.equal(exportFileName("!!!"), "conversation.md");
});
