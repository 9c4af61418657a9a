/**
 * A model download you can trust, shared by `npm run models:pull` and the first-start background
 * download (server/services/model-download-service.ts):
 * - no total timeout: a stall timeout instead (default 30 s without a byte);
 * - resume with HTTP Range after a dropped connection, and on the next run (the `.part` file is kept);
 * - 3 retries with exponential backoff (1 s, 2 s, 4 s), counted per attempt that brought no new bytes;
 * - the result is checked (GGUF magic, size when known, sha256) before it is renamed into place; a sha256
 *   mismatch deletes the partial file.
 */
import { createHash } from "node:crypto";
import dns from "node:dns/promises";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export type DownloadErrorKind = "offline" | "http" | "network" | "sha256" | "size" | "not_gguf" | "aborted";

export class DownloadError extends Error {
  constructor(
    readonly kind: DownloadErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadProgress {
  phase: "connecting" | "downloading" | "verifying";
  /** Bytes on disk so far (including what an earlier run left in the `.part` file). */
  done: number;
  /** Total bytes, when the server said (null: unknown). */
  total: number | null;
  /** Bytes per second over the last few seconds (0 until measured). */
  bytesPerSec: number;
  /** Seconds left at the current speed (null: unknown). */
  etaSec: number | null;
  /** Where this attempt started (bytes already there: a resume). */
  resumedFrom: number;
  attempt: number;
}

export interface DownloadOptions {
  url: string;
  /** Final path; the download goes to `${dest}.part` first. */
  dest: string;
  /** Expected sha256 (hex). Null: not verified here (the computed hash is returned for the caller to show). */
  sha256?: string | null;
  /** Expected size in bytes, when known (checked with the sha256). */
  expectedBytes?: number | null;
  /** Abort an attempt after this long without a byte (default 30 s). */
  stallMs?: number;
  /** Further attempts after a failed one (default 3). */
  retries?: number;
  /** First backoff (default 1 s), doubled per retry. */
  backoffMs?: number;
  /** Check that the host resolves first, so an offline machine fails within seconds (default true). */
  checkOnline?: boolean;
  onProgress?: (p: DownloadProgress) => void;
  log?: (msg: string) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  /** Whether the sha256 was compared with an expected one. */
  verified: boolean;
  attempts: number;
}

const DEFAULT_STALL_MS = 30_000;

/** Whether a hostname needs DNS (loopback and IP literals do not). */
function needsDns(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return !(net.isIP(h) || h === "localhost");
}

/** Fail within seconds on a machine with no network, instead of waiting for a connect timeout. */
export async function checkReachable(url: string, timeoutMs = 3000): Promise<void> {
  const host = new URL(url).hostname;
  if (!needsDns(host)) return;
  try {
    await Promise.race([
      dns.lookup(host),
      new Promise((_, rej) => setTimeout(() => rej(new Error("DNS lookup timed out")), timeoutMs).unref()),
    ]);
  } catch (e) {
    throw new DownloadError(
      "offline",
      `cannot reach ${host} (${e instanceof Error ? e.message : String(e)}): this machine looks offline`,
    );
  }
}

/** sha256 of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest("hex");
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Speed over a sliding window, so the ETA follows the link rather than the whole run's average. */
class Speedometer {
  private samples: { t: number; bytes: number }[] = [];
  add(bytes: number): void {
    const t = Date.now();
    this.samples.push({ t, bytes });
    while (this.samples.length > 2 && t - this.samples[0]!.t > 5000) this.samples.shift();
  }
  rate(): number {
    if (this.samples.length < 2) return 0;
    const first = this.samples[0]!;
    const last = this.samples.at(-1)!;
    const secs = (last.t - first.t) / 1000;
    return secs > 0 ? (last.bytes - first.bytes) / secs : 0;
  }
}

/** Parse `bytes 100-199/1000` (Content-Range of a 206). */
function parseContentRange(v: string | null): { start: number; total: number | null } | null {
  const m = v?.match(/^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i);
  if (!m) return null;
  return { start: Number(m[1]), total: m[3] === "*" ? null : Number(m[3]) };
}

class Retryable extends Error {}

/**
 * Download `url` to `dest` (see the module comment). Resolves once the file is verified and in place;
 * rejects with a DownloadError saying what went wrong (the `.part` stays for a resume unless the
 * content was wrong).
 */
export async function downloadModel(o: DownloadOptions): Promise<DownloadResult> {
  const stallMs = o.stallMs ?? DEFAULT_STALL_MS;
  const retries = o.retries ?? 3;
  const backoffMs = o.backoffMs ?? 1000;
  const log = o.log ?? (() => undefined);
  const part = `${o.dest}.part`;
  fs.mkdirSync(path.dirname(o.dest), { recursive: true, mode: 0o700 });
  if (o.checkOnline !== false) await checkReachable(o.url);

  let failures = 0;
  let attempt = 0;
  let total: number | null = o.expectedBytes ?? null;
  for (;;) {
    attempt++;
    const before = sizeOf(part);
    try {
      total = (await attemptOnce(o, part, attempt, stallMs, total)) ?? total;
      break;
    } catch (e) {
      if (o.signal?.aborted)
        throw new DownloadError("aborted", "the download was cancelled (the partial file is kept for a resume)");
      if (!(e instanceof Retryable)) throw e;
      // An attempt that brought bytes is progress, not a failure: only attempts that got nowhere count.
      if (sizeOf(part) > before) failures = 0;
      else failures++;
      if (failures > retries) {
        throw new DownloadError(
          "network",
          `${e.message}; gave up after ${retries} retries (the partial file ${part} is kept: run again to resume)`,
        );
      }
      const wait = backoffMs * 2 ** Math.max(0, failures - 1);
      log(`${e.message}; retrying in ${(wait / 1000).toFixed(0)} s (resuming at ${sizeOf(part)} bytes)`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, wait);
        o.signal?.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
      });
      if (o.signal?.aborted)
        throw new DownloadError("aborted", "the download was cancelled (the partial file is kept for a resume)");
    }
  }

