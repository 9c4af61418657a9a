/**
 * A streaming multipart/form-data reader for uploads. File parts are written to disk as they arrive (hashed
 * on the way), so memory stays bounded whatever the upload size; a part past the per-file limit stops being
 * stored (its bytes are counted and discarded) and is reported as `tooLarge`, while the other parts of the
 * same request still go through. Request.formData() would instead buffer the whole body in memory.
 *
 * Kept rather than busboy (issue 56, measured with busboy 1.6.0): a file name with a NUL or another control
 * character makes busboy fail the whole form with "Malformed part header", so the upload could not be refused
 * with what is wrong with it (bad-input.test.ts: "a NUL in the file name" answers 400 naming the NUL); its limits
 * truncate a file and stop counting its bytes where this reader reports the whole size (`tooLarge`), and skip
 * files and fields past a limit where this one refuses the request (413 / 400).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { storageFaultOf } from "../core/storage-fault";

export class MultipartError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = "MultipartError";
  }
}

export interface StagedFile {
  field: string;
  /** The file name as sent, reduced to its base name, without control characters. */
  filename: string;
  contentType: string;
  /** Where the bytes are (absent when the part was over the limit). */
  path: string | null;
  /** Bytes received (all of them, also past the limit). */
  size: number;
  tooLarge: boolean;
  /** sha256 of the bytes (only when the whole file was stored). */
  sha256: string | null;
}

export interface MultipartResult {
  fields: Record<string, string>;
  files: StagedFile[];
}

export interface MultipartOptions {
  /** Folder for the staged files (created if missing). */
  dir: string;
  maxFileBytes: number;
  maxFiles?: number;
  maxFieldBytes?: number;
  maxFields?: number;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

export function boundaryOf(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType.trim())) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]!) : null;
}

