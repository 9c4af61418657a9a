import { appContext } from "@/server/context";
import { json } from "@/server/http/rest";
import { listImportJobs } from "@/server/services/import-jobs";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/import/jobs → { jobs }: your imports (kept in the store across restarts), newest first. */
export const GET = asPerson(function GET(_req: Request) {
  return json({ jobs: listImportJobs(appContext().db) });
});
