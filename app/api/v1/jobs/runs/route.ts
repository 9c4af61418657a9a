import { errorResponse, handle, json } from "@/server/http/rest";
import { reindexStatus } from "@/server/memory/index/reindex-job";
import { JOB_NAMES, listRuns } from "@/server/core/job-runner";
import { appContext } from "@/server/context";
import { asPerson, requireAdmin } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * GET /api/v1/jobs/runs[?job=decay|consolidate|reindex][&limit=20] → { runs: [{ id, job, startedAt,
 * finishedAt, status, result, error, durationMs }], reindex } — newest first; `reindex` is the progress
 * of the current or last re-index for a new embedding model.
 */
export const GET = asPerson(function GET(req: Request) {
  const q = new URL(req.url).searchParams;
  const job = q.get("job") ?? undefined;
  if (job && !(JOB_NAMES as readonly string[]).includes(job))
    return errorResponse(400, `job must be one of ${JOB_NAMES.join(", ")}`);
  const limitRaw = q.get("limit");
  const limit = limitRaw === null ? 20 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    return errorResponse(400, "limit must be an integer from 1 to 500");
  return handle(() => {
    requireAdmin();
    const db = appContext().db;
    return json({ runs: listRuns(db, { job, limit }), reindex: reindexStatus(db) });
  });
});
