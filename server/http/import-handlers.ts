/**
 * The HTTP side of imports (`POST /api/v1/import` and `POST /api/v1/import/<format>`, one per entry of
 * server/services/import/formats.ts): read the whole body (up to 256 MB) and plan it with the format's planner
 * (server/services/import/registry.ts) off the event loop (bad input: 4xx, nothing written), queue the job, and answer 202 with it, or
 * with `?wait=true` answer when it has finished (200, or the failure's status and message).
 */
import { enqueueImport, waitForImport } from "../services/import-jobs";
import { appContext } from "../context";
import { ServiceError } from "../core/errors";
import { spaceName } from "../core/validators";
import { MAX_IMPORT_BYTES } from "../services/transfer-service";
import { IMPORT_FORMATS, isImportFormat, type ImportFormatId } from "../services/import/formats";
import { importTarget } from "../services/import/registry";
import { planOffThread } from "./import-plan-thread";
import { errorResponse, handle, json, readCapped } from "./rest";
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
  // Not behind proxy.ts (a 256 MB import would be buffered and cut at 10 MB): access is checked here first.
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

async function readAndPlan(req: Request, format: ImportFormatId, space: string | undefined) {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_IMPORT_BYTES) throw new ServiceError(413, `request body is larger than ${MAX_IMPORT_BYTES} bytes`);
  const bytes = await readCapped(req, MAX_IMPORT_BYTES);
  if (bytes.byteLength === 0) throw new ServiceError(400, "request body is empty; send a JSON object");
  // Decoded, parsed and planned in a worker with a heap and time cap (server/http/import-plan-thread.ts).
  return planOffThread(format, bytes, space);
}

function handleImport(format: ImportFormatId, req: Request) {
  return handle(async () => {
    const url = new URL(req.url);
    const space = spaceParam(url);
    const label = url.searchParams.get("filename")?.trim() || IMPORT_FORMATS[format].defaultLabel;
    const plan = await readAndPlan(req, format, space).catch((e: unknown) => {
      throw namingTheFile(e, label, format);
    });
    const job = enqueueImport(appContext(), format, label, importTarget(format, space), plan);
    if (!["1", "true"].includes(url.searchParams.get("wait") ?? "")) return json({ job }, 202);
    const done = await waitForImport(job.id);
    if (done.status === "failed") return errorResponse(done.errorStatus ?? 500, done.error ?? "import failed");
    return json({ job: done }, 200);
  });
}
