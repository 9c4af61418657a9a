import assert from "node:assert/strict";
import { after, test } from "node:test";
import { axisVector, openTempStore } from "../../test/temp-store";
import { loadNeighbours, propagate } from "./neighbours";
import { insertMemories } from "../store";

test("propagation: a neighbour gains weight × the best adjacent source's score, from the scores before propagation", () => {
  const scores = new Map([
    [1, 1.0],
    [2, 0.2],
    [3, 0.5],
  ]);
  const adjacent = new Map([
    [1, [2]],
    [3, [2, 4]],
    [2, [1, 3]],
  ]);
  const { scores: out, from } = propagate(scores, adjacent, 0.3);
  assert.equal(out.get(2), 0.2 + 0.3 * 1.0, "2 takes the larger of its sources (1: 1.0, 3: 0.5)");
  assert.equal(from.get(2)!.rid, 1);
  assert.equal(out.get(4), 0.3 * 0.5, "4 was no candidate: it joins with the bonus alone");
  assert.equal(out.get(1), 1.0 + 0.3 * 0.2, "1 gains from 2's own score, not from 2's bonus (no chains)");
  assert.equal(out.get(3), 0.5 + 0.3 * 0.2);
  assert.deepEqual(propagate(scores, adjacent, 0).scores, scores, "weight 0 changes nothing");
});

const s = openTempStore({ model: "m", dim: 4 });
after(() => s.close());

test("neighbours: the exchange just before and after in the same space, within the session gap", () => {
  const at = (min: number) => new Date(Date.UTC(2024, 5, 1, 10, 0) + min * 60_000).toISOString();
  const rows = [
    { content: "a", timestamp: at(0) },
    { content: "b", timestamp: at(5) },
    { content: "c", timestamp: at(9) },
    { content: "d", timestamp: at(300) }, // next session
  ];
  insertMemories(
    s.sqlite,
    rows.map((r) => ({ spaceId: "p", ...r })),
    rows.map((_, i) => axisVector(4, i)),
    "m",
  );
  insertMemories(s.sqlite, [{ spaceId: "other", content: "x", timestamp: at(6) }], [axisVector(4, 0)], "m");
  const rid = (c: string) =>
    (s.sqlite.prepare("SELECT rid FROM memories WHERE content = ?").get(c) as { rid: number }).rid;
  const n = loadNeighbours(s.sqlite, [rid("b"), rid("c"), rid("d")], 60);
  assert.deepEqual(n.get(rid("b")), [rid("a"), rid("c")], "other spaces never count");
  assert.deepEqual(n.get(rid("c")), [rid("b")], "d is 291 minutes later: another session");
  assert.equal(n.get(rid("d")), undefined);
});

test("neighbours: exchanges sharing one timestamp (an imported session) are ordered as they were written", () => {
  const at = new Date(Date.UTC(2024, 6, 1, 9, 0)).toISOString();
  const rows = ["s1", "s2", "s3"].map((content) => ({ spaceId: "same-time", content, timestamp: at }));
  insertMemories(
    s.sqlite,
    rows,
    rows.map((_, i) => axisVector(4, i)),
    "m",
  );
  const rid = (c: string) =>
    (s.sqlite.prepare("SELECT rid FROM memories WHERE content = ?").get(c) as { rid: number }).rid;
  const n = loadNeighbours(s.sqlite, [rid("s1"), rid("s2"), rid("s3")], 60);
  assert.deepEqual(n.get(rid("s2")), [rid("s1"), rid("s3")]);
  assert.deepEqual(n.get(rid("s1")), [rid("s2")], "the first has no earlier neighbour");
  assert.deepEqual(n.get(rid("s3")), [rid("s2")]);
});
