/**
 * The import formats name themselves where pages mention importers (the first-run checklist, "What Memo
 * knows"): every other app's export is listed with where it is made and its file, so a new importer shows
 * up there without editing those pages.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { IMPORT_FORMAT_IDS, IMPORT_FORMATS, namesList, otherAppImports } from "./formats";

test("otherAppImports lists each other app's export with its steps and file, not Memo's own", () => {
  assert.deepEqual(
    otherAppImports().map((f) => [f.id, f.name, f.exportFrom.file]),
    [
      ["chatgpt", "ChatGPT", "conversations.json"],
      ["claude", "Claude", "conversations.json"],
    ],
  );
  for (const f of otherAppImports()) assert.ok(f.exportFrom.steps.includes("→"), `${f.name}: where to export`);
  // A conversation export (which can teach facts) is always another app's, so the pages name it.
  for (const id of IMPORT_FORMAT_IDS) {
    const f = IMPORT_FORMATS[id];
    assert.equal(f.conversationPrefix !== null, f.exportFrom !== null, id);
  }
});

test("namesList joins names for a sentence", () => {
  assert.equal(namesList([], "or"), "");
  assert.equal(namesList(["ChatGPT"], "or"), "ChatGPT");
  assert.equal(namesList(["ChatGPT", "Claude"], "or"), "ChatGPT or Claude");
  assert.equal(namesList(["ChatGPT", "Claude", "Gemini"], "and"), "ChatGPT, Claude and Gemini");
});
