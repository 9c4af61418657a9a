/**
 * Writing one imported conversation as a chat (server/chat/imported-conversations.ts): ids valid for the
 * routers and the same for the same space and source; messages read back in the export's order even when
 * their times are missing or out of order; a title from the first message when the export had none;
 * nothing added the second time. Real store (no embedder: no memory is written here).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { z } from "zod";
import { openTempStore, type TempStore } from "../test/temp-store";
import { getConversationWithMessages, listConversations } from "./conversations";
import {
  importedConversationId,
  writeImportedConversation,
  writeImportedConversations,
} from "./imported-conversations";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));
const db = () => {
  const s = openTempStore();
  stores.push(s);
  return s.sqlite;
};

test("the id is a UUID the routers accept, one per space and source", () => {
  const a = importedConversationId("personal", "chatgpt:abc");
  assert.ok(z.string().uuid().safeParse(a).success, a);
  assert.equal(importedConversationId("personal", "chatgpt:abc"), a);
  assert.notEqual(importedConversationId("work", "chatgpt:abc"), a);
  assert.notEqual(importedConversationId("personal", "claude:abc"), a);
});

test("messages keep the export's order: a missing time takes the one before, an earlier one is raised", () => {
  const d = db();
  const w = writeImportedConversation(d, "personal", {
    from: "chatgpt",
    source: "chatgpt:order",
    title: "",
    time: "2024-01-01T00:00:00.000Z",
    messages: [
      { role: "user", content: "first question", time: "2024-01-02T10:00:00.000Z" },
      { role: "assistant", content: "first answer", time: null },
      { role: "user", content: "second question", time: "2024-01-02T09:00:00.000Z" },
      { role: "assistant", content: "second answer", time: "2024-01-02T10:05:00.000Z" },
    ],
  });
  assert.equal(w.title, "first question", "named after its first message");
  const { conversation, messages } = getConversationWithMessages(d, w.id);
  assert.deepEqual(
    messages.map((m) => [m.content, m.createdAt]),
    [
      ["first question", "2024-01-02T10:00:00.000Z"],
      ["first answer", "2024-01-02T10:00:00.000Z"],
      ["second question", "2024-01-02T10:00:00.000Z"],
      ["second answer", "2024-01-02T10:05:00.000Z"],
    ],
  );
  assert.equal(conversation.importedFrom, "chatgpt");
  assert.equal(conversation.createdAt, "2024-01-02T10:00:00.000Z");
  assert.equal(conversation.updatedAt, "2024-01-02T10:05:00.000Z");
  // No memory of the exchange is stored here: the replies are settled with none linked.
  const rows = d
    .prepare("SELECT persisted_at, memory_ids FROM messages WHERE conversation_id = ? AND role = 'assistant'")
    .all(w.id) as { persisted_at: string | null; memory_ids: string }[];
  assert.ok(rows.every((r) => r.persisted_at !== null && r.memory_ids === "[]"));
});

test("the same conversation again adds nothing; the summary counts it and links it", async () => {
  const d = db();
  const conv = {
    from: "claude",
    source: "claude:x",
    title: "  A   title\nwith spaces ",
    time: null,
    messages: [{ role: "user" as const, content: "hello", time: null }],
  };
  const first = await writeImportedConversations(d, [{ space: "personal", conversation: conv }]);
  assert.equal(first.created, 1);
  assert.equal(first.first[0]!.title, "A title with spaces");
  const again = await writeImportedConversations(d, [{ space: "personal", conversation: conv }]);
  assert.deepEqual(again, { total: 1, created: 0, first: first.first });
  assert.equal(listConversations(d).length, 1);
  assert.equal((d.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n, 1);
});
