/**
 * The browser's checks before an upload (app/ingest/ingest.tsx): a file that is plainly not Markdown, text
 * or PDF (an image, an office document, an archive) is refused by its name and type, and one over the limit
 * that applies to its kind (bytes for any file; characters of text for a text file, which the browser can
 * count) by its size, before any bytes are sent. Anything text-like, or unknown, still goes to the server,
 * whose detect.ts and parse.ts decide from the bytes. No Node imports: this runs in the browser.
 */

const ACCEPTED_EXT = new Set([".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx", ".txt", ".text", ".pdf"]);

/** MIME types that are text even though they do not start with text/. */
const TEXT_LIKE = new Set(["application/json", "application/xml", "application/x-yaml", "application/yaml"]);

/** The extension, lower-cased, with its dot ("" when the name has none). */
function extension(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const at = base.lastIndexOf(".");
  return at > 0 ? base.slice(at).toLowerCase() : "";
}

/** Why this file is refused before upload, or null when it may be sent. */
export function refuseBeforeUpload(file: { name: string; type: string }): string | null {
  const ext = extension(file.name);
  const type = file.type.toLowerCase();
  if (ACCEPTED_EXT.has(ext)) return null;
  if (type === "" || type.startsWith("text/") || TEXT_LIKE.has(type)) return null;
  return `not uploaded: ${ext ? `a ${ext} file` : "this file"} (${type}) is not Markdown, plain text or PDF`;
}

/** Whether the server will read this file as a PDF (by its name or type; the bytes decide in the end). */
export function looksLikePdf(file: { name: string; type: string }): boolean {
  return extension(file.name) === ".pdf" || file.type.toLowerCase() === "application/pdf";
}

const n = (x: number) => x.toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/**
 * Why this file is refused for its size, or null. `chars` is its text's length, read in the browser, for a
 * file that is not a PDF and could hold more characters than the limit (a UTF-8 file holds at most one
 * character per byte); the same counts and words as the server's own refusal (parse.ts).
 */
export function refuseForSize(
  file: { name: string; type: string; size: number },
  limits: { maxUploadBytes: number; maxChars: number },
  chars?: number,
): string | null {
  if (file.size > limits.maxUploadBytes)
    return `not uploaded: the file is ${mb(file.size)}; the limit is ${mb(limits.maxUploadBytes)} per file (MEMO_MAX_UPLOAD_MB)`;
  if (!looksLikePdf(file) && chars !== undefined && chars > limits.maxChars)
    return `not uploaded: it holds ${n(chars)} characters of text; Memo reads at most ${n(limits.maxChars)} per file (MEMO_INGEST_MAX_CHARS); split it into smaller files`;
  return null;
}

/** Whether the browser should count this file's characters before sending it (it may be over the limit). */
export function needsCharCount(file: { name: string; type: string; size: number }, maxChars: number): boolean {
  return !looksLikePdf(file) && file.size > maxChars;
}
