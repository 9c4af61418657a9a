import { errorResponse, handle, json } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { deleteDocument, getDocumentOr404 } from "@/server/services/document-service";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/documents/:id → status and progress (chunksDone / chunksTotal), error when failed */
export const GET = asPerson(async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a document id (UUID)");
  return handle(() => json(getDocumentOr404(appContext(), id)));
});

/** DELETE /api/v1/documents/:id → stops its job, removes its memories from all three tables, the row and the file */
export const DELETE = asPerson(async function DELETE(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a document id (UUID)");
  return handle(async () => json(await deleteDocument(appContext(), id)));
});
