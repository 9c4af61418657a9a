import assert from "node:assert/strict";
import { test } from "node:test";
import { overallPercent, progressLabel, stepPercent, type ProgressInput } from "./progress-percent";

const processing = (name: "counting" | "embedding", done: number, total: number): ProgressInput => ({
  status: "processing",
  chunksTotal: name === "embedding" ? total : 0,
  chunksDone: name === "embedding" ? done : 0,
  stage: { name, done, total },
});

test("the bar never goes back from counting to embedding, while the label's step percentage restarts", () => {
  const sequence: ProgressInput[] = [
    { status: "queued", chunksTotal: 0, chunksDone: 0, stage: null },
    processing("counting", 0, 300),
    processing("counting", 200, 300),
    processing("counting", 300, 300),
    processing("embedding", 0, 12),
    processing("embedding", 6, 12),
    processing("embedding", 12, 12),
    { status: "done", chunksTotal: 12, chunksDone: 12, stage: null },
  ];
  const bar = sequence.map(overallPercent);
  assert.deepEqual(bar, [0, 0, 33, 50, 50, 75, 100, 100]);
  assert.deepEqual(
    bar,
    [...bar].sort((a, b) => a - b),
  );
  // The step's own figure (shown in the label) restarts at 0 % for embedding: that is the label's job, not the bar's.
  assert.equal(stepPercent(processing("counting", 200, 300)), 66);
  assert.equal(stepPercent(processing("embedding", 0, 12)), 0);
});

test("the label says the bar's own figure: embedding 0 of 804 chunks beside a half-full bar reads 50 %, not 0 %", () => {
  const states = [
    processing("counting", 0, 300),
    processing("counting", 200, 300),
    processing("embedding", 0, 804),
    processing("embedding", 402, 804),
  ];
  for (const doc of states) {
    const label = progressLabel(doc, null);
    const figures = [...label.matchAll(/(\d+)\s?%/g)].map((m) => Number(m[1]));
    assert.deepEqual(figures, [overallPercent(doc)], label);
  }
  assert.equal(
    progressLabel(processing("embedding", 0, 804), "about 2 min left"),
    "50% · step 2 of 2: embedding 0 / 804 chunks · about 2 min left",
  );
  assert.equal(
    progressLabel(processing("counting", 200, 300), null),
    "33% · step 1 of 2: counting tokens · estimating time left…",
  );
});