/** Parse `name="x"; filename="y"` parameters of a Content-Disposition header (quoted strings, RFC 5987 `*=`). */
export function dispositionParams(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /;\s*([A-Za-z0-9_*.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value))) {
    const key = m[1]!.toLowerCase();
    // In a quoted value only \" and \\ are escapes (curl); browsers send a backslash as itself (WHATWG), e.g. old IE's C:\path.
    let v = m[2] !== undefined ? m[2].replace(/\\(["\\])/g, "$1") : m[3]!.trim();
    if (key.endsWith("*")) {
      const ext = /^([^']*)'[^']*'(.*)$/.exec(v);
      if (ext) {
        try {
          v = decodeURIComponent(ext[2]!);
        } catch {
          continue;
        }
        out[key.slice(0, -1)] = v; // filename* wins over filename
        continue;
      }
    }
    if (!(key in out)) out[key] = v;
  }
  return out;
}

/**
 * Why a sent file name is refused, or null. Browsers send a base name (old IE a full `C:\\…` path, and
 * folder uploads a relative path, both reduced to the base name by cleanFilename); a name climbing out with
 * `..`, an absolute Unix or UNC path, or a NUL is never a browser's, so the request is refused rather than
 * silently renamed. (Stored files are named by document id, so no name could reach the file system anyway.)
 */
export function filenameProblem(raw: string): string | null {
  const unescaped = raw.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
  const shown = JSON.stringify(unescaped.slice(0, 80));
  if (unescaped.includes("\u0000")) return `the file name ${shown} contains a NUL character`;
  if (unescaped.split(/[\\/]/).some((seg) => seg.trim() === ".."))
    return `the file name ${shown} is a path with '..'; send the file's own name`;
  if (/^[\\/]/.test(unescaped)) return `the file name ${shown} is an absolute path; send the file's own name`;
  return null;
}

/** Browsers escape `"`, CR and LF in file names as %22, %0D, %0A (HTML spec); some send a full path. */
export function cleanFilename(raw: string): string {
  const unescaped = raw.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
  const base = unescaped.split(/[\\/]/).pop() ?? "";
  return base
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
}

export async function readMultipart(req: Request, opts: MultipartOptions): Promise<MultipartResult> {
  const boundary = boundaryOf(req.headers.get("content-type"));
  if (!boundary)
    throw new MultipartError(400, "send the files as multipart/form-data (field `file`, one or more files)");
  if (!req.body)
    throw new MultipartError(400, "the request has no body; send one or more files in the multipart field `file`");
  fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const parts = new PartWriter(opts);
  const scanner = new BodyScanner(boundary);
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (await scanner.feed(value, parts)) break;
    }
    if (!scanner.done)
      throw new MultipartError(400, "the multipart body ended before its closing boundary (upload interrupted?)");
    return { fields: parts.fields, files: parts.files };
  } catch (e) {
    await parts.abort();
    await reader.cancel().catch(() => undefined);
    // A full or read-only data folder is the server's fault, not the upload's: it answers 503 (errors.ts).
    if (e instanceof MultipartError || storageFaultOf(e)) throw e;
    throw new MultipartError(400, `the upload could not be read: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    if (scanner.done) await reader.cancel().catch(() => undefined);
  }
}

type Part =
  | { kind: "file"; file: StagedFile; fd: fs.promises.FileHandle | null; hash: crypto.Hash }
  | { kind: "field"; name: string; chunks: Buffer[]; size: number }
  | { kind: "skip" };

/** Where the parts' bytes go: files staged on disk (hashed, cut at the limit), fields kept as text. */
class PartWriter {
  readonly files: StagedFile[] = [];
  readonly fields: Record<string, string> = {};
  private fieldCount = 0;
  private part: Part | null = null;
  private readonly maxFiles: number;
  private readonly maxFieldBytes: number;
  private readonly maxFields: number;

  constructor(private readonly opts: MultipartOptions) {
    this.maxFiles = opts.maxFiles ?? 100;
    this.maxFieldBytes = opts.maxFieldBytes ?? 4096;
    this.maxFields = opts.maxFields ?? 20;
  }

  async start(headerText: string): Promise<void> {
    const headers = new Map<string, string>();
    for (const line of headerText.split("\r\n")) {
      const i = line.indexOf(":");
      if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
    }
    const params = dispositionParams(headers.get("content-disposition") ?? "");
    const name = params.name ?? "";
    if (params.filename === undefined) {
      if (++this.fieldCount > this.maxFields)
        throw new MultipartError(400, `too many form fields (at most ${this.maxFields})`);
      this.part = { kind: "field", name, chunks: [], size: 0 };
      return;
    }
    const problem = filenameProblem(params.filename);
    if (problem) throw new MultipartError(400, problem);
    const filename = cleanFilename(params.filename);
    if (filename === "") return void (this.part = { kind: "skip" }); // a file input with nothing chosen
    if (this.files.length >= this.maxFiles)
      throw new MultipartError(413, `too many files in one request (at most ${this.maxFiles})`);
    const staged = path.join(this.opts.dir, `.incoming-${crypto.randomUUID()}`);
    const file: StagedFile = {
      field: name,
      filename,
      contentType: headers.get("content-type") ?? "application/octet-stream",
      path: staged,
      size: 0,
      tooLarge: false,
      sha256: null,
    };
    this.files.push(file);
    const fd = await fs.promises.open(staged, "wx", 0o600);
    this.part = { kind: "file", file, fd, hash: crypto.createHash("sha256") };
  }

  async data(data: Buffer): Promise<void> {
    const part = this.part;
    if (!part || data.length === 0) return;
    if (part.kind === "file") {
      const f = part.file;
      f.size += data.length;
      if (f.size > this.opts.maxFileBytes) {
        if (part.fd) {
          await part.fd.close();
          part.fd = null;
          await fs.promises.rm(f.path!, { force: true });
          f.path = null;
          f.tooLarge = true;
        }
        return;
      }
      part.hash.update(data);
      await part.fd!.write(data);
    } else if (part.kind === "field") {
      part.size += data.length;
      if (part.size > this.maxFieldBytes)
        throw new MultipartError(400, `form field '${part.name}' is longer than ${this.maxFieldBytes} bytes`);
      part.chunks.push(Buffer.from(data));
    }
  }

  async end(): Promise<void> {
    const part = this.part;
    if (part?.kind === "file") {
      if (part.fd) {
        await part.fd.close();
        part.fd = null;
        part.file.sha256 = part.hash.digest("hex");
      }
    } else if (part?.kind === "field") {
      this.fields[part.name] = Buffer.concat(part.chunks).toString("utf8");
    }
    this.part = null;
  }

  /** After an error: the open file closed, every staged file removed. */
  async abort(): Promise<void> {
    if (this.part?.kind === "file" && this.part.fd) await this.part.fd.close().catch(() => undefined);
    await discardStaged(this.files);
  }
}

/** The body's boundaries, part headers and part bytes, found chunk by chunk (a delimiter may span two chunks). */
class BodyScanner {
  private state: "preamble" | "boundary" | "headers" | "body" | "done" = "preamble";
  // The first boundary has no CRLF before it: add one so one delimiter fits all.
  private buf: Buffer = Buffer.from(CRLF);
  private readonly delim: Buffer;

  constructor(boundary: string) {
    this.delim = Buffer.from(`\r\n--${boundary}`);
  }

  get done(): boolean {
    return this.state === "done";
  }

  /** Take the next chunk, handing what it completes to `parts`; true once the closing boundary is read. */
  async feed(value: Uint8Array, parts: PartWriter): Promise<boolean> {
    this.buf = this.buf.length ? Buffer.concat([this.buf, value]) : Buffer.from(value);
    while (this.state !== "done" && (await this.step(parts)));
    return this.done;
  }

  /** One step of the scan; false when it needs more bytes. */
  private async step(parts: PartWriter): Promise<boolean> {
    const { delim } = this;
    if (this.state === "preamble") {
      const i = this.buf.indexOf(delim);
      if (i < 0) {
        this.buf = this.buf.subarray(Math.max(0, this.buf.length - delim.length + 1));
        return false;
      }
      this.buf = this.buf.subarray(i + delim.length);
      this.state = "boundary";
    } else if (this.state === "boundary") {
      if (this.buf.length < 2) return false;
      if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
        this.state = "done";
        return false;
      }
      const i = this.buf.indexOf(CRLF);
      if (i < 0) {
        if (this.buf.length > 256) throw new MultipartError(400, "malformed multipart body (bad boundary line)");
        return false;
      }
      if (this.buf.subarray(0, i).toString("latin1").trim() !== "")
        throw new MultipartError(400, "malformed multipart body (bad boundary line)");
      this.buf = this.buf.subarray(i + 2);
      this.state = "headers";
    } else if (this.state === "headers") {
      const bare = this.buf.length >= 2 && this.buf[0] === 0x0d && this.buf[1] === 0x0a;
      const [end, skip] = bare ? [0, 2] : [this.buf.indexOf(HEADER_END), 4];
      if (end < 0) {
        if (this.buf.length > MAX_HEADER_BYTES)
          throw new MultipartError(400, "malformed multipart body (part headers too long)");
        return false;
      }
      await parts.start(this.buf.subarray(0, end).toString("utf8"));
      this.buf = this.buf.subarray(end + skip);
      this.state = "body";
    } else if (this.state === "body") {
      const i = this.buf.indexOf(delim);
      if (i >= 0) {
        await parts.data(this.buf.subarray(0, i));
        await parts.end();
        this.buf = this.buf.subarray(i + delim.length);
        this.state = "boundary";
        return true;
      }
      const safe = this.buf.length - delim.length + 1;
      if (safe > 0) {
        await parts.data(this.buf.subarray(0, safe));
        this.buf = this.buf.subarray(safe);
      }
      return false;
    }
    return true;
  }
}

/** Remove staged files (after an error, or once they are no longer needed). */
export async function discardStaged(files: StagedFile[]): Promise<void> {
  await Promise.all(files.map((f) => (f.path ? fs.promises.rm(f.path, { force: true }) : undefined)));
}
