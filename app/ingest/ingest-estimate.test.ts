import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateFor, roughDuration, speedLine } from "./ingest-estimate";

test("a file's time before its upload: its size times the measured seconds per MB of its kind", () => {
  const rates = { text: { secondsPerMB: 135, documents: 3 }, pdf: null };
  assert.equal(estimateFor(1048576, false, rates), "about 2 min");
  assert.equal(estimateFor(200 * 1024, false, rates), "about 26 s");
  assert.equal(estimateFor(40 * 1048576, false, rates), "about 1 h 30 min");
  assert.equal(estimateFor(1048576, true, rates), null, "no PDF measured: no guess from text");
  assert.equal(estimateFor(1048576, false, undefined), null);
  assert.equal(roughDuration(0.2), "about 1 s");
  assert.equal(roughDuration(3600), "about 1 h");
});

test("the page's speed line says what was measured, and says so when nothing was", () => {
  assert.match(speedLine({ text: null, pdf: null }), /^No document has been ingested here yet/);
  assert.equal(
    speedLine({ text: { secondsPerMB: 135, documents: 3 }, pdf: { secondsPerMB: 20, documents: 1 } }),
    "Here Markdown or text takes about 2 min per MB (measured on 3 documents); a PDF takes about 20 s per MB (measured on 1 document).",
  );
});
