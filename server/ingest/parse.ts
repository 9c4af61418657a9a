/**
 * Stage 2: bytes → sections of text. Markdown is split on headings; plain text and PDF are one section
 * each (a PDF's pages joined by blank lines: a page break is not a topic boundary). Text files must be
 * valid UTF-8 (checked strictly). The chunker never lets a chunk straddle two sections unless it must.
 */
import { decodeUtf8, detectType, IngestError, type DocumentKind } from "./detect";
import { splitMarkdown } from "./markdown";
import { count, DEFAULT_PARSE_LIMITS, type ParseLimits } from "./parse-limits";
import { extractPdfText } from "./pdf";
import type { Section } from "./section";

export interface ParsedDocument {
  kind: DocumentKind;
  mime: string;
  sections: Section[];
  /** Characters of text extracted. */
  chars: number;
}

/** Normalise line endings, drop C0 control characters other than tab/newline/form feed. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\f/g, "\n\n")
    .replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g, "");
}

/**
 * Parse in this thread, within the page and character caps. The ingestion pipeline calls it through
 * parseOffThread (parse-thread.ts), in a worker with a time and memory budget.
 */
export async function parseDocument(
  bytes: Uint8Array,
  name: string,
  limits: Pick<ParseLimits, "maxPdfPages" | "maxChars"> = DEFAULT_PARSE_LIMITS,
): Promise<ParsedDocument> {
  const { kind, mime } = detectType(bytes, name);
  let sections: Section[];
  if (kind === "pdf") {
    const { pages } = await extractPdfText(bytes, limits);
    sections = [{ heading: null, path: [], text: normaliseText(pages.filter((p) => p.length > 0).join("\n\n")) }];
  } else {
    const decoded = decodeUtf8(bytes);
    if (decoded.length > limits.maxChars) {
      throw new IngestError(
        "TOO_LARGE",
        `this file holds ${count(decoded.length)} characters of text; Memo reads at most ${count(limits.maxChars)} per file (MEMO_INGEST_MAX_CHARS); split it into smaller files`,
      );
    }
    const text = normaliseText(decoded);
    sections = kind === "markdown" ? splitMarkdown(text) : [{ heading: null, path: [], text: text.trim() }];
  }
  sections = sections.filter((s) => s.text.trim().length > 0);
  if (sections.length === 0) {
    throw new IngestError(
      "NO_TEXT",
      kind === "pdf" ? "the PDF holds no text" : "the file holds only whitespace; there is no text to ingest",
    );
  }
  return { kind, mime, sections, chars: sections.reduce((n, s) => n + s.text.length, 0) };
}
