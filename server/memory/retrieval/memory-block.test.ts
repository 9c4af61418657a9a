import assert from "node:assert/strict";
import { test } from "node:test";
import { chunkSection } from "./document-names";
import { estimateTokens } from "./token-estimate";
import { packMemories, speakerBody, type PackItem } from "./memory-block";

const item = (content: string, over: Partial<PackItem> = {}): PackItem => ({
  content,
  timestamp: "2024-06-15T09:30:00.000Z",
  matchType: "hybrid",
  importance: 5,
  ...over,
});

test("format: header, one dated line per memory, match and importance underneath", () => {
  const { block, used } = packMemories([item("Sister Anna lives in Berlin")], 6, 1500);
  assert.equal(
    block,
    "[Relevant Memories]\n- 2024-06-15: Sister Anna lives in Berlin\n  (match: hybrid, importance: 5)",
  );
  assert.equal(used, 1);
});

test("dates are the person's days: the request's time zone, the edit date too", () => {
  const m = item("Sketched the allotment layout", {
    timestamp: "2026-03-10T03:30:00.000Z",
    updatedAt: "2026-04-01T02:00:00.000Z",
  });
  assert.match(packMemories([m], 6, 1500, { tzOffsetMinutes: -420 }).block, /^- 2026-03-09 \(edited 2026-03-31\): /m);
  assert.match(packMemories([m], 6, 1500, { tzOffsetMinutes: 0 }).block, /^- 2026-03-10 \(edited 2026-04-01\): /m);
});

test("several memories keep their order, match types and importances; multi-line content is indented", () => {
  const { block, used } = packMemories(
    [
      item("first", { matchType: "vector", importance: 1, timestamp: "2023-01-02T00:00:00Z" }),
      item("  line one\n\n  line two  ", { matchType: "fts", importance: 0 }),
    ],
    6,
    1500,
  );
  assert.equal(used, 2);
  assert.equal(
    block,
    "[Relevant Memories]\n- 2023-01-02: first\n  (match: vector, importance: 1)\n- 2024-06-15: line one\n  line two\n  (match: fts, importance: 0)",
  );
});

test("nothing recalled: empty block", () => {
  assert.deepEqual(packMemories([], 6, 1500), { block: "", used: 0 });
});

test("topN caps the number of memories", () => {
  const items = Array.from({ length: 10 }, (_, i) => item(`memory ${i}`));
  const { block, used } = packMemories(items, 3, 1500);
  assert.equal(used, 3);
  assert.equal(block.split("\n- ").length - 1, 3);
  assert.ok(block.includes("memory 2") && !block.includes("memory 3"));
});

test("token budget: a memory that does not fit is skipped and later ones that fit still go in", () => {
  const items = [item("short one"), item("x".repeat(2000)), item("short two")];
  const { block, used } = packMemories(items, 6, 100);
  assert.equal(used, 2);
  assert.ok(block.includes("short one") && block.includes("short two"));
  assert.ok(!block.includes("xxxx"));
  assert.ok(estimateTokens(block) <= 100, `block is ${estimateTokens(block)} tokens`);
});

test("line breaks and code indentation are kept (only the indentation all lines share is removed)", () => {
  const code =
    "    function total(xs) {\n      let sum = 0;\n\n      for (const x of xs) sum += x;\n      return sum;\n    }\n";
  const { block } = packMemories([item(code)], 6, 1500);
  assert.equal(
    block,
    "[Relevant Memories]\n- 2024-06-15: function total(xs) {\n    let sum = 0;\n    for (const x of xs) sum += x;\n    return sum;\n  }\n  (match: hybrid, importance: 5)",
  );
  // A spoken part keeps the person's line breaks too (the spans are offsets into the content as given).
  const said = "User: my script:\nif x:\n    run()\nAssistant: Looks fine.";
  assert.equal(
    speakerBody(
      said,
      [
        { role: "user", start: 6, end: said.indexOf("\nAssistant:") },
        { role: "assistant", start: said.indexOf("Looks"), end: said.length },
      ],
      400,
    ),
    "the user said: “my script:\n  if x:\n      run()”\n  you replied: “Looks fine.”",
  );
});

test("a document chunk is named by its file and section heading", () => {
  const m = item("## Install\n\nRun npm ci first.", { documentName: "guide.md", section: "Install" });
  assert.match(
    packMemories([m], 6, 1500).block,
    /^- 2024-06-15 \(from guide\.md, section “Install”\): ## Install\n {2}Run npm ci first\.$/m,
  );
  assert.match(
    packMemories([item("x", { documentName: "notes.txt" })], 6, 1500).block,
    /^- 2024-06-15 \(from notes\.txt\): x$/m,
  );
  assert.doesNotMatch(packMemories([item("x")], 6, 1500).block, /from/);
});

test("chunkSection: the ATX or setext headings a chunk starts with, as a path, else null", () => {
  assert.equal(chunkSection("## Install ##\n\ntext"), "Install");
  assert.equal(chunkSection("Usage\n-----\nmore"), "Usage");
  assert.equal(chunkSection("Plain text\nno heading"), null);
  assert.equal(chunkSection("#hashtag is not a heading"), null);
  assert.equal(chunkSection("# Guide\n\n## Install\n\ntext\n## Later"), "Guide › Install");
  assert.equal(chunkSection("## Old\n## New\nbody"), "New");
});

