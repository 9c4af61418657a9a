/**
 * The HTTP side of imports (`POST /api/v1/import`, `POST /api/v1/import/chatgpt`): read and validate the
 * whole body first (bad input: 4xx, nothing written), queue the job, and answer 202 with it, or with
 * `?wait=true` answer when it has finished (200, or the failure's status and message).
 */
import { z } from "zod";
import { planChatGptImport } from "../services/chatgpt-import";
import { enqueueImport, waitForImport, type ImportKind } from "../services/import-jobs";
import { DEFAULT_SPACE } from "../core/space-name";
import { appContext } from "../context";
import { ServiceError } from "../core/errors";
import { spaceName } from "../core/validators";
import { MAX_IMPORT_BYTES, planExportImport } from "../services/transfer-service";
import { errorResponse, handle, json, readBody } from "./rest";
import { requireAccess } from "../auth/gate";
import { mySpace } from "../core/acting";

function spaceParam(url: URL): string | undefined {
  const raw = url.searchParams.get("space");
  if (raw === null || raw === "") return undefined;
  const parsed = spaceName.safeParse(raw);
  if (!parsed.success) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  return parsed.data;
}

export function importHandler(kind: ImportKind) {
  // Not behind proxy.ts (a 256 MB import would be buffered and cut at 10 MB): access is checked here first.
  return (req: Request) => requireAccess(req, () => handleImport(kind, req));
}

function handleImport(kind: ImportKind, req: Request) {
  return handle(async () => {
    const url = new URL(req.url);
    const space = spaceParam(url);
    const label =
      url.searchParams.get("filename")?.trim() || (kind === "chatgpt" ? "conversations.json" : "request body");
    const data = await readBody(req, z.unknown(), MAX_IMPORT_BYTES);
    const target = kind === "chatgpt" ? (space ?? mySpace(DEFAULT_SPACE)) : (space ?? null);
    const plan = kind === "chatgpt" ? planChatGptImport(data, target!) : planExportImport(data, space);
    const job = enqueueImport(appContext(), kind, label, target, plan);
    if (!["1", "true"].includes(url.searchParams.get("wait") ?? "")) return json({ job }, 202);
    const done = await waitForImport(job.id);
    if (done.status === "failed") return errorResponse(done.errorStatus ?? 500, done.error ?? "import failed");
    return json({ job: done }, 200);
  });
}
