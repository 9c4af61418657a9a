/**
 * Import files are read and planned off the server's event loop, in one worker thread (import-plan-worker.ts)
 * with a heap limit and a wall-clock budget per file, as documents are parsed (server/ingest/parse-thread.ts):
 * JSON.parse of a 256 MB conversations.json and the walk over it would otherwise hold every chat, search
 * and health check for seconds, and a hostile file could exhaust the server's memory. A file past either
 * cap is a 413 naming the setting; the worker is ended and a fresh one serves the next file. One file at a time.
 */
import path from "node:path";
import { acting } from "../core/acting";
import { ServiceError, type ServiceStatus } from "../core/errors";
import { WorkerSlot } from "../core/worker-slot";
import type { ImportPlan } from "../services/transfer-service";
import type { ImportFormatId } from "../services/import/formats";
import type { PlanRequest } from "./import-plan-worker";

export interface ImportParseLimits {
  /** Wall-clock budget for reading and planning one file, in ms (MEMO_IMPORT_PARSE_SECONDS). */
  timeBudgetMs: number;
  /** Heap the worker may use, in MB (MEMO_IMPORT_PARSE_MEMORY_MB): a parsed JSON file takes several times its size. */
  memoryMb: number;
}

export const DEFAULT_IMPORT_PARSE_LIMITS: ImportParseLimits = { timeBudgetMs: 120_000, memoryMb: 4096 };

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  const v = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

export function importParseLimits(): ImportParseLimits {
  const d = DEFAULT_IMPORT_PARSE_LIMITS;
  return {
    timeBudgetMs: positive("MEMO_IMPORT_PARSE_SECONDS", d.timeBudgetMs / 1000) * 1000,
    memoryMb: Math.floor(positive("MEMO_IMPORT_PARSE_MEMORY_MB", d.memoryMb)),
  };
}

/** An idle worker is ended after this long: the heap of a big file is not kept for nothing. */
const IDLE_MS = 30_000;

type Reply = { id: number; plan?: ImportPlan; error?: { status: number; message: string } };

let idle: NodeJS.Timeout | null = null;
let seq = 0;
let tail: Promise<unknown> = Promise.resolve();

const slot = new WorkerSlot(
  path.join(/* turbopackIgnore: true */ process.cwd(), "server", "http", "import-plan-worker.ts"),
);

function planInWorker(req: Omit<PlanRequest, "id">, limits: ImportParseLimits): Promise<ImportPlan> {
  if (idle) clearTimeout(idle);
  idle = null;
  const w = slot.get(limits.memoryMb);
  w.ref();
  const id = ++seq;
  return new Promise<ImportPlan>((resolve, reject) => {
    const settle = (fn: () => void, killWorker: boolean) => {
      clearTimeout(timer);
      w.off("message", onMessage);
      w.off("error", onError);
      w.off("exit", onExit);
      if (killWorker && slot.current === w) slot.stop();
      else {
        w.unref(); // an idle worker never keeps the process alive
        idle = setTimeout(() => {
          idle = null;
          slot.stop();
        }, IDLE_MS).unref();
      }
      fn();
    };
    const onMessage = (m: Reply) => {
      if (m.id !== id) return;
      if (m.plan) settle(() => resolve(m.plan!), false);
      else {
        const { status = 500, message = "import failed" } = m.error ?? {};
        // An unexpected failure stays one (a 500 that the handler logs), not a refusal of the file.
        const err = status === 500 ? new Error(message) : new ServiceError(status as ServiceStatus, message);
        settle(() => reject(err), false);
      }
    };
    const onError = (e: Error & { code?: string }) =>
      settle(
        () =>
          reject(
            e.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? new ServiceError(
                  413,
                  `reading this file needed more than ${limits.memoryMb} MB of memory (MEMO_IMPORT_PARSE_MEMORY_MB); split it into smaller files`,
                )
              : e,
          ),
        true,
      );
    const onExit = (code: number) => settle(() => reject(new Error(`the import worker exited (code ${code})`)), true);
    const timer = setTimeout(
      () =>
        settle(
          () =>
            reject(
              new ServiceError(
                413,
                `reading this file took longer than ${Math.round(limits.timeBudgetMs / 100) / 10} s (MEMO_IMPORT_PARSE_SECONDS), so it was stopped; split it into smaller files`,
              ),
            ),
          true,
        ),
      limits.timeBudgetMs,
    );
    w.on("message", onMessage);
    w.on("error", onError);
    w.on("exit", onExit);
    // The body's buffer is handed over, not copied (the caller is done with it).
    const whole = req.bytes.byteOffset === 0 && req.bytes.byteLength === req.bytes.buffer.byteLength;
    const bytes = whole ? req.bytes : new Uint8Array(req.bytes);
    const msg: PlanRequest = { ...req, id, bytes };
    w.postMessage(msg, [bytes.buffer as ArrayBuffer]);
  });
}

/**
 * Read and plan an import file of `format` for the acting person, off the event loop, within `limits`
 * (default: the settings in force). The bytes are given away. Refusals are ServiceErrors (400 bad file,
 * 413 past a cap); files wait their turn.
 */
export function planOffThread(
  format: ImportFormatId,
  bytes: Uint8Array,
  space: string | undefined,
  limits: Partial<ImportParseLimits> = {},
): Promise<ImportPlan> {
  const req = { format, bytes, space, acting: { ...acting() } };
  const run = () => planInWorker(req, { ...importParseLimits(), ...limits });
  const p = tail.then(run, run);
  tail = p.catch(() => undefined);
  return p;
}
