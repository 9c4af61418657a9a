/**
 * Stage 1 of ingestion: what is this file? Decided by its bytes (magic numbers, UTF-8 validity), not by its
 * name alone: an image renamed `.pdf` is an image. Every refusal is an IngestError with a message meant
 * for the person who uploaded the file.
 */
import path from "node:path";

export type DocumentKind = "markdown" | "text" | "pdf";

export const MIME: Record<DocumentKind, string> = {
  markdown: "text/markdown",
  text: "text/plain",
  pdf: "application/pdf",
};

export const SUPPORTED = "Memo ingests Markdown (.md), plain text (.txt, UTF-8) and PDF files with a text layer";

/** A file that cannot be ingested, with a reason people can act on. `code` is for programs and tests. */
export class IngestError extends Error {
  constructor(
    readonly code:
      | "EMPTY"
      | "TOO_LARGE"
      | "WRONG_TYPE"
      | "INVALID_UTF8"
      | "CORRUPT_PDF"
      | "NO_TEXT_LAYER"
      | "ENCRYPTED_PDF"
      | "NO_TEXT"
      | "MISSING_FILE"
      | "PARSE_TIMEOUT",
    message: string,
  ) {
    super(message);
    this.name = "IngestError";
  }
}

export interface Detected {
  kind: DocumentKind;
  mime: string;
}

const MARKDOWN_EXT = new Set([".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx"]);

