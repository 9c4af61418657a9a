import assert from "node:assert/strict";
import { test } from "node:test";
import { refuseBeforeUpload } from "./upload-check";

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
