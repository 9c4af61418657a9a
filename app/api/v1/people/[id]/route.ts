import { deletePersonHandler, patchPersonHandler } from "@/server/http/people-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** PATCH /api/v1/people/:id { disabled?, password?, mustChangePassword? } → the person (an admin's session) */
export const PATCH = asPerson(async function PATCH(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return patchPersonHandler(req, (await params).id);
});

/** DELETE /api/v1/people/:id → { removed, files }: all of that person's data, in one transaction (an admin's session) */
export const DELETE = asPerson(async function DELETE(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return deletePersonHandler(req, (await params).id);
});
