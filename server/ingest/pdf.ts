/**
 * PDF text layer via unpdf (its bundled serverless pdf.js). Never load pdfjs-dist in the same process:
 * unpdf registers its own pdf.js worker globally. Scanned PDFs (images only) have no text layer: that is
 * an error telling the user to run OCR, not an empty document.
 */
import { IngestError } from "./detect";

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

export async function extractPdfText(bytes: Uint8Array): Promise<PdfText> {
  const { getDocumentProxy, extractText } = await import("unpdf");
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy. verbosity 0: no console noise.
    doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (e) {
    throw pdfError(e);
  }
  try {
    if (doc.numPages === 0) throw new IngestError("CORRUPT_PDF", "corrupt PDF: it has no pages");
    const { text } = await extractText(doc, { mergePages: false });
    const pages = text.map(cleanPdfPage);
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
