import assert from "node:assert/strict";
import { test } from "node:test";
import { cutNote, keptOnlyOnRequest, splitCutNote, stripCutNote } from "./cut-short";

test("each cut-short note reads back as its reason, and the text before it is exactly what was kept", () => {
  for (const reason of ["stopped", "reload", "shutdown", "cancelled"] as const) {
    const s = splitCutNote(`Line 1\nLine 2${cutNote(reason)}`);
    assert.equal(s.text, "Line 1\nLine 2");
    assert.equal(s.reason, reason);
  }
  const failed = splitCutNote(`Half${cutNote("failed", "socket\n hang   up")}`);
  assert.deepEqual(
    [failed.text, failed.reason, failed.note],
    ["Half", "failed", "the provider failed mid-reply: socket hang up"],
  );
  // Stopped before the first token: no text at all.
  assert.deepEqual(splitCutNote(cutNote("stopped")), { text: "", note: "you stopped the reply", reason: "stopped" });
  // A reply stored before these notes (one note for every abort) reads as cancelled, and stays a memory.
  assert.equal(splitCutNote("Old\n\n[interrupted: the reply was stopped before it finished]").reason, "cancelled");
  assert.equal(stripCutNote("A complete reply"), "A complete reply");
  assert.equal(splitCutNote("A complete reply").reason, null);
  // Only what the person stopped, or their page left, waits to be kept.
  assert.deepEqual((["stopped", "reload", "shutdown", "cancelled", "failed", null] as const).map(keptOnlyOnRequest), [
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
});
