/**
 * Worker-thread entry for parse-thread.ts: parses one file per message and answers with its sections, or
 * with the refusal (an IngestError's code and message survive the thread boundary).
 */
import { parentPort } from "node:worker_threads";
import { IngestError } from "./detect";
import { parseDocument } from "./parse";
import type { ParseLimits } from "./parse-limits";

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  name: string;
  limits: ParseLimits;
}

const port = parentPort;
if (!port) throw new Error("parse-worker.ts runs only as a worker thread (see parse-thread.ts)");

port.on("message", async (m: ParseRequest) => {
  try {
    port.postMessage({ id: m.id, parsed: await parseDocument(m.bytes, m.name, m.limits) });
  } catch (e) {
    const error =
      e instanceof IngestError
        ? { code: e.code, message: e.message }
        : { message: e instanceof Error ? e.message : String(e) };
    port.postMessage({ id: m.id, error });
  }
});
