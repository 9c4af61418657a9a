import { errorResponse, handle, json } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { cancelDocument } from "@/server/services/document-service";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/documents/:id/cancel → the document, `cancelled` (its memories removed) */
export const POST = asPerson(async function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a document id (UUID)");
  return handle(async () => json(await cancelDocument(appContext(), id)));
});
