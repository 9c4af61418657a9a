import { errorResponse, handle, json } from "@/server/http/rest";
import { deleteMemory, getMemoryOr404 } from "@/server/services/memory-service";
import { appContext } from "@/server/context";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/memories/:id → the memory */
export const GET = asPerson(async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a memory id (UUID)");
  return handle(() => json(getMemoryOr404(appContext(), id)));
});

/** DELETE /api/v1/memories/:id[?purge=true] → soft delete (restorable) or purge from all tables */
export const DELETE = asPerson(async function DELETE(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a memory id (UUID)");
  const purge = new URL(req.url).searchParams.get("purge") === "true";
  return handle(() => json(deleteMemory(appContext(), id, purge)));
});
