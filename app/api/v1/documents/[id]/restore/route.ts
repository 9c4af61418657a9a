import { errorResponse, handle, json } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { restoreDocument } from "@/server/services/document-service";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/documents/:id/restore → 200, the document with its forgotten passages restored (`restored`: how many); 409 when none is forgotten */
export const POST = asPerson(async function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a document id (UUID)");
  return handle(() => json(restoreDocument(appContext(), id)));
});
