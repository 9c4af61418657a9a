import { json } from "@/server/http/rest";
import { listImportJobs } from "@/server/services/import-jobs";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/import/jobs → { jobs }: the recent imports of this server process, newest first. */
export function GET() {
  return json({ jobs: listImportJobs() });
}
