import assert from "node:assert/strict";
import { test } from "node:test";
import { runLine } from "./learn-run-line";

const run = { status: "done" as const, factsAdded: 0, done: 1, total: 1, accepted: 0, dismissed: 0 };

test("a run whose replacement was proposed and accepted says so, not only 'Learned: 0 facts'", () => {
  assert.equal(runLine({ ...run, accepted: 1 }), "Learned: 0 facts from 1 of 1 memory · 1 proposed change accepted");
  assert.equal(
    runLine({ ...run, factsAdded: 2, done: 3, total: 3, accepted: 2, dismissed: 1 }),
    "Learned: 2 facts from 3 of 3 memories · 2 proposed changes accepted · 1 dismissed",
  );
});

test("a run with no proposals decided reads as before; a stopped one says Stopped", () => {
  assert.equal(runLine({ ...run, factsAdded: 1 }), "Learned: 1 fact from 1 of 1 memory");
  assert.equal(runLine({ ...run, status: "stopped", done: 2, total: 5 }), "Stopped: 0 facts from 2 of 5 memories");
});