test("a single overlong first memory is truncated to fit, marked with …", () => {
  const long = "word ".repeat(2000).trim();
  // The second on a day of its own: the first line's day is its alone, so it carries no time (sharedDays).
  const second = item("second", { timestamp: "2024-06-16T09:30:00.000Z" });
  const { block, used } = packMemories([item(long), second], 6, 200);
  assert.equal(used, 1);
  assert.match(block, /^\[Relevant Memories\]\n- 2024-06-15: (word ?)+…\n {2}\(match: hybrid, importance: 5\)$/);
  assert.ok(estimateTokens(block) <= 200, `block is ${estimateTokens(block)} tokens`);
  assert.ok(block.length > 500, "the cut keeps most of the budget");
});

test("a truncated multi-line memory stays within the budget too", () => {
  const long = "line\n".repeat(2000);
  const { block, used } = packMemories([item(long)], 6, 200);
  assert.equal(used, 1);
  assert.ok(block.endsWith("…\n  (match: hybrid, importance: 5)"));
  assert.ok(estimateTokens(block) <= 200, `block is ${estimateTokens(block)} tokens`);
});

test("a budget too small for a useful cut skips that memory; a later one that fits still goes in", () => {
  assert.deepEqual(packMemories([item("y".repeat(1000))], 6, 25), { block: "", used: 0 });
  // Both fall on 2024-06-15, so the line packed carries its time too (sharedDays).
  assert.deepEqual(packMemories([item("y".repeat(1000)), item("hi")], 6, 25, { tzOffsetMinutes: 0 }), {
    block: "[Relevant Memories]\n- 2024-06-15 09:30: hi\n  (match: hybrid, importance: 5)",
    used: 1,
  });
});

test("estimateTokens is ceil(chars / 4)", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
});

test("lines of a day that several candidates share carry their time in the person's zone; a lone day's line its date", () => {
  const { block } = packMemories(
    [
      item("left the keys with Sunniva", { timestamp: "2026-05-04T06:05:00.000Z" }),
      item("took the keys back from Sunniva", { timestamp: "2026-05-04T19:45:00.000Z" }),
      item("had the keys copied", { timestamp: "2026-04-01T12:00:00.000Z" }),
    ],
    6,
    1500,
    { tzOffsetMinutes: 120 },
  );
  assert.match(block, /^- 2026-05-04 08:05: left the keys/m);
  assert.match(block, /^- 2026-05-04 21:45: took the keys back/m);
  assert.match(block, /^- 2026-04-01: had the keys copied/m);
  // The days are the person's: 23:30 UTC on the 4th is the 5th two hours east, a day of its own.
  const late = packMemories(
    [item("a", { timestamp: "2026-05-04T23:30:00.000Z" }), item("b", { timestamp: "2026-05-04T10:00:00.000Z" })],
    6,
    1500,
    { tzOffsetMinutes: 120 },
  ).block;
  assert.match(late, /^- 2026-05-05: a$/m);
  assert.match(late, /^- 2026-05-04: b$/m);
});

test("each line names its writer relative to the person asking: another person by name, in their space; an import; a restating reply", () => {
  const said = "User: the boiler code is 4471 Assistant: Noted, 4471.";
  const speakers = [
    { role: "user" as const, start: 6, end: said.indexOf(" Assistant:") },
    { role: "assistant" as const, start: said.indexOf("Noted"), end: said.length },
  ];
  const theirs = packMemories(
    [
      item(said, {
        speakers,
        source: { writer: "Signe", space: { owner: "Signe", name: "cabin" }, imported: null, restated: false },
      }),
    ],
    6,
    1500,
    { speakers: true },
  ).block;
  assert.match(
    theirs,
    /^- 2024-06-15 \(in Signe's shared space “cabin”\): Signe said: “the boiler code is 4471”\n {2}you replied to Signe: “Noted, 4471\.”$/m,
  );
  const note = packMemories(
    [
      item("The boat key hangs by the door", {
        source: { writer: "Signe", space: { owner: "Signe", name: "cabin" }, imported: null, restated: false },
      }),
    ],
    6,
    1500,
    { speakers: true },
  ).block;
  assert.match(note, /\(in Signe's shared space “cabin”\): Signe wrote: “The boat key hangs by the door”/);
  const imported = packMemories(
    [item(said, { speakers, source: { writer: null, space: null, imported: "chatgpt", restated: true } })],
    6,
    1500,
    { speakers: true },
  ).block;
  assert.match(
    imported,
    /^- 2024-06-15 \(from the user's chatgpt history\): the user said: “the boiler code is 4471”\n {2}you replied, restating what you recalled then: “Noted, 4471\.”$/m,
  );
});

test("a document in another person's space is named by its file, its text not put in their mouth", () => {
  const source = { writer: "Signe", space: { owner: "Signe", name: "cabin" }, imported: null, restated: false };
  const { block } = packMemories(
    [item("Turn the water off at the main valve in October.", { documentName: "cabin-guide.md", source })],
    6,
    1500,
    { speakers: true },
  );
  assert.match(
    block,
    /^- 2024-06-15 \(from cabin-guide\.md, in Signe's shared space “cabin”\): Turn the water off at the main valve/m,
  );
  assert.doesNotMatch(block, /Signe wrote/);
});
