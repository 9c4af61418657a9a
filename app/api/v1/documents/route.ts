import { errorResponse, handle, json } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { listDocuments, uploadDocuments } from "@/server/services/document-service";
import { requireAccess } from "@/server/auth/gate";
import { asPerson } from "@/server/http/person";
import { mySpaceOf } from "@/server/core/acting";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/documents — multipart/form-data: one or more files in the field `file`, optional `space`
 * (form field or ?space=). → 202 { documents: [{ id, name, status, error?, duplicateOf? }] }, one row per
 * file: a bad file is `failed` with its reason while the others are queued. Poll GET /api/v1/documents/:id.
 */
export const POST = asPerson(function POST(req: Request) {
  // Not behind proxy.ts (it would buffer the upload): access is checked here, before the body is read.
  return requireAccess(req, () => handle(async () => json(await uploadDocuments(appContext(), req), 202)));
});

/** GET /api/v1/documents[?space=] → { documents: [...] } with status and progress, newest first. */
export const GET = asPerson(function GET(req: Request) {
  return requireAccess(req, () => list(req));
});

function list(req: Request) {
  const raw = new URL(req.url).searchParams.get("space") ?? undefined;
  const space = raw === undefined ? undefined : mySpaceOf(raw);
  if (space === null) return errorResponse(400, "space must be 1–64 letters, digits, '-' or '_'");
  return handle(() => json({ documents: listDocuments(appContext(), space) }));
}