/** Binary formats people are likely to drop by mistake: name them in the error. */
const SIGNATURES: { name: string; mime: string; test: (b: Uint8Array) => boolean }[] = [
  { name: "a PNG image", mime: "image/png", test: (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { name: "a JPEG image", mime: "image/jpeg", test: (b) => starts(b, [0xff, 0xd8, 0xff]) },
  { name: "a GIF image", mime: "image/gif", test: (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a") },
  { name: "a WebP image", mime: "image/webp", test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP") },
  {
    name: "a TIFF image",
    mime: "image/tiff",
    test: (b) => starts(b, [0x49, 0x49, 0x2a, 0x00]) || starts(b, [0x4d, 0x4d, 0x00, 0x2a]),
  },
  {
    name: "a BMP image",
    mime: "image/bmp",
    test: (b) => ascii(b, 0, "BM") && b.length >= 26 && u32le(b, 2) === b.length && u32le(b, 6) === 0,
  },
  { name: "an ICO image", mime: "image/x-icon", test: (b) => starts(b, [0x00, 0x00, 0x01, 0x00]) && b.length > 6 },
  {
    name: "a HEIC/AVIF image",
    mime: "image/heic",
    test: (b) => ascii(b, 4, "ftyp") && /^(heic|heix|mif1|msf1|avif)$/.test(str(b, 8, 4)),
  },
  { name: "an MP4/QuickTime video", mime: "video/mp4", test: (b) => ascii(b, 4, "ftyp") },
  { name: "an MP3 audio file", mime: "audio/mpeg", test: (b) => ascii(b, 0, "ID3") },
  { name: "a WAV audio file", mime: "audio/wav", test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE") },
  {
    name: "a ZIP archive (or an Office/EPUB document, which are ZIP files)",
    mime: "application/zip",
    test: (b) => starts(b, [0x50, 0x4b, 0x03, 0x04]) || starts(b, [0x50, 0x4b, 0x05, 0x06]),
  },
  {
    name: "a legacy Microsoft Office document",
    mime: "application/x-ole-storage",
    test: (b) => starts(b, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  },
  { name: "a gzip archive", mime: "application/gzip", test: (b) => starts(b, [0x1f, 0x8b]) },
  {
    name: "a 7-Zip archive",
    mime: "application/x-7z-compressed",
    test: (b) => starts(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]),
  },
  { name: "a RAR archive", mime: "application/vnd.rar", test: (b) => ascii(b, 0, "Rar!") },
  {
    name: "an executable",
    mime: "application/x-executable",
    test: (b) => starts(b, [0x7f, 0x45, 0x4c, 0x46]) || (ascii(b, 0, "MZ") && b.length > 64),
  },
  { name: "a SQLite database", mime: "application/vnd.sqlite3", test: (b) => ascii(b, 0, "SQLite format 3\u0000") },
];

function starts(b: Uint8Array, sig: number[]): boolean {
  return b.length >= sig.length && sig.every((x, i) => b[i] === x);
}
function str(b: Uint8Array, at: number, n: number): string {
  return String.fromCharCode(...b.subarray(at, at + n));
}
function ascii(b: Uint8Array, at: number, s: string): boolean {
  return b.length >= at + s.length && str(b, at, s.length) === s;
}
function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** PDF files start with `%PDF-`; readers accept it anywhere in the first 1 KiB (some generators prepend junk). */
export function looksLikePdf(b: Uint8Array): boolean {
  const head = Buffer.from(b.buffer, b.byteOffset, Math.min(b.byteLength, 1024));
  return head.indexOf("%PDF-") >= 0;
}

export function extensionOf(name: string): string {
  return path.extname(name).toLowerCase();
}

/**
 * Decode strict UTF-8: invalid bytes are an error naming the first bad offset (never silently replaced).
 * A UTF-8 byte order mark is dropped; a UTF-16 one gets its own hint.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  if (starts(bytes, [0xff, 0xfe]) || starts(bytes, [0xfe, 0xff])) {
    throw new IngestError("INVALID_UTF8", "the file is UTF-16 text, not UTF-8; save it as UTF-8 and upload it again");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new IngestError(
      "INVALID_UTF8",
      `the file is not valid UTF-8 text (invalid byte 0x${bytes[at]?.toString(16).padStart(2, "0") ?? "??"} at offset ${at}); save it as UTF-8 and upload it again`,
    );
  }
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let n = 0;
    let min = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}

/**
 * Decide what a file is from its bytes, with its name as a hint between Markdown and plain text.
 * Throws IngestError for an empty file, a known binary format (images, archives, …), binary data, a file
 * named `.pdf` that is not one, and text that is not valid UTF-8.
 */
export function detectType(bytes: Uint8Array, name: string): Detected {
  if (bytes.byteLength === 0) throw new IngestError("EMPTY", "the file is empty (0 bytes)");
  const ext = extensionOf(name);
  if (looksLikePdf(bytes)) return { kind: "pdf", mime: MIME.pdf };
  const known = SIGNATURES.find((s) => s.test(bytes));
  if (known) {
    throw new IngestError(
      "WRONG_TYPE",
      ext === ".pdf"
        ? `wrong type: the file is named .pdf but its content is ${known.name}, not a PDF. ${SUPPORTED}`
        : `wrong type: the file is ${known.name}. ${SUPPORTED}`,
    );
  }
  if (starts(bytes, [0xff, 0xfe]) || starts(bytes, [0xfe, 0xff])) decodeUtf8(bytes); // UTF-16: its own hint
  // Text has no NUL bytes (binary formats and BOM-less UTF-16 do); its UTF-8 is checked when decoded.
  const probe = bytes.subarray(0, Math.min(bytes.byteLength, 64 * 1024));
  if (probe.includes(0)) {
    throw new IngestError(
      "WRONG_TYPE",
      `wrong type: the file holds binary data${ext === ".pdf" ? " and is not a PDF" : ""}. ${SUPPORTED}`,
    );
  }
  if (ext === ".pdf") {
    throw new IngestError(
      "WRONG_TYPE",
      `wrong type: the file is named .pdf but it is not a PDF (no %PDF header; the content looks like text). ${SUPPORTED}`,
    );
  }
  return MARKDOWN_EXT.has(ext) ? { kind: "markdown", mime: MIME.markdown } : { kind: "text", mime: MIME.text };
}
