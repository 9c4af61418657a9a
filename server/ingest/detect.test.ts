import assert from "node:assert/strict";
import { test } from "node:test";
import { makePng, makeTextPdf } from "../test/doc-fixtures";
import { decodeUtf8, detectType, firstInvalidUtf8, IngestError } from "./detect";

const utf8 = (s: string) => new TextEncoder().encode(s);
const rejects = (fn: () => unknown, code: IngestError["code"], msg: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof IngestError && e.code === code && msg.test(e.message));

test("type is decided by content: PDF by its header, Markdown or text by name", async () => {
  const pdf = await makeTextPdf([["hello"]]);
  assert.deepEqual(detectType(pdf, "report.pdf"), { kind: "pdf", mime: "application/pdf" });
  // A PDF under another name is still a PDF.
  assert.equal(detectType(pdf, "report.txt").kind, "pdf");
  assert.equal(detectType(pdf, "no-extension").kind, "pdf");
  assert.deepEqual(detectType(utf8("# Title\n\ntext"), "notes.md"), { kind: "markdown", mime: "text/markdown" });
  assert.equal(detectType(utf8("# Title"), "NOTES.MARKDOWN").kind, "markdown");
  assert.deepEqual(detectType(utf8("plain words"), "a.txt"), { kind: "text", mime: "text/plain" });
  assert.equal(detectType(utf8("plain words"), "README").kind, "text");
});

test("an empty file is refused", () => {
  rejects(() => detectType(new Uint8Array(0), "a.md"), "EMPTY", /empty \(0 bytes\)/);
});

test("an image renamed .pdf is named as what it is", () => {
  rejects(
    () => detectType(makePng(), "scan.pdf"),
    "WRONG_TYPE",
    /named \.pdf but its content is a PNG image, not a PDF/,
  );
  rejects(() => detectType(makePng(), "photo.png"), "WRONG_TYPE", /a PNG image\. Memo ingests Markdown/);
  rejects(
    () => detectType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]), "x.pdf"),
    "WRONG_TYPE",
    /JPEG image/,
  );
  rejects(
    () => detectType(Buffer.from("PK\u0003\u0004rest-of-a-docx", "latin1"), "letter.docx"),
    "WRONG_TYPE",
    /ZIP archive/,
  );
});

test("text named .pdf, and binary data, are wrong types", () => {
  rejects(() => detectType(utf8("just some text"), "fake.pdf"), "WRONG_TYPE", /named \.pdf but it is not a PDF/);
  rejects(() => detectType(new Uint8Array([1, 2, 0, 4, 5, 0, 7]), "blob.txt"), "WRONG_TYPE", /binary data/);
});

test("UTF-8 is checked strictly, with the offset of the first bad byte", () => {
  assert.equal(decodeUtf8(utf8("Café ☕ 東京 🐶")), "Café ☕ 東京 🐶");
  assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69])), "hi", "a UTF-8 BOM is dropped");
  const latin1 = new Uint8Array([...utf8("caf"), 0xe9, ...utf8(" au lait")]);
  assert.throws(
    () => decodeUtf8(latin1),
    (e: unknown) =>
      e instanceof IngestError && e.code === "INVALID_UTF8" && /invalid byte 0xe9 at offset 3/.test(e.message),
  );
  rejects(() => decodeUtf8(new Uint8Array([0xff, 0xfe, 0x68, 0x00])), "INVALID_UTF8", /UTF-16/);
  rejects(() => detectType(new Uint8Array([0xfe, 0xff, 0x00, 0x68]), "u16.txt"), "INVALID_UTF8", /UTF-16/);
  // Overlong encodings, surrogates and truncated sequences are invalid too.
  assert.equal(firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0xaf])), 1);
  assert.equal(firstInvalidUtf8(new Uint8Array([0xed, 0xa0, 0x80])), 0);
  assert.equal(firstInvalidUtf8(new Uint8Array([0x61, 0x62, 0xe2, 0x82])), 2);
  assert.equal(firstInvalidUtf8(utf8("ok ✓ 🐶")), utf8("ok ✓ 🐶").length);
});