  const bytes = sizeOf(part);
  o.onProgress?.({
    phase: "verifying",
    done: bytes,
    total: total ?? bytes,
    bytesPerSec: 0,
    etaSec: 0,
    resumedFrom: 0,
    attempt,
  });
  const head = Buffer.alloc(4);
  const fd = fs.openSync(part, "r");
  fs.readSync(fd, head, 0, 4, 0);
  fs.closeSync(fd);
  const sha = await sha256File(part);
  const expected = o.sha256?.trim().toLowerCase() || null;
  if (expected && sha !== expected) {
    fs.rmSync(part, { force: true });
    throw new DownloadError(
      "sha256",
      `sha256 mismatch: expected ${expected}, got ${sha} (${bytes} bytes). The partial file was deleted; nothing was installed.`,
    );
  }
  if (o.expectedBytes && bytes !== o.expectedBytes) {
    fs.rmSync(part, { force: true });
    throw new DownloadError(
      "size",
      `size mismatch: expected ${o.expectedBytes} bytes, got ${bytes}. The partial file was deleted.`,
    );
  }
  if (head.toString("ascii") !== "GGUF") {
    fs.rmSync(part, { force: true });
    throw new DownloadError("not_gguf", "the downloaded file is not a GGUF model (no GGUF magic); it was deleted");
  }
  fs.renameSync(part, o.dest);
  return { path: o.dest, bytes, sha256: sha, verified: Boolean(expected), attempts: attempt };
}

/** One HTTP request from the current `.part` size; returns the total size. Retryable errors may resume. */
async function attemptOnce(
  o: DownloadOptions,
  part: string,
  attempt: number,
  stallMs: number,
  knownTotal: number | null,
): Promise<number | null> {
  let offset = sizeOf(part);
  if (knownTotal && offset === knownTotal) return knownTotal; // complete already: verify
  const ctrl = new AbortController();
  const onOuter = () => ctrl.abort(o.signal?.reason);
  o.signal?.addEventListener("abort", onOuter, { once: true });
  let stalled = false;
  let timer: NodeJS.Timeout | null = null;
  const touch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      ctrl.abort(new Error("stalled"));
    }, stallMs);
    timer.unref();
  };
  touch();
  o.onProgress?.({
    phase: "connecting",
    done: offset,
    total: knownTotal,
    bytesPerSec: 0,
    etaSec: null,
    resumedFrom: offset,
    attempt,
  });
  try {
    let res: Response;
    try {
      res = await fetch(o.url, {
        redirect: "follow",
        signal: ctrl.signal,
        headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
      });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      throw new Retryable(stalled ? `no answer for ${stallMs / 1000} s` : `connection failed (${causeOf(e)})`);
    }
    const start = await resumePosition(o, res, part, offset);
    if ("whole" in start) return start.whole;
    offset = start.offset;
    const { total } = start;
    const done = await writeBody(o, res.body!, part, { offset, total, attempt }, touch, () =>
      stalled ? `no data for ${stallMs / 1000} s` : null,
    );
    if (total !== null && done < total) throw new Retryable(`connection closed early at ${done} of ${total} bytes`);
    return total ?? done;
  } finally {
    if (timer) clearTimeout(timer);
    o.signal?.removeEventListener("abort", onOuter);
  }
}

