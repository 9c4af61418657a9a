/**
 * The HTTP side of imports (`POST /api/v1/import` and `POST /api/v1/import/<format>`, one per entry of
 * server/services/import/formats.ts): the body is received to a file under the data folder as it streams in
 * (up to MEMO_IMPORT_MAX_MB; a Memo export, read whole, up to 256 MB), checked (a file up to 16 MB is planned
 * whole off the event loop with the format's planner, server/services/import/registry.ts; a larger
 * conversation export has its start checked) — bad input: 4xx, nothing written — and queued as a durable job
 * (server/services/import-jobs.ts); the answer is 202 with it, or with `?wait=true` the finished job (200, or
 * the failure's status and message). A person past their imports in flight gets a 429 before the upload.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  checkImportAllowed,
  enqueueImportFile,
  importMaxBytes,
  importsFolder,
  waitForImport,
} from "../services/import-jobs";
import { checkStreamedStart, isStreamed } from "../services/import/job-reader";
import { receiveToFile } from "./receive-file";
import { appContext } from "../context";
import { ServiceError } from "../core/errors";
import { spaceName } from "../core/validators";
import { MAX_IMPORT_BYTES } from "../services/transfer-service";
import { IMPORT_FORMATS, isImportFormat, type ImportFormatId } from "../services/import/formats";
import { importTarget } from "../services/import/registry";
import { planOffThread } from "./import-plan-thread";
import { errorResponse, handle, json } from "./rest";
import type { ImportJob } from "../services/import-jobs";
import { requireAccess } from "../auth/gate";

function spaceParam(url: URL): string | undefined {
  const raw = url.searchParams.get("space");
  if (raw === null || raw === "") return undefined;
  const parsed = spaceName.safeParse(raw);
  if (!parsed.success) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  return parsed.data;
}

/**
 * A refusal of an import file says which file, and what to choose instead, in plain words ("“notes.txt” could
 * not be read: it is not valid JSON. Choose the conversations.json file …" rather than "request body is not
 * valid JSON"); nothing was imported. Other errors pass.
 */
export function namingTheFile(e: unknown, label: string, format: ImportFormatId): unknown {
  if (!(e instanceof ServiceError) || (e.status !== 400 && e.status !== 413)) return e;
  const name = `“${label.slice(0, 120)}”`;
  const expected = IMPORT_FORMATS[format].fileLabel;
  const choose = `Choose the ${expected} (nothing was imported).`;
  const plain: Record<string, string> = {
    "request body is not valid JSON": `${name} could not be read: it is not valid JSON. ${choose}`,
    "request body is not valid UTF-8": `${name} could not be read: it is not valid UTF-8 text. ${choose}`,
    "request body is empty; send a JSON object": `${name} could not be read: its body is empty. ${choose}`,
  };
  return new ServiceError(e.status, plain[e.message] ?? `${name} was not imported: ${e.message}`);
}

/** `POST /api/v1/import`: a Memo export. */
export function importHandler(format: ImportFormatId) {
  // Not behind proxy.ts (a large import would be buffered and cut at 10 MB): access is checked here first.
  return (req: Request) => requireAccess(req, () => handleImport(format, req));
}

/** `POST /api/v1/import/[format]`: any other format of the registry; an unknown one is a 404. */
export function formatImportHandler() {
  return (req: Request, { params }: { params: Promise<{ format: string }> }) =>
    requireAccess(req, async () => {
      const { format } = await params;
      if (!isImportFormat(format) || IMPORT_FORMATS[format].route !== `/api/v1/import/${format}`)
        return errorResponse(
          404,
          `no import format '${format.slice(0, 40)}'; formats: ${Object.values(IMPORT_FORMATS)
            .map((f) => f.route)
            .join(", ")}`,
        );
      return handleImport(format, req);
    });
}

/** Files up to this size are planned whole before they are queued (the exact 400s of the format's planner). */
const WHOLE_CHECK_BYTES = 16 * 1024 * 1024;

/**
 * Receive the body to `file` and check it before it is queued: a file up to WHOLE_CHECK_BYTES (or a Memo
 * export) is planned whole, decoded and parsed in a worker with a heap and time cap
 * (server/http/import-plan-thread.ts); a larger conversation export has its start checked.
 */
async function receiveAndCheck(
  req: Request,
  format: ImportFormatId,
  file: string,
  cap: number,
  space: string | undefined,
): Promise<number> {
  const size = await receiveToFile(req, file, cap);
  if (size === 0) throw new ServiceError(400, "request body is empty; send a JSON object");
  if (!isStreamed(format) || size <= WHOLE_CHECK_BYTES)
    await planOffThread(format, await fs.promises.readFile(file), space);
  else await checkStreamedStart(format, file);
  return size;
}

/** The import route after its access check (benches call it directly). */
export function handleImport(format: ImportFormatId, req: Request) {
  return handle(async () => {
    const url = new URL(req.url);
    const space = spaceParam(url);
    const label = url.searchParams.get("filename")?.trim() || IMPORT_FORMATS[format].defaultLabel;
    const db = appContext().db;
    checkImportAllowed(db);
    const id = crypto.randomUUID();
    const file = path.join(importsFolder(), `${id}.json`);
    const cap = isStreamed(format) ? importMaxBytes() : Math.min(MAX_IMPORT_BYTES, importMaxBytes());
    let job: ImportJob;
    try {
      // A refusal of the file (too large, empty, not JSON, not this format) names it and what to choose.
      const size = await receiveAndCheck(req, format, file, cap, space).catch((e: unknown) => {
        throw namingTheFile(e, label, format);
      });
      job = enqueueImportFile(db, {
        id,
        kind: format,
        label,
        space: importTarget(format, space),
        file,
        bytesTotal: size,
      });
    } catch (e) {
      fs.rmSync(file, { force: true });
      throw e;
    }
    if (!["1", "true"].includes(url.searchParams.get("wait") ?? "")) return json({ job }, 202);
    const done = await waitForImport(db, job.id);
    if (done.status === "failed") return errorResponse(done.errorStatus ?? 500, done.error ?? "import failed");
    return json({ job: done }, 200);
  });
}
