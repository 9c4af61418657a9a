import assert from "node:assert/strict";
import { test } from "node:test";
import { chunkWords, exchangeText } from "./chunker";

/** "w0 w1 … w(n-1)": every word unique, so a chunk's words say exactly which window it is. */
const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `w${from + i}`);
const text = (n: number) => words(n).join(" ");

test("300/50: 700 words become exact windows [0,300) [250,550) [500,700)", () => {
  const chunks = chunkWords(text(700), 300, 50);
  assert.equal(chunks.length, 3);
  assert.deepEqual(chunks[0]!.split(" "), words(300, 0));
  assert.deepEqual(chunks[1]!.split(" "), words(300, 250));
  assert.deepEqual(chunks[2]!.split(" "), words(200, 500));
});

test("consecutive chunks share exactly the 50-word overlap", () => {
  const chunks = chunkWords(text(1000), 300, 50).map((c) => c.split(" "));
  assert.equal(chunks.length, 4); // starts 0, 250, 500, 750 (last ends at 1000)
  for (let i = 1; i < chunks.length; i++) {
    assert.deepEqual(chunks[i]!.slice(0, 50), chunks[i - 1]!.slice(-50), `overlap between chunk ${i - 1} and ${i}`);
  }
  // Every word is covered, in order, with no gap.
  const covered = new Set(chunks.flat());
  assert.equal(covered.size, 1000);
});

test("the last chunk ends at the last word and no chunk lies inside the previous one", () => {
  // 550 words: [0,300) then [250,550) reaches the end; a third window [500,550) would be redundant.
  const c550 = chunkWords(text(550), 300, 50);
  assert.equal(c550.length, 2);
  assert.deepEqual(c550[1]!.split(" "), words(300, 250));
  // 301 words: the second chunk is the 50-word overlap plus the one extra word.
  const c301 = chunkWords(text(301), 300, 50);
  assert.equal(c301.length, 2);
  assert.deepEqual(c301[1]!.split(" "), words(51, 250));
  assert.equal(c301[1]!.split(" ").at(-1), "w300");
});

test("a text of at most `size` words is one chunk", () => {
  assert.deepEqual(chunkWords(text(300), 300, 50), [text(300)]);
  assert.deepEqual(chunkWords("just a few words", 300, 50), ["just a few words"]);
  assert.deepEqual(chunkWords("one"), ["one"]);
});

test("whitespace: runs of spaces, tabs and newlines become single spaces; blank text gives no chunk", () => {
  assert.deepEqual(chunkWords("  hello \n\n world\t\tagain  \r\n"), ["hello world again"]);
  assert.deepEqual(chunkWords(""), []);
  assert.deepEqual(chunkWords("   \n\t  "), []);
  // Non-breaking and other Unicode spaces are whitespace too (\s).
  assert.deepEqual(chunkWords("a\u00a0b\u2003c"), ["a b c"]);
});

test("small windows: size 3, overlap 1", () => {
  assert.deepEqual(chunkWords("a b c d e f g", 3, 1), ["a b c", "c d e", "e f g"]);
  assert.deepEqual(chunkWords("a b c d e f", 3, 1), ["a b c", "c d e", "e f"]);
  assert.deepEqual(chunkWords("a b c d", 2, 0), ["a b", "c d"]);
});

test("invalid arguments are RangeErrors", () => {
  for (const size of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => chunkWords("a b c", size, 0), RangeError, `size ${size}`);
  }
  for (const overlap of [-1, 1.5, 300, 301, Number.NaN]) {
    assert.throws(() => chunkWords("a b c", 300, overlap), RangeError, `overlap ${overlap}`);
  }
});

test("exchangeText joins the user message and the reply, trimmed", () => {
  assert.equal(exchangeText("  hi there \n", "\nhello!  "), "User: hi there\nAssistant: hello!");
});

test("chunkSaid chunks as chunkWords(saidText) does and stores each speaker's words as spans", async () => {
  const { chunkSaid, saidText } = await import("./chunker");
  const many = (w: string, n: number) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
  const parts = [
    { name: "Caroline Ray", text: many("c", 200) },
    { name: "Mel", text: `${many("m", 200)}\n\n  end` },
  ];
  const out = chunkSaid(parts, 300, 50);
  assert.deepEqual(
    out.map((c) => c.content),
    chunkWords(saidText(parts), 300, 50),
  );
  // Every word of a span is that speaker's, and every word of theirs in the chunk is in a span (labels are not).
  for (const { content, speakers } of out) {
    for (const s of speakers) {
      const words = content.slice(s.start, s.end).split(" ");
      assert.ok(
        words.every((w) => w.startsWith(s.name === "Mel" ? "m" : "c") || w === "end"),
        s.name,
      );
    }
    const covered = speakers.reduce((n, s) => n + content.slice(s.start, s.end).split(" ").length, 0);
    const labels = content.split(" ").filter((w) => ["Caroline", "Ray:", "Mel:"].includes(w)).length;
    assert.equal(covered + labels, content.split(" ").length);
  }
  assert.deepEqual(
    out[0]!.speakers.map((s) => s.name),
    ["Caroline Ray", "Mel"],
  );
  // A chat exchange: roles, and the same text as exchangeText.
  const [chat] = chunkSaid([
    { role: "user", text: "where is my  passport?" },
    { role: "assistant", text: "In the drawer." },
  ]);
  assert.equal(chat!.content, exchangeText("where is my  passport?", "In the drawer.").replace(/\s+/g, " "));
  assert.deepEqual(
    chat!.speakers.map((s) => [s.role, chat!.content.slice(s.start, s.end)]),
    [
      ["user", "where is my passport?"],
      ["assistant", "In the drawer."],
    ],
  );
});
