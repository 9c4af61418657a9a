/**
 * The browser's check before an upload (app/ingest/ingest.tsx): a file that is plainly not Markdown, text
 * or PDF (an image, an office document, an archive) is refused by its name and type, before any bytes are
 * sent. Anything text-like, or unknown, still goes to the server, whose detect.ts decides from the bytes.
 * No Node imports: this runs in the browser.
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
