import { errorResponse, handle, json } from "@/server/http/rest";
import { undoConsolidationRun } from "@/server/jobs/consolidation-runs";
import { appContext } from "@/server/context";
import { runAsSystem } from "@/server/core/acting";
import { asPerson, requireAdmin } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/jobs/runs/<id>/undo → undo a consolidation run (within 7 days): its merged memories
 * removed, the originals restored, its merged duplicate facts current again. 200 { run, removed, restored,
 * missing, factsRestored, factsMissing, undoneAt }; 404 for an unknown run; 409 when the run cannot be undone (not a consolidation, a preview, already undone, too old).
 */
export const POST = asPerson(async function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[1-9]\d{0,15}$/.test(id)) return errorResponse(400, "the run id must be a positive integer");
  return handle(() => {
    requireAdmin();
    return json(runAsSystem(() => undoConsolidationRun(appContext(), Number(id))));
  });
});
