/**
 * The ChatGPT importer on a fixture in the export's real shape (server/test/fixtures/chatgpt-conversations.json):
 * a message tree per conversation with a hidden system root, custom instructions, a regenerated answer,
 * an edited prompt, a browser tool call and its output, an image in a multimodal prompt, a prompt without
 * a time, no current_node, and an exchange long enough for several chunks.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { checkInvariant, spaceExists } from "../../memory/store";
import { inProcessEmbedder, type InProcessEmbedder } from "../../test/in-process-embedder";
import { openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import { parseChatGptExport, planChatGptImport } from "./chatgpt";
import { search } from "../../memory/retrieval/search";
import type { MemoContext } from "../../core/context";
import { ServiceError } from "../../core/errors";
import { exportMemories, importGroups } from "../transfer-service";

const FIXTURE = path.join(import.meta.dirname, "../../test/fixtures/chatgpt-conversations.json");
const load = () => JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as unknown;

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

test("parses the conversation the person saw: the active branch, user/assistant text only, original times", () => {
  const p = parseChatGptExport(load());
  assert.equal(p.conversations, 4);
  assert.equal(p.skippedMessages, 4, "hidden system root, custom instructions, browser call, tool output");
  assert.deepEqual(
    p.exchanges.map((e) => [e.title, e.timestamp, e.user, e.assistant.slice(0, 40), e.undated]),
    [
      [
        "Sourdough starter",
        "2024-06-15T10:00:00.200Z",
        "How often should I feed my sourdough starter?",
        "Feed it once a day at room temperature, ",
        false,
      ],
      [
        "Sourdough starter",
        "2024-06-15T10:13:20.000Z",
        "And what flour ratio do you recommend?",
        "Use a 1:1:1 ratio of starter, flour and ",
        false,
      ],
      [
        "Trip to Lisbon",
        "2024-07-01T12:00:01.500Z",
        "What should I see in Lisbon in two days?",
        "Day one: Alfama, the castle and a fado e",
        false,
      ],
      [
        "Trip to Lisbon",
        "2024-07-01T12:06:40.000Z",
        "Is the tram 28 worth riding?",
        "Yes, ride tram 28 early in the morning b",
        false,
      ],
      // The prompt has no create_time: the reply's time stands in. The image part is left out.
      [
        "Plant photo",
        "2024-08-01T00:01:00.000Z",
        "What is wrong with my monstera leaves?",
        "Yellow monstera leaves usually mean over",
        false,
      ],
      [
        "Bread technique",
        "2024-09-01T00:00:00.000Z",
        "Give me a very detailed kneading routine for a rye bread.",
        "Step 1: knead the dough gently and let i",
        false,
      ],
    ],
  );
  const all = JSON.stringify(p.exchanges);
  for (const gone of [
    "visit Porto instead",
    "abandoned by an edit",
    "first wording",
    "search(",
    "Tram 28 runs from 7am",
    "I live in Berlin",
    "file-service://",
  ]) {
    assert.ok(!all.includes(gone), `"${gone}" is not imported`);
  }
});

test("imports each exchange as chat memories in the chosen space, with original timestamps, progress and dedup", async () => {
  const c = ctx();
  const plan = planChatGptImport(load(), "chatgpt");
  assert.equal(plan.groups.length, 6);
  assert.deepEqual(
    plan.groups.map((g) => g.length),
    [1, 1, 1, 1, 1, 3],
    "the long exchange is chunked 300/50 like a chat exchange",
  );
  assert.match(plan.detail, /^4 conversations, 6 exchanges, 4 system\/tool\/non-text messages left out$/);

  const seen: number[] = [];
  const r = await importGroups(c, plan.groups, (p) => seen.push(p.done), 3);
  assert.deepEqual([r.total, r.imported, r.duplicates], [8, 8, 0]);
  assert.deepEqual(seen, [0, 3, 5, 8], "progress per batch; the 3 chunks of one exchange stay in one batch");
  assert.ok(spaceExists(c.db, "chatgpt"), "a new valid space is created");
  assert.deepEqual(checkInvariant(c.db), []);

  const file = exportMemories(c.db, "chatgpt");
  const first = file.memories.find((m) => m.content.startsWith("User: How often should I feed"))!;
  assert.equal(
    first.content,
    "User: How often should I feed my sourdough starter? Assistant: Feed it once a day at room temperature, or once a week if you keep it in the fridge.",
  );
  // The export's author roles are stored as who said which part (and travel with a Memo export).
  assert.deepEqual(
    first.speakers!.map((s) => [s.role, first.content.slice(s.start, s.end)]),
    [
      ["user", "How often should I feed my sourdough starter?"],
      ["assistant", "Feed it once a day at room temperature, or once a week if you keep it in the fridge."],
    ],
  );
  assert.deepEqual(
    [first.kind, first.timestamp, first.source.conversationId],
    ["import", "2024-06-15T10:00:00.200Z", "chatgpt:6650a1b2-0001-4c1e-9a00-000000000001"],
  );
  const chunks = file.memories.filter(
    (m) => m.source.conversationId === "chatgpt:6650a1b2-0004-4c1e-9a00-000000000004",
  );
  assert.deepEqual(
    chunks.map((m) => m.source.chunkIndex),
    [0, 1, 2],
  );
  assert.ok(chunks.every((m) => m.timestamp === "2024-09-01T00:00:00.000Z"));

  // Importing the same file again adds nothing.
  const again = await importGroups(c, planChatGptImport(load(), "chatgpt").groups);
  assert.deepEqual([again.imported, again.duplicates], [0, 8]);
  assert.equal(rawCounts(c.db).memories, 8);

  // Searchable like any memory, and only in its space.
  const hit = await search(c, { query: "tram 28 in Lisbon", space: "chatgpt" });
  assert.match(hit.results[0]!.content, /tram 28/);
  const elsewhere = await search(c, { query: "tram 28 in Lisbon", space: "personal" });
  assert.deepEqual([...elsewhere.results, ...elsewhere.dropped], []);
});

test("a file that is not a conversations.json is a 400 and writes nothing", async () => {
  const c = ctx();
  const is400 = (msg: RegExp) => (e: unknown) => e instanceof ServiceError && e.status === 400 && msg.test(e.message);
  assert.throws(
    () => planChatGptImport({ conversations: [] }, "personal"),
    is400(/must be a JSON array of conversations/),
  );
  assert.throws(() => planChatGptImport("hello", "personal"), is400(/must be a JSON array/));
  // Not one conversation readable: not a ChatGPT file at all.
  assert.throws(
    () => planChatGptImport([{ title: "no mapping" }], "personal"),
    is400(
      /no conversation in the file could be read \(conversation 1: no 'mapping' object.*not a ChatGPT conversations\.json/,
    ),
  );
  assert.throws(() => planChatGptImport([1, 2, 3], "personal"), is400(/conversation 1: not an object; and 2 more/));
  assert.throws(
    () => planChatGptImport([{ uuid: "u", name: "x", chat_messages: [] }], "personal"),
    is400(/looks like a Claude export.*use the Claude import/),
  );
  assert.throws(
    () => planChatGptImport({ format: "memo-export", version: 1, memories: [] }, "personal"),
    is400(/this is a Memo export/),
  );
  assert.throws(() => planChatGptImport(load(), "bad space"), is400(/space must be/));
  // Odd nodes inside a valid file are skipped, not fatal.
  const odd = [
    {
      id: "c",
      mapping: {
        a: { id: "a", message: { author: null, content: null }, parent: null, children: ["b"] },
        b: { id: "b" },
      },
      current_node: "zzz",
    },
  ];
  assert.deepEqual(planChatGptImport(odd, "personal").groups, []);
  assert.deepEqual(rawCounts(c.db), { memories: 0, vec: 0, fts: 0, trash: 0 });
});

test("a conversation without a 'mapping' object is reported and left out; the good ones are imported", async () => {
  const c = ctx();
  const good = load() as unknown[];
  const file = [good[0], { id: "broken-1", title: "lost its tree" }, good[1], "not a conversation"];
  const plan = planChatGptImport(file, "chatgpt");
  assert.deepEqual(plan.problems, [
    "conversation 2 (broken-1): no 'mapping' object (the tree of its messages)",
    "conversation 4: not an object",
  ]);
  assert.match(plan.detail, /^2 conversations, 4 exchanges, .*2 malformed conversations left out$/);
  const r = await importGroups(c, plan.groups);
  assert.deepEqual([r.imported, r.duplicates], [4, 0]);
  assert.ok(exportMemories(c.db, "chatgpt").memories.some((m) => m.content.includes("tram 28")));
});
