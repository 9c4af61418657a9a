import { errorResponse, handle, json } from "@/server/http/rest";
import { runCounts, runJobNow, RUNNABLE_JOBS, type RunnableJob } from "@/server/jobs/jobs";
import { appContext } from "@/server/context";
import { asPerson, requireAdmin } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/jobs/<decay|consolidate>/run → run the job now and answer with what it did:
 * 200 { counts: { promoted, decayed, softDeleted, purged, merged }, run } (run.status ok or skipped, with
 * the reason); 409 when a run of that job is already in progress (here or in another process);
 * 500 when the run failed (run.error says why). Every run is in GET /api/v1/jobs/runs.
 */
export const POST = asPerson(async function POST(_req: Request, { params }: { params: Promise<{ job: string }> }) {
  const { job } = await params;
  if (!(RUNNABLE_JOBS as readonly string[]).includes(job))
    return errorResponse(404, `no job '${job}'; jobs are ${RUNNABLE_JOBS.join(" and ")}`); // the registry's (job-kinds.ts)
  return handle(async () => {
    requireAdmin();
    const run = await runJobNow(appContext(), job as RunnableJob, { trigger: "manual" });
    const body = { counts: runCounts(run), run };
    if (run.refused) return Response.json({ error: { status: 409, message: run.refused }, ...body }, { status: 409 });
    if (run.status === "failed")
      return Response.json(
        { error: { status: 500, message: `the ${job} run failed: ${run.error}` }, ...body },
        { status: 500 },
      );
    return json(body);
  });
});
