import { appContext } from "@/server/context";
import { errorResponse, json } from "@/server/http/rest";
import { getImportJob } from "@/server/services/import-jobs";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/import/jobs/:id → { job } with its progress (bytesDone/bytesTotal, total, done, imported, duplicates, status). */
export const GET = asPerson(async function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const job = getImportJob(appContext().db, id);
  return job ? json({ job }) : errorResponse(404, `import job ${id} not found`);
});
