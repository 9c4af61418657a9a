import { appContext } from "@/server/context";
import { handle, json } from "@/server/http/rest";
import { asPerson } from "@/server/http/person";
import { cancelImport } from "@/server/services/import-jobs";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/import/jobs/:id/cancel[?forget=true] → { job, forgotten }: stop a queued or running import
 * (yours; an admin's reaches anyone's). What it already stored stays, or with forget=true goes to the trash.
 * 404 unknown, 409 already finished.
 */
export const POST = asPerson(function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  return handle(async () => {
    const { id } = await params;
    const forget = ["1", "true"].includes(new URL(req.url).searchParams.get("forget") ?? "");
    return json(cancelImport(appContext().db, id, forget));
  });
});
