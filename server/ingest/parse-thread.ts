/**
 * Parsing runs off the server's event loop, in one worker thread (parse-worker.ts) with a heap limit
 * (resourceLimits) and a wall-clock budget per file. A file that runs past its budget or out of memory
 * terminates the worker (a fresh one serves the next file) and fails with a reason naming the setting;
 * health checks, searches and chats keep being answered meanwhile. Files are parsed one at a time.
 */
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { WorkerSlot } from "../core/worker-slot";
import { IngestError } from "./detect";
import type { ParsedDocument } from "./parse";
import { parseLimits, type ParseLimits } from "./parse-limits";
import type { ParseRequest } from "./parse-worker";

/** An idle worker is ended after this long: the heap of a big parse is not kept for nothing. */
const IDLE_MS = 30_000;

interface Job {
  bytes: Uint8Array;
  name: string;
  limits: ParseLimits;
  signal?: AbortSignal;
  transfer?: boolean;
  resolve: (p: ParsedDocument) => void;
  reject: (e: unknown) => void;
}

type Reply = { id: number; parsed?: ParsedDocument; error?: { code?: IngestError["code"]; message: string } };

let idle: NodeJS.Timeout | null = null;
let busy = false;
let seq = 0;
const queue: Job[] = [];

const slot = new WorkerSlot(
  path.join(/* turbopackIgnore: true */ process.cwd(), "server", "ingest", "parse-worker.ts"),
);

function next(): void {
  if (busy) return;
  const job = queue.shift();
  if (!job) {
    slot.current?.unref(); // an idle worker never keeps the process alive
    idle ??= setTimeout(() => {
      idle = null;
      if (!busy) slot.stop();
    }, IDLE_MS).unref();
    return;
  }
  if (idle) clearTimeout(idle);
  idle = null;
  busy = true;
  run(job);
}

function run(job: Job): void {
  if (job.signal?.aborted) {
    busy = false;
    job.reject(job.signal.reason);
    next();
    return;
  }
  let w: Worker;
  try {
    w = slot.get(job.limits.memoryMb);
  } catch (e) {
    busy = false;
    job.reject(e);
    next();
    return;
  }
  w.ref();
  const id = ++seq;
  let settled = false;
  const settle = (fn: () => void, killWorker: boolean) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    w.off("message", onMessage);
    w.off("error", onError);
    w.off("exit", onExit);
    job.signal?.removeEventListener("abort", onAbort);
    if (killWorker && slot.current === w) slot.stop();
    busy = false;
    fn();
    next();
  };
  const onMessage = (m: Reply) => {
    if (m.id !== id) return;
    if (m.parsed) settle(() => job.resolve(m.parsed!), false);
    else {
      const err = m.error?.code ? new IngestError(m.error.code, m.error.message) : new Error(m.error?.message);
      settle(() => job.reject(err), false);
    }
  };
  const onError = (e: Error & { code?: string }) =>
    settle(
      () =>
        job.reject(
          e.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new IngestError(
                "TOO_LARGE",
                `reading this file needed more than ${job.limits.memoryMb} MB of memory (MEMO_INGEST_PARSE_MEMORY_MB); split it into smaller files`,
              )
            : e,
        ),
      true,
    );
  const onExit = (code: number) =>
    settle(() => job.reject(new Error(`the parsing worker exited (code ${code})`)), true);
  const onAbort = () => settle(() => job.reject(job.signal!.reason), true);
  const seconds = Math.round(job.limits.timeBudgetMs / 100) / 10;
  const timer = setTimeout(
    () =>
      settle(
        () =>
          job.reject(
            new IngestError(
              "PARSE_TIMEOUT",
              `reading this file took longer than ${seconds} s (MEMO_INGEST_PARSE_SECONDS), so it was stopped; the file may be malformed, or too large to read in one go`,
            ),
          ),
        true,
      ),
    job.limits.timeBudgetMs,
  );
  w.on("message", onMessage);
  w.on("error", onError);
  w.on("exit", onExit);
  job.signal?.addEventListener("abort", onAbort, { once: true });
  // Handed over without a copy when the caller gives its buffer away (a copy of a big file costs this
  // thread up to a second on a busy machine); otherwise copied, then transferred.
  const whole = job.bytes.byteOffset === 0 && job.bytes.byteLength === job.bytes.buffer.byteLength;
  const bytes =
    job.transfer && whole && job.bytes.buffer instanceof ArrayBuffer
      ? new Uint8Array(job.bytes.buffer)
      : new Uint8Array(job.bytes);
  const request: ParseRequest = { id, bytes, name: job.name, limits: job.limits };
  w.postMessage(request, [bytes.buffer as ArrayBuffer]);
}

/**
 * Parse a file in the worker thread, within `limits` (default: the settings in force). `transfer`: the
 * caller gives `bytes` away (its buffer is moved to the worker and is empty afterwards).
 */
export function parseOffThread(
  bytes: Uint8Array,
  name: string,
  opts: { signal?: AbortSignal; limits?: Partial<ParseLimits>; transfer?: boolean } = {},
): Promise<ParsedDocument> {
  opts.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const limits = { ...parseLimits(), ...opts.limits };
    queue.push({ bytes, name, limits, signal: opts.signal, transfer: opts.transfer, resolve, reject });
    next();
  });
}
