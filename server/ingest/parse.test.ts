import assert from "node:assert/strict";
import { test } from "node:test";
import { makeCorruptPdf, makeImageOnlyPdf, makeTextPdf } from "../test/doc-fixtures";
import { IngestError } from "./detect";
import { splitMarkdown } from "./markdown";
import { normaliseText, parseDocument } from "./parse";
import { cleanPdfPage } from "./pdf";

const utf8 = (s: string) => new TextEncoder().encode(s);

test("Markdown is split on ATX and setext headings, with the heading path", () => {
  const md = [
    "Intro before any heading.",
    "",
    "# Guide",
    "Welcome text.",
    "",
    "## Install",
    "Run the installer.",
    "",
    "### Linux",
    "Use the package.",
    "",
    "## Usage ##",
    "Open the app.",
    "",
    "Appendix",
    "========",
    "Extra notes.",
    "",
    "Details",
    "-------",
    "More details.",
  ].join("\n");
  const s = splitMarkdown(md);
  assert.deepEqual(
    s.map((x) => [x.heading, x.path.join(" > ")]),
    [
      [null, ""],
      ["# Guide", "Guide"],
      ["## Install", "Guide > Install"],
      ["### Linux", "Guide > Install > Linux"],
      ["## Usage ##", "Guide > Usage"],
      ["Appendix\n========", "Appendix"],
      ["Details\n-------", "Appendix > Details"],
    ],
  );
  assert.equal(s[2]!.text, "## Install\nRun the installer.");
  assert.equal(s[0]!.text, "Intro before any heading.");
});

test("Markdown: no headings inside fenced code; front matter dropped; thematic breaks are not headings", () => {
  const md = [
    "---",
    "title: x",
    "---",
    "# Real",
    "```bash",
    "# not a heading",
    "echo hi",
    "```",
    "",
    "text",
    "",
    "---",
    "",
    "after the rule",
  ].join("\n");
  const s = splitMarkdown(md);
  assert.equal(s.length, 1);
  assert.match(s[0]!.text, /# not a heading/);
  assert.match(s[0]!.text, /after the rule/);
  assert.doesNotMatch(s[0]!.text, /title: x/);
  assert.deepEqual(
    splitMarkdown("~~~\n# a\n~~~\n# b\nx").map((x) => x.heading),
    [null, "# b"],
  );
  // A heading with no body of its own is a section of one line (the packer merges it with the next).
  assert.deepEqual(
    splitMarkdown("# A\n## B\nbody").map((x) => [x.text, x.path]),
    [
      ["# A", ["A"]],
      ["## B\nbody", ["A", "B"]],
    ],
  );
});

test("plain text is one section; line endings and control characters are normalised", async () => {
  const p = await parseDocument(utf8("line one\r\nline two\rline three\u0007\n\n\n"), "a.txt");
  assert.equal(p.kind, "text");
  assert.deepEqual(p.sections, [{ heading: null, path: [], text: "line one\nline two\nline three" }]);
  assert.equal(normaliseText("a\fb"), "a\n\nb");
});

test("a whitespace-only file has no text to ingest", async () => {
  await assert.rejects(
    parseDocument(utf8(" \n\t\n"), "blank.md"),
    (e: unknown) => e instanceof IngestError && e.code === "NO_TEXT" && /only whitespace/.test(e.message),
  );
});

test("PDF: the text layer of every page, in order", async () => {
  const pdf = await makeTextPdf([
    ["The lighthouse keeper counted seventeen gulls at dawn."],
    ["Page two mentions the harbour master."],
  ]);
  const p = await parseDocument(pdf, "story.pdf");
  assert.equal(p.kind, "pdf");
  assert.equal(p.sections.length, 1);
  assert.match(p.sections[0]!.text, /lighthouse keeper counted seventeen gulls at dawn\.[\s\S]*harbour master/);
});

test("PDF without a text layer, corrupt PDF: clear errors", async () => {
  await assert.rejects(
    parseDocument(await makeImageOnlyPdf(2), "scan.pdf"),
    (e: unknown) =>
      e instanceof IngestError &&
      e.code === "NO_TEXT_LAYER" &&
      /no text layer \(2 pages of images only.*OCR/.test(e.message),
  );
  await assert.rejects(
    parseDocument(await makeCorruptPdf(), "broken.pdf"),
    (e: unknown) =>
      e instanceof IngestError && e.code === "CORRUPT_PDF" && /^corrupt PDF: it could not be read/.test(e.message),
  );
});

test("PDF text clean-up joins words hyphenated across lines", () => {
  assert.equal(cleanPdfPage("an inter-\nesting line   \n\n\n\nnext"), "an interesting line\n\nnext");
  assert.equal(cleanPdfPage("well-\nKnown"), "well-\nKnown", "a capital after the break is kept apart");
});