/**
 * Where the response's bytes go in the `.part` file and the file's total size, from its status and
 * Content-Range; `whole` when the part already is the whole file. Throws Retryable (after deleting a part that
 * cannot be resumed) or DownloadError for a refusal.
 */
async function resumePosition(
  o: DownloadOptions,
  res: Response,
  part: string,
  offset: number,
): Promise<{ whole: number } | { offset: number; total: number | null }> {
  if (res.status === 416 && offset > 0) {
    await res.body?.cancel();
    const cr = res.headers.get("content-range")?.match(/\*\/(\d+)/);
    if (cr && Number(cr[1]) === offset) return { whole: offset }; // the part is the whole file
    fs.rmSync(part, { force: true }); // the part is longer than the file: start again
    throw new Retryable("the server refused the resume position; starting again");
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    const msg = `HTTP ${res.status} ${res.statusText} from ${o.url}`;
    if (res.status >= 500 || res.status === 408 || res.status === 429) throw new Retryable(msg);
    throw new DownloadError("http", `download failed: ${msg}`);
  }
  if (res.status === 206) {
    const cr = parseContentRange(res.headers.get("content-range"));
    if (!cr || cr.start !== offset) {
      await res.body.cancel();
      fs.rmSync(part, { force: true });
      throw new Retryable(
        `the server resumed at the wrong position (${res.headers.get("content-range")}); starting again`,
      );
    }
    o.log?.(`resuming at ${offset} of ${cr.total ?? "?"} bytes`);
    return { offset, total: cr.total };
  }
  // 200: the whole file (the server ignored Range, or there was nothing to resume).
  if (offset > 0) o.log?.("the server does not resume downloads; starting again");
  const len = Number(res.headers.get("content-length") ?? 0);
  return { offset: 0, total: len > 0 ? len : null };
}

/**
 * Append the response body to the `.part` file from `at.offset`, reporting progress at most every 200 ms;
 * returns the bytes the part holds. `touch` re-arms the stall timer; `stalledAs` names a stall once it fired.
 */
async function writeBody(
  o: DownloadOptions,
  body: ReadableStream<Uint8Array>,
  part: string,
  at: { offset: number; total: number | null; attempt: number },
  touch: () => void,
  stalledAs: () => string | null,
): Promise<number> {
  const { offset, total, attempt } = at;
  const out = fs.createWriteStream(part, { flags: offset > 0 ? "a" : "w", mode: 0o600 });
  const speed = new Speedometer();
  let done = offset;
  speed.add(done);
  let lastReport = 0;
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      touch();
      done += chunk.byteLength;
      speed.add(done);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
      if (Date.now() - lastReport >= 200) {
        lastReport = Date.now();
        const rate = speed.rate();
        o.onProgress?.({
          phase: "downloading",
          done,
          total,
          bytesPerSec: rate,
          etaSec: total && rate > 0 ? (total - done) / rate : null,
          resumedFrom: offset,
          attempt,
        });
      }
    }
  } catch (e) {
    if (o.signal?.aborted) throw e;
    const stalled = stalledAs();
    throw new Retryable(
      stalled ? `${stalled} at ${done} bytes` : `connection dropped at ${done} bytes (${causeOf(e)})`,
    );
  } finally {
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
  o.onProgress?.({
    phase: "downloading",
    done,
    total,
    bytesPerSec: speed.rate(),
    etaSec: 0,
    resumedFrom: offset,
    attempt,
  });
  return done;
}

function causeOf(e: unknown): string {
  let c: unknown = e;
  let msg = e instanceof Error ? e.message : String(e);
  for (let i = 0; i < 4 && c; i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string") return code;
    if (c instanceof Error && c.message) msg = c.message;
    c = (c as { cause?: unknown }).cause;
  }
  return msg;
}
