/**
 * PDF text layer via unpdf (its bundled serverless pdf.js). Never load pdfjs-dist in the same process:
 * unpdf registers its own pdf.js worker globally. Scanned PDFs (images only) have no text layer: that is
 * an error telling the user to run OCR, not an empty document.
 */
import { IngestError } from "./detect";
import { count, DEFAULT_PARSE_LIMITS, type ParseLimits } from "./parse-limits";

export interface PdfText {
  pages: string[];
}

/** Tidy one page of extracted text: join words hyphenated across lines, trim trailing spaces, cap blank runs. */
export function cleanPdfPage(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/(\p{L})-\n(\p{Ll})/gu, "$1$2")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Text of each page, read one page at a time and released before the next (unpdf's extractText asks for
 * every page at once: 20,000 pages held 3.4 GB). Refuses a PDF with more than `maxPages` pages before
 * reading any, and stops as soon as the text passes `maxChars`.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  limits: Pick<ParseLimits, "maxPdfPages" | "maxChars"> = DEFAULT_PARSE_LIMITS,
): Promise<PdfText> {
  const { getDocumentProxy } = await import("unpdf");
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy. verbosity 0: no console noise.
    doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (e) {
    throw pdfError(e);
  }
  try {
    if (doc.numPages === 0) throw new IngestError("CORRUPT_PDF", "corrupt PDF: it has no pages");
    if (doc.numPages > limits.maxPdfPages) {
      throw new IngestError(
        "TOO_LARGE",
        `this PDF has ${count(doc.numPages)} pages; Memo reads at most ${count(limits.maxPdfPages)} pages per file (MEMO_INGEST_MAX_PDF_PAGES); split it into smaller files`,
      );
    }
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = cleanPdfPage(
        content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""),
      );
      page.cleanup();
      chars += text.length;
      if (chars > limits.maxChars) {
        throw new IngestError(
          "TOO_LARGE",
          `this PDF holds more than ${count(limits.maxChars)} characters of text (by page ${count(n)} of ${count(doc.numPages)}); Memo reads at most that many per file (MEMO_INGEST_MAX_CHARS); split it into smaller files`,
        );
      }
      pages.push(text);
    }
    if (pages.every((p) => p.replace(/\s/g, "").length === 0)) {
      throw new IngestError(
        "NO_TEXT_LAYER",
        `this PDF has no text layer (${doc.numPages} page${doc.numPages === 1 ? "" : "s"} of images only, e.g. a scan); run OCR on it first, then upload it again`,
      );
    }
    return { pages };
  } catch (e) {
    throw pdfError(e);
  } finally {
    await doc.loadingTask.destroy().catch(() => undefined); // frees the document and its (fake) worker
  }
}

function pdfError(e: unknown): IngestError {
  if (e instanceof IngestError) return e;
  const name = e instanceof Error ? e.name : "";
  const message = e instanceof Error ? e.message : String(e);
  if (name === "PasswordException")
    return new IngestError("ENCRYPTED_PDF", "this PDF is password-protected; remove the password and upload it again");
  return new IngestError("CORRUPT_PDF", `corrupt PDF: it could not be read (${message || name || "unknown error"})`);
}
