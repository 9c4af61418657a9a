/**
 * Worker-thread entry for import-plan-thread.ts: reads one import file (UTF-8, JSON, no NUL or lone surrogate in
 * any string) and plans it with its format's planner, as the person who sent it; answers with the plan,
 * or with the refusal's status and message (a ServiceError survives the thread boundary that way).
 */
import { parentPort } from "node:worker_threads";
import { type Acting, runAs } from "../core/acting";
import { asServiceError, ServiceError } from "../core/errors";
import { badTextMessage, decodeJson, findBadText } from "./guard";
import type { ImportFormatId } from "../services/import/formats";
import { planImport } from "../services/import/registry";

export interface PlanRequest {
  id: number;
  format: ImportFormatId;
  bytes: Uint8Array;
  space: string | undefined;
  acting: Acting;
}

function readJson(bytes: Uint8Array): unknown {
  const data = decodeJson(bytes);
  const bad = findBadText(data);
  if (bad) throw new ServiceError(400, badTextMessage(bad));
  return data;
}

const port = parentPort;
if (!port) throw new Error("import-plan-worker.ts runs only as a worker thread (see import-plan-thread.ts)");

port.on("message", (m: PlanRequest) => {
  try {
    const plan = runAs(m.acting, () => planImport(m.format, readJson(m.bytes), m.space));
    port.postMessage({ id: m.id, plan });
  } catch (e) {
    const se = asServiceError(e);
    port.postMessage({
      id: m.id,
      error: { status: se?.status ?? 500, message: se ? se.message : e instanceof Error ? e.message : String(e) },
    });
  }
});
