import assert from "node:assert/strict";
import { test } from "node:test";
import { packMemories, speakerBody, trimAssistant } from "./pack";
import { isSelfDisclosure } from "./personal";
import { packable } from "./retrieve";
import { fewerRepeats, memoryDate, newerFirst } from "./rerank";

const unit = (xs: number[]) => {
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
};

test("recency among near-duplicates: the newer of two similar results moves above the older; dissimilar ones stay", () => {
  const dates: Record<number, string> = { 1: "2024-01-01", 2: "2024-03-01", 3: "2024-09-01", 4: "2024-12-01" };
  const vectors = new Map([
    [1, unit([1, 0.1, 0])], // the stale fact
    [2, unit([0, 1, 0])],
    [3, unit([1, 0.15, 0.05])], // its update: nearly the same vector, newer
    [4, unit([0, 0, 1])],
  ]);
  const ranked = [1, 2, 3, 4].map((rid) => ({ rid, moves: [] as string[] }));
  const out = newerFirst(ranked, (rid) => dates[rid]!, vectors, 0.9);
  assert.deepEqual(
    out.map((x) => x.rid),
    [3, 1, 2, 4],
  );
  assert.match(out[0]!.moves[0]!, /newer than a near-duplicate/);
  assert.deepEqual(
    newerFirst(ranked, (rid) => dates[rid]!, vectors, 1).map((x) => x.rid),
    [1, 2, 3, 4],
    "1 = off",
  );
  assert.deepEqual(
    newerFirst(ranked, (rid) => dates[rid]!, vectors, 0.9999).map((x) => x.rid),
    [1, 2, 3, 4],
    "not similar enough",
  );
  // "What did I say in January?": the stale fact is inside the named window, its update is not.
  const dated = ranked.map((x) => ({ ...x, moves: [] as string[], dateMatch: x.rid === 1 }));
  assert.deepEqual(
    newerFirst(dated, (rid) => dates[rid]!, vectors, 0.9).map((x) => x.rid),
    [1, 2, 3, 4],
    "a newer duplicate outside the query's date window does not pass one inside it",
  );
  const bothIn = ranked.map((x) => ({ ...x, moves: [] as string[], dateMatch: true }));
  assert.deepEqual(
    newerFirst(bothIn, (rid) => dates[rid]!, vectors, 0.9).map((x) => x.rid),
    [3, 1, 2, 4],
  );
});

test("fewer repeats: a result nearly the same as one above it moves below the distinct results, in order", () => {
  const vectors = new Map([
    [1, unit([1, 0, 0])],
    [2, unit([1, 0.05, 0])], // the same ask again: a repeat of 1
    [3, unit([0, 1, 0])],
    [4, unit([0.05, 1, 0])], // a repeat of 3
    [5, unit([0, 0, 1])],
    [6, unit([0.7, 0.7, 0])], // like 1 and 3 (cosine ≈ 0.71), a repeat of neither
  ]);
  const ranked = () => [1, 2, 3, 4, 5, 6].map((rid) => ({ rid, moves: [] as string[] }));
  const out = fewerRepeats(ranked(), vectors, 0.9);
  assert.deepEqual(
    out.map((x) => x.rid),
    [1, 3, 5, 6, 2, 4],
  );
  assert.match(out[4]!.moves[0]!, /a repeat of result 1/);
  assert.match(out[5]!.moves[0]!, /a repeat of result 2/);
  assert.deepEqual(out[0]!.moves, []);
  assert.deepEqual(
    fewerRepeats(ranked(), vectors, 1).map((x) => x.rid),
    [1, 2, 3, 4, 5, 6],
    "1 = off",
  );
  assert.deepEqual(
    fewerRepeats(ranked(), vectors, 0.6).map((x) => x.rid),
    [1, 3, 5, 2, 4, 6],
    "a lower threshold counts 6 as a repeat of 1",
  );
  // A result without a stored vector (not yet embedded) is never counted a repeat.
  assert.deepEqual(
    fewerRepeats(ranked(), new Map([...vectors].filter(([rid]) => rid !== 2)), 0.9).map((x) => x.rid),
    [1, 2, 3, 5, 6, 4],
  );
});

test("the date a memory is true as of: its edit date when later than its timestamp", () => {
  assert.equal(memoryDate({ timestamp: "2024-01-01T00:00:00.000Z" }), "2024-01-01T00:00:00.000Z");
  assert.equal(
    memoryDate({ timestamp: "2024-01-01T00:00:00.000Z", updatedAt: "2024-05-01T00:00:00.000Z" }),
    "2024-05-01T00:00:00.000Z",
  );
  assert.equal(
    memoryDate({ timestamp: "2024-06-01T00:00:00.000Z", updatedAt: "2024-05-01T00:00:00.000Z" }),
    "2024-06-01T00:00:00.000Z",
  );
});

test("the threshold: only results at or above the minimum confidence are packable; 0 keeps all", () => {
  const rs = [0.9, 0.31, 0.3, 0.05].map((confidence, i) => ({ id: String(i), scores: { confidence } }));
  assert.deepEqual(
    packable(rs, 0.3).map((r) => r.id),
    ["0", "1", "2"],
  );
  assert.deepEqual(packable(rs, 0.95), []);
  assert.equal(packable(rs, 0).length, 4);
});

test("packing keeps who said what and trims assistant boilerplate, under the budget", () => {
  const content =
    "User: Bought a Corolla hybrid today.\nAssistant: Congratulations on the new car! Hybrids save a lot of fuel in town. Would you like me to put together a checklist? Let me know if you want more.";
  assert.equal(
    speakerBody(content, 400),
    "the user said: “Bought a Corolla hybrid today.”\n  you replied: “Hybrids save a lot of fuel in town.”",
  );
  assert.equal(trimAssistant("First fact here. Second fact that is long enough to go over.", 20), "First fact here.");
  const { block, used } = packMemories(
    [{ content, timestamp: "2024-05-02T10:00:00.000Z", matchType: "hybrid", importance: 1 }],
    6,
    1500,
    { speakers: true, assistantMaxChars: 400 },
  );
  assert.equal(used, 1);
  assert.match(block, /- 2024-05-02: the user said: “Bought a Corolla hybrid today\.”\n {2}you replied: “Hybrids save/);
  assert.doesNotMatch(block, /checklist|Congratulations/);
  // As stored (the chunker puts an exchange on one line) it reads the same.
  assert.equal(speakerBody(content.replace("\n", " "), 400), speakerBody(content, 400));
  assert.equal(
    isSelfDisclosure("User: How do I descale a kettle? Assistant: I would use vinegar, my favourite trick."),
    false,
    "the assistant's words are not the user's",
  );
  // Non-chat content (a document chunk, /remember) is packed as it is.
  assert.equal(speakerBody("Sister Anna lives in Berlin", 400), "Sister Anna lives in Berlin");
});
