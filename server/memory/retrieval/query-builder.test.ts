import assert from "node:assert/strict";
import { test } from "node:test";
import { buildQueries, candidatePool } from "./query-builder";

const on = { contextMessages: 3, anchorQuery: true };

test("main query: the message after the last 3 earlier user messages", () => {
  const q = buildQueries("what about that?", ["m1", "m2", "m3", "m4"], on);
  assert.deepEqual(q, [{ role: "main", text: "m2\nm3\nm4\nwhat about that?" }]);
});

test("fewer earlier messages than contextMessages: all of them; blank ones skipped; trimmed", () => {
  assert.deepEqual(buildQueries(" hi ", ["  first  ", "   "], on), [{ role: "main", text: "first\nhi" }]);
  assert.deepEqual(buildQueries("hi", [], on), [{ role: "main", text: "hi" }]);
});

test("contextMessages 0 uses the message alone; 1 uses only the latest", () => {
  assert.deepEqual(buildQueries("hi", ["a", "b"], { contextMessages: 0, anchorQuery: true }), [
    { role: "main", text: "hi" },
  ]);
  assert.deepEqual(buildQueries("hi", ["a", "b"], { contextMessages: 1, anchorQuery: true }), [
    { role: "main", text: "b\nhi" },
  ]);
});

test("more than 7 words adds a 5-word topic anchor from the message (not the context)", () => {
  const msg = "my sister Anna is moving to Berlin next spring";
  const q = buildQueries(msg, ["earlier context words here"], on);
  assert.equal(q.length, 2);
  assert.deepEqual(q[1], { role: "anchor", text: "my sister Anna is moving" });
  assert.equal(q[0]!.text, `earlier context words here\n${msg}`);
  // 8 words, irregular whitespace: still 8 words, the anchor single-spaced.
  const q8 = buildQueries("  one  two\tthree\nfour five six seven eight ", [], on);
  assert.deepEqual(q8[1], { role: "anchor", text: "one two three four five" });
});

test("exactly 7 words: no anchor; anchorQuery off: no anchor", () => {
  assert.equal(buildQueries("one two three four five six seven", [], on).length, 1);
  assert.equal(
    buildQueries("one two three four five six seven eight", [], { contextMessages: 3, anchorQuery: false }).length,
    1,
  );
});

test("candidate pool = min(max(k*10, 20), 100)", () => {
  const cases: [number, number][] = [
    [1, 20],
    [2, 20],
    [3, 30],
    [6, 60],
    [10, 100],
    [20, 100],
    [21, 100],
    [100, 100],
  ];
  for (const [k, pool] of cases) assert.equal(candidatePool(k), pool, `k=${k}`);
});
