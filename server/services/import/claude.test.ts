/**
 * The Claude importer on a conversations.json written in the shape of Claude's data export
 * (server/test/fixtures/claude-conversations.json): old messages with `text` only, newer ones with
 * `content` parts (text, thinking, tool use and its result, an image), an attachment, a greeting before
 * the person's first message, an empty conversation, messages without a time, and a reply long enough
 * for several chunks; then malformed files and conversations written here.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { checkInvariant } from "../../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import { parseClaudeExport, planClaudeImport } from "./claude";
import { planImport } from "./registry";
import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import { exportMemories, importGroups } from "../transfer-service";

const FIXTURE = path.join(import.meta.dirname, "../../test/fixtures/claude-conversations.json");
const load = () => JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as Record<string, unknown>[];

let emb: InProcessEmbedder;
const stores: TempStore[] = [];
before(async () => {
  emb = await inProcessEmbedder();
});
after(() => stores.forEach((s) => s.close()));
function ctx(): MemoContext {
  const s = openTempStore();
  stores.push(s);
  return { db: s.sqlite, embedder: emb };
}
const is400 = (msg: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && msg.test(e.message);

test("parses what the person and Claude said, as text, with the messages' original times", () => {
  const p = parseClaudeExport(load());
  assert.equal(p.conversations, 4);
  assert.equal(p.skippedMessages, 2, "the greeting before any prompt, the image-only prompt");
  assert.deepEqual(p.problems, []);
  assert.deepEqual(
    p.exchanges.map((e) => [e.title, e.timestamp, e.user, e.assistant.slice(0, 50), e.undated]),
    [
      [
        "Planning the vegetable garden",
        "2024-03-10T08:00:01.000Z",
        "Which vegetables can I sow outdoors in March in Hamburg?",
        "In March you can sow broad beans, peas, radishes a",
        false,
      ],
      [
        "Planning the vegetable garden",
        "2024-03-10T08:04:00.000Z",
        "How deep should the broad beans go?",
        "Sow broad beans about 5 cm deep and 20 cm apart.",
        false,
      ],
      [
        "Rust borrow checker",
        "2024-05-20T19:30:05.000Z",
        "Why does the borrow checker reject two mutable references to my vector?",
        "Rust allows either one mutable reference or any nu",
        false,
      ],
      // No time on the messages: the conversation's.
      [
        "Seedling care routine",
        "2024-07-04T06:00:00.000Z",
        "Give me a very detailed daily routine for caring for tomato seedlings.",
        "Step 1: water the seedlings lightly and check the ",
        false,
      ],
    ],
  );
  // The text parts of `content` (an empty `text` does not hide them), joined.
  assert.equal(
    p.exchanges[2]!.assistant,
    "Rust allows either one mutable reference or any number of shared ones at a time,\nso two mutable borrows of the same vector overlap and are rejected.",
  );
  const all = JSON.stringify(p.exchanges);
  for (const gone of ["hidden reasoning", "search query", "Rustonomicon", "secret attachment", "How can I help you"])
    assert.ok(!all.includes(gone), `"${gone}" is not imported`);
});

test("imports each exchange as chat memories in the chosen space, with original times, speakers and dedup", async () => {
  const c = ctx();
  const plan = planClaudeImport(load(), "claude-history");
  assert.deepEqual(
    plan.groups.map((g) => g.length),
    [1, 1, 1, 3],
    "the long reply is chunked 300/50 like a chat exchange",
  );
  assert.equal(plan.detail, "4 conversations, 4 exchanges, 2 system/tool/non-text messages left out");
  const seen: number[] = [];
  const r = await importGroups(c, plan.groups, (p) => seen.push(p.done), 3);
  assert.deepEqual([r.total, r.imported, r.duplicates], [6, 6, 0]);
  assert.deepEqual(seen, [0, 3, 6], "the 3 chunks of one exchange stay in one batch");
  assert.deepEqual(checkInvariant(c.db), []);

  const file = exportMemories(c.db, "claude-history");
  const first = file.memories.find((m) => m.content.startsWith("User: How deep"))!;
  assert.equal(
    first.content,
    "User: How deep should the broad beans go? Assistant: Sow broad beans about 5 cm deep and 20 cm apart.",
  );
  assert.deepEqual(
    [first.kind, first.timestamp, first.source.conversationId],
    ["import", "2024-03-10T08:04:00.000Z", "claude:c1a0de00-0001-4000-8000-000000000001"],
  );
  assert.deepEqual(
    first.speakers!.map((s) => s.role),
    ["user", "assistant"],
  );
  const chunks = file.memories.filter((m) => m.source.conversationId === "claude:c1a0de00-0004-4000-8000-000000000004");
  assert.deepEqual(
    chunks.map((m) => m.source.chunkIndex),
    [0, 1, 2],
  );

  // Importing the same file again adds nothing.
  const again = await importGroups(c, planClaudeImport(load(), "claude-history").groups);
  assert.deepEqual([again.imported, again.duplicates], [0, 6]);
  assert.equal(rawCounts(c.db).memories, 6);
});

test("a malformed conversation is reported by number and left out; the good ones are imported", async () => {
  const c = ctx();
  const [garden, rust, , seedlings] = load();
  const file = [
    garden,
    { uuid: "no-messages", name: "lost" },
    rust,
    { uuid: "messages-not-a-list", chat_messages: { m: 1 } },
    42,
    // Odd messages inside a good conversation are left out, not fatal.
    {
      ...seedlings,
      chat_messages: [
        null,
        { sender: "human" },
        { sender: "robot", text: "beep" },
        ...(seedlings!.chat_messages as []),
      ],
    },
  ];
  const plan = planClaudeImport(file, "claude-history");
  assert.deepEqual(plan.problems, [
    "conversation 2 (no-messages): no 'chat_messages' list (the messages of the conversation)",
    "conversation 4 (messages-not-a-list): no 'chat_messages' list (the messages of the conversation)",
    "conversation 5: not an object",
  ]);
  assert.equal(
    plan.detail,
    "3 conversations, 4 exchanges, 5 system/tool/non-text messages left out, 3 malformed conversations left out",
  );
  const r = await importGroups(c, plan.groups);
  assert.deepEqual([r.imported, r.duplicates], [6, 0]);
});

test("a file that is not a Claude conversations.json is a 400 naming the problem, and writes nothing", () => {
  const c = ctx();
  assert.throws(
    () => planClaudeImport({ conversations: [] }, "personal"),
    is400(/must be a JSON array of conversations/),
  );
  assert.throws(() => planClaudeImport("hello", "personal"), is400(/must be a JSON array/));
  assert.throws(
    () => planClaudeImport([{ name: "a" }, { name: "b" }], "personal"),
    is400(
      /no conversation in the file could be read \(conversation 1: no 'chat_messages' list.*; and 1 more\).*not a Claude conversations\.json/,
    ),
  );
  assert.throws(
    () => planClaudeImport([{ id: "x", mapping: {}, current_node: null }], "personal"),
    is400(/looks like a ChatGPT export.*use the ChatGPT import/),
  );
  assert.throws(
    () => planClaudeImport({ format: "memo-export", version: 1, memories: [] }, "personal"),
    is400(/this is a Memo export/),
  );
  assert.throws(() => planImport("claude", load(), "bad space"), is400(/space must be/));
  // An empty export is a valid one: nothing to write.
  assert.deepEqual(planClaudeImport([], "personal").groups, []);
  assert.deepEqual(rawCounts(c.db), { memories: 0, vec: 0, fts: 0, trash: 0 });
});
