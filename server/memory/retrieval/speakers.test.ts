import assert from "node:assert/strict";
import { after, test } from "node:test";
import { axisVector, openTempStore } from "../../test/temp-store";
import { getMemoriesByRid, getMemory, insertMemories, softDeleteMemories } from "../store";
import { chunkSaid } from "../store/chunker";
import { unscored } from "./fuse";
import { namedSpeakers, spaceSpeakers, withSpeakers } from "./speakers";
import type { Staged } from "./rerank";

const s = openTempStore({ model: "m", dim: 4 });
after(() => s.close());

const exchange = (space: string, a: [string, string], b: [string, string]) => {
  const [c] = chunkSaid([
    { name: a[0], text: a[1] },
    { name: b[0], text: b[1] },
  ]);
  const [id] = insertMemories(
    s.sqlite,
    [{ spaceId: space, content: c!.content, speakers: c!.speakers }],
    [axisVector(4, 0)],
    "m",
  );
  return { id: id!, rid: getMemory(s.sqlite, id!)!.rid };
};

test("the speakers of a space are its stored names, refreshed when the space changes", () => {
  exchange("club", ["Caroline", "I researched adoption agencies."], ["Mel Ray", "That sounds hopeful."]);
  const other = exchange("club", ["Jon", "My bakery opened."], ["Mel Ray", "Congratulations!"]);
  exchange("elsewhere", ["Gina", "I lost my job."], ["Jon", "Sorry to hear."]);
  // A memory with "Name:" in its text but no stored speakers names nobody.
  insertMemories(s.sqlite, [{ spaceId: "club", content: "Priya: hello there" }], [axisVector(4, 1)], "m");
  assert.deepEqual(spaceSpeakers(s.sqlite, "club").sort(), ["Caroline", "Jon", "Mel Ray"]);
  softDeleteMemories(s.sqlite, [other.id]);
  assert.deepEqual(spaceSpeakers(s.sqlite, "club").sort(), ["Caroline", "Mel Ray"]);
});

test("a query names a stored speaker by the name's words in a row, whatever their case; capitals name nobody", () => {
  const names = ["Caroline", "Mel Ray"];
  assert.deepEqual(namedSpeakers("what did caroline research?", names), ["Caroline"]);
  assert.deepEqual(namedSpeakers("When did MEL RAY call?", names), ["Mel Ray"]);
  assert.deepEqual(namedSpeakers("Did Mel call Ray?", names), [], "the words of a name must be in a row");
  assert.deepEqual(
    namedSpeakers("What did Priya say in Paris?", names),
    [],
    "a capitalised word that is no stored name",
  );
});

test("a memory where the named person said the matched words rises; one where someone else said them does not", () => {
  const theirs = exchange("pets", ["Anna", "We adopted a puppy named Rex."], ["Ben", "Lovely!"]);
  const others = exchange("pets", ["Anna", "How was your weekend?"], ["Ben", "We adopted a puppy too."]);
  const rows = getMemoriesByRid(s.sqlite, [theirs.rid, others.rid]);
  const staged = () =>
    [others, theirs].map(({ rid }): Staged => ({ ...unscored(rid, "hybrid"), fused: 1, moves: [], dateMatch: false }));
  const terms = [
    { stem: "anna", idf: 0.5 },
    { stem: "adopt", idf: 2 },
    { stem: "puppi", idf: 2 },
  ];
  const out = withSpeakers(staged(), rows, ["Anna"], terms, 0.5);
  assert.equal(out[0]!.rid, theirs.rid);
  assert.equal(out[0]!.fused, 1.5, "all of the matched words (the name aside) are Anna's: × 1.5");
  assert.match(out[0]!.moves[0]!, /speaker ×1\.50 \(Anna said it\)/);
  assert.equal(out[1]!.fused, 1, "Ben said them: unchanged");
  // No name in the query, or the stage off: nothing moves.
  assert.deepEqual(
    withSpeakers(staged(), rows, [], terms, 0.5).map((c) => c.fused),
    [1, 1],
  );
  assert.deepEqual(
    withSpeakers(staged(), rows, ["Anna"], terms, 0).map((c) => c.fused),
    [1, 1],
  );
});
