import assert from "node:assert/strict";
import { test } from "node:test";
import { needsCharCount, refuseBeforeUpload, refuseForSize } from "./upload-check";

test("Markdown, text and PDF names pass, whatever type the browser guessed", () => {
  for (const name of ["notes.md", "README.markdown", "log.TXT", "paper.pdf"])
    assert.equal(refuseBeforeUpload({ name, type: "application/octet-stream" }), null, name);
});

test("other text and files the browser cannot type go to the server, which reads their bytes", () => {
  assert.equal(refuseBeforeUpload({ name: "data.csv", type: "text/csv" }), null);
  assert.equal(refuseBeforeUpload({ name: "config.json", type: "application/json" }), null);
  assert.equal(refuseBeforeUpload({ name: "NOTES", type: "" }), null);
});

test("images, office documents and archives are refused before upload, saying what they are", () => {
  assert.equal(
    refuseBeforeUpload({ name: "photo.png", type: "image/png" }),
    "not uploaded: a .png file (image/png) is not Markdown, plain text or PDF",
  );
  assert.match(
    refuseBeforeUpload({
      name: "report.docx",
      type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    })!,
    /^not uploaded: a \.docx file/,
  );
  assert.match(refuseBeforeUpload({ name: "backup.zip", type: "application/zip" })!, /not Markdown/);
});

test("the limit that applies to its kind, before the upload: characters for text, bytes for any file", () => {
  const limits = { maxUploadBytes: 50 * 1048576, maxChars: 5_000_000 };
  const text = { name: "big.txt", type: "text/plain", size: 5_000_100 };
  assert.equal(needsCharCount(text, limits.maxChars), true);
  assert.equal(
    refuseForSize(text, limits, 5_000_100),
    "not uploaded: it holds 5,000,100 characters of text; Memo reads at most 5,000,000 per file (MEMO_INGEST_MAX_CHARS); split it into smaller files",
  );
  // Multi-byte text under the character limit goes, though its bytes are over it.
  assert.equal(refuseForSize(text, limits, 2_500_050), null);
  // A PDF's bytes are not its text: only the byte limit applies before the upload.
  const pdf = { name: "paper.pdf", type: "application/pdf", size: 20 * 1048576 };
  assert.equal(needsCharCount(pdf, limits.maxChars), false);
  assert.equal(refuseForSize(pdf, limits), null);
  assert.equal(
    refuseForSize({ ...pdf, size: 60 * 1048576 }, limits),
    "not uploaded: the file is 60.0 MB; the limit is 50.0 MB per file (MEMO_MAX_UPLOAD_MB)",
  );
  assert.equal(needsCharCount({ name: "a.md", type: "", size: 4_000_000 }, limits.maxChars), false);
});
