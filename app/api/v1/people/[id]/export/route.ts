import { exportPersonHandler } from "@/server/http/people-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/people/:id/export → that person's export file, offered before removal (an admin's session) */
export const GET = asPerson(async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return exportPersonHandler(req, (await params).id);
});
