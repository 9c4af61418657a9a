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
import { runAs } from "../core/acting";
import { createPerson } from "../auth/people";

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

test("search: a person's results and their order do not depend on anyone else's conversations (issue 43, finding 2)", () => {
  const d = db();
  const bob = createPerson(d, { name: "Bob", login: "bob", passwordHash: "x", role: "member" }).id;
  const asBob = <T>(fn: () => T) => runAs({ personId: bob, admin: false }, fn);
  // Bob's conversations: the two words in different proportions, so that bm25 over a shared index orders
  // them by how rare each word is across everyone's messages.
  asBob(() => {
    const lanterns = createConversation(d, { title: "Evening walk" });
    appendMessages(d, lanterns.id, [{ role: "user", content: "lantern lantern lantern by the harbour" }]);
    const harbour = createConversation(d, { title: "Boats" });
    appendMessages(d, harbour.id, [
      { role: "user", content: "the harbour harbour harbour wall near a lantern" },
      { role: "assistant", content: "A harbour with a lantern sounds lovely." },
    ]);
    const titled = createConversation(d, { space: "work", title: "Harbour lantern festival" });
    appendMessages(d, titled.id, [{ role: "user", content: "tickets for saturday" }]);
    const temp = createConversation(d, { title: "Harbour lantern (temporary)", temporary: true });
    appendMessages(d, temp.id, [{ role: "user", content: "harbour lantern" }]);
  });
  const queries = ["harbour lantern", "lantern", "harbour", "harb", "wall"];
  const bobSees = () => JSON.stringify(queries.map((q) => asBob(() => searchConversations(d, q, { limit: 200 }))));
  const before = bobSees();
  assert.ok(asBob(() => searchConversations(d, "harbour lantern")).length === 3, "Bob's three conversations");

  // The owner writes many conversations and temporary chats full of Bob's words: more than the 2,000 index
  // rows the search used to rank household-wide, and skewed towards one word.
  const written: string[] = [];
  d.transaction(() => {
    for (let i = 0; i < 700; i++) {
      const c = createConversation(d, { title: `Harbour lantern notes ${i}`, temporary: i % 7 === 0 });
      written.push(c.id);
      appendMessages(d, c.id, [
        { role: "user", content: `lantern lantern lantern lantern harbour ${i}` },
        { role: "assistant", content: "lantern and harbour again" },
        { role: "user", content: "a wall of lanterns, the harbour wall" },
      ]);
    }
  })();
  assert.equal(bobSees(), before, "Bob's results and order are the same after the owner wrote");
  for (const id of written) deleteConversation(d, id);
  assert.equal(bobSees(), before, "and after the owner deleted everything");
});

test("search order: pinned, then a matching title, then more matching messages, then the most recent; the snippet is the latest match", async () => {
  const d = db();
  const once = createConversation(d, { title: "One mention" });
  appendMessages(d, once.id, [{ role: "user", content: "walnut bread" }]);
  await new Promise((r) => setTimeout(r, 5));
  const twice = createConversation(d, { title: "Two mentions" });
  appendMessages(d, twice.id, [
    { role: "user", content: "walnut cake first" },
    { role: "assistant", content: "walnut cake second" },
  ]);
  await new Promise((r) => setTimeout(r, 5));
  const recentOnce = createConversation(d, { title: "Another mention" });
  appendMessages(d, recentOnce.id, [{ role: "user", content: "walnut oil" }]);
  const titled = createConversation(d, { title: "Walnut harvest" });
  const pinned = createConversation(d, { title: "Pinned, mentioned once" });
  appendMessages(d, pinned.id, [{ role: "user", content: "a walnut" }]);
  pinConversation(d, pinned.id, true);
  const hits = searchConversations(d, "walnut");
  assert.deepEqual(ids(hits), [pinned.id, titled.id, twice.id, recentOnce.id, once.id]);
  assert.equal(hits[2]!.snippet, "«walnut» cake second");
  assert.equal(hits[1]!.snippet, null, "only the title matched");
  assert.deepEqual(ids(searchConversations(d, "walnut", { limit: 2 })), [pinned.id, titled.id]);
});
