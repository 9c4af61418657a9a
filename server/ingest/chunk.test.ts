import assert from "node:assert/strict";
import { test } from "node:test";
import type { Embedder } from "../core/context";
import { englishText } from "../test/english-text";
import { inProcessEmbedder } from "../test/in-process-embedder";
import { chunkSections, hardSplit, packUnits, splitUnits, TokenCounter, type SectionUnits, type Unit } from "./chunk";
import { splitMarkdown } from "./markdown";

/** A tokenizer double for the packing logic: one token per whitespace-separated word; counts its calls. */
function wordTokenizer(): Embedder & { calls: string[]; maxInFlight: number } {
  let inFlight = 0;
  const e = {
    calls: [] as string[],
    maxInFlight: 0,
    info: async () => ({ model: "words", dim: 2 }),
    embedQueries: async () => [],
    embedDocuments: async () => [],
    async tokenize(text: string) {
      e.calls.push(text);
      inFlight++;
      e.maxInFlight = Math.max(e.maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return text
        .split(/\s+/)
        .filter(Boolean)
        .map((_, i) => i);
    },
  };
  return e;
}

const units = (...tokens: number[]): Unit[] => tokens.map((t, i) => ({ text: `u${i}(${t}) `, tokens: t }));

test("splitUnits: sentences merged up to the target, split past the max, concatenating back to the text", () => {
  const text = englishText(20_000, 3);
  const u = splitUnits(text, 200, 400);
  assert.equal(u.join(""), text);
  assert.ok(
    u.every((x) => x.length <= 400 + 40),
    "no unit much past the max (trailing whitespace aside)",
  );
  assert.ok(u.length > 80 && u.length < 200, `about 100 units of ~200 chars (got ${u.length})`);
  // Never merged across a blank line.
  assert.ok(
    u.every((x) => !/\n\s*\n\s*\S/.test(x)),
    "a unit never spans a paragraph break",
  );
  // Whitespace-only runs belong to the unit before them.
  assert.deepEqual(splitUnits("One.   Two.\n\n\nThree.", 5, 100), ["One.   ", "Two.\n\n\n", "Three."]);
});

test("hardSplit prefers whitespace, cuts blobs without it, never halves a surrogate pair", () => {
  const words = "alpha beta gamma delta epsilon zeta eta theta";
  const parts = hardSplit(words, 12);
  assert.equal(parts.join(""), words);
  assert.ok(parts.every((p) => p.length <= 12));
  assert.ok(
    parts.slice(0, -1).every((p) => p.endsWith(" ")),
    "cuts fall after whitespace",
  );
  assert.deepEqual(hardSplit("x".repeat(25), 10), ["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  const emoji = "🐶".repeat(10); // 20 UTF-16 units
  const ep = hardSplit(emoji, 5);
  assert.equal(ep.join(""), emoji);
  assert.ok(
    ep.every((p) => !/[\ud800-\udbff]$/.test(p)),
    "no piece ends in half a pair",
  );
});

test("packUnits: chunks at most maxTokens, windows overlap by the run of units closest to 10%", () => {
  const s: SectionUnits[] = [{ heading: null, units: units(...Array(40).fill(10)) }];
  const chunks = packUnits(s, 100, 0.1);
  assert.ok(chunks.every((c) => c.tokens <= 100));
  assert.deepEqual(
    chunks.map((c) => c.tokens),
    [100, 100, 100, 100, 40],
  );
  // Units of 10 tokens: the overlap is exactly one unit (10 = 10% of 100): each window repeats the last unit.
  assert.match(chunks[1]!.content, /^u9\(10\)/);
  assert.match(chunks[2]!.content, /^u18\(10\)/);
  // Overlap picks the closest run: units of 6 → 12 (two units) is closer to 10 than 6 or 18.
  const six = packUnits([{ heading: null, units: units(...Array(40).fill(6)) }], 100, 0.1);
  assert.match(six[1]!.content, /^u14\(6\) u15\(6\) u16/);
});

test("packUnits: a section that fits joins the current chunk, one that does not starts a new one", () => {
  const s: SectionUnits[] = [
    { heading: { text: "# A", tokens: 2 }, units: [{ text: "# A\n", tokens: 2 }, ...units(20, 20)] },
    { heading: { text: "# B", tokens: 2 }, units: [{ text: "# B\n", tokens: 2 }, ...units(30)] },
    { heading: { text: "# C", tokens: 2 }, units: [{ text: "# C\n", tokens: 2 }, ...units(50)] },
  ];
  const chunks = packUnits(s, 100, 0.1);
  assert.equal(chunks.length, 2);
  assert.match(chunks[0]!.content, /^# A[\s\S]*\n\n# B/);
  assert.equal(chunks[0]!.tokens, 42 + 32);
  assert.deepEqual([chunks[1]!.section, chunks[1]!.tokens], [2, 52]);
  assert.match(chunks[1]!.content, /^# C/);
});

test("packUnits: a long section is windowed; continuation windows repeat its heading; a short next section joins the tail", () => {
  const s: SectionUnits[] = [
    {
      heading: { text: "## Long", tokens: 3 },
      units: [{ text: "## Long\n", tokens: 3 }, ...units(...Array(30).fill(10))],
    },
    { heading: null, units: units(5) },
  ];
  const chunks = packUnits(s, 100, 0.1);
  assert.ok(chunks.length >= 3);
  assert.ok(
    chunks.every((c) => c.tokens <= 100),
    JSON.stringify(chunks.map((c) => c.tokens)),
  );
  for (const c of chunks.slice(1)) assert.match(c.content, /^## Long\n\n/, "continuations start with the heading");
  assert.match(chunks.at(-1)!.content, /u0\(5\)$/, "the short section after it joined the last window");
  assert.deepEqual(packUnits([], 100), []);
  assert.deepEqual(packUnits([{ heading: null, units: [{ text: "  \n", tokens: 0 }] }], 100), []);
});

test("TokenCounter: each distinct text tokenized once, a bounded number of requests in flight", async () => {
  const e = wordTokenizer();
  const counter = new TokenCounter(e, 3);
  const texts = Array.from({ length: 40 }, (_, i) => `word ${i % 10} and more`);
  const counts = await counter.count(texts);
  assert.deepEqual(
    counts,
    texts.map(() => 4),
  );
  assert.equal(counter.calls, 10, "40 texts, 10 distinct");
  assert.ok(e.maxInFlight <= 3, `at most 3 in flight (saw ${e.maxInFlight})`);
  assert.deepEqual(await counter.count(["  ", ""]), [0, 0]);
  assert.equal(counter.calls, 10, "blank texts are never sent");
  assert.deepEqual(
    await counter.separatorCosts(),
    { space: 0, line: 0, paragraph: 0 },
    "words: separators cost nothing",
  );
});

test("chunkSections with the real USE-lite tokenizer: ~512-token chunks, ~10% overlap, few tokenizer calls", async () => {
  const emb = await inProcessEmbedder();
  const text = englishText(40_000, 11);
  const sections = [{ heading: null, path: [], text }];
  const { chunks, tokenizeCalls } = await chunkSections(sections, emb, { maxTokens: 512 });
  assert.ok(chunks.length >= 15 && chunks.length <= 30, `${chunks.length} chunks`);
  // Token counts (sums of unit counts plus measured separator costs) agree with tokenizing each chunk
  // whole: never materially under (the limit holds), at most ~3% over.
  for (const c of chunks) {
    const real = (await emb.tokenize(c.content)).length;
    assert.ok(real <= 512 + 2, `chunk of ${real} tokens`);
    assert.ok(real <= c.tokens + 2 && c.tokens - real <= real * 0.03, `counted ${c.tokens}, real ${real}`);
  }
  assert.ok(
    chunks.slice(0, -1).every((c) => c.tokens >= 400),
    "full chunks are near the limit",
  );
  // Overlap: the start of each chunk repeats the end of the previous one, about 10% of its tokens.
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1]!.content;
    let overlap = 0;
    for (let n = Math.min(prev.length, chunks[i]!.content.length); n > 0; n--) {
      if (prev.endsWith(chunks[i]!.content.slice(0, n).trimEnd())) {
        overlap = n;
        break;
      }
    }
    const tokens = (await emb.tokenize(chunks[i]!.content.slice(0, overlap))).length;
    assert.ok(tokens >= 20 && tokens <= 110, `overlap of chunk ${i}: ${tokens} tokens`);
  }
  // One call per distinct unit plus at most 3 per sampled junction (≤ 27) to measure separators: never
  // the whole text, never a chunk again.
  const unitCount = new Set(splitUnits(text).map((u) => u.trim())).size;
  assert.ok(tokenizeCalls <= unitCount + 81, `${tokenizeCalls} calls for ${unitCount} units`);
});

test("chunkSections: Markdown sections stay apart; a unit over the limit is split and recounted", async () => {
  const emb = await inProcessEmbedder();
  const md = `# Apples\n\n${englishText(600, 1)}\n\n# Pears\n\n${englishText(600, 2)}`;
  const { chunks } = await chunkSections(splitMarkdown(md), emb, { maxTokens: 200 });
  assert.ok(chunks.length >= 2);
  assert.ok(
    chunks.every((c) => !(c.content.includes("# Apples") && c.content.includes("# Pears"))),
    "no chunk mixes the two sections",
  );
  // A blob with no sentence breaks and many tokens per character: split until every piece fits.
  const blob = Array.from({ length: 300 }, (_, i) => `x${i}q`).join("");
  const r = await chunkSections([{ heading: null, path: [], text: blob }], emb, { maxTokens: 64 });
  assert.equal(r.chunks.map((c) => c.content).join("").length >= blob.length, true);
  for (const c of r.chunks) assert.ok((await emb.tokenize(c.content)).length <= 64 * 1.05, `${c.tokens} tokens`);
});
