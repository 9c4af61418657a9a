import { handle, json } from "@/server/http/rest";
import { health } from "@/server/services/memory-service";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * GET /api/health → { ok, embedder: { status, model, dim }, store: { memories, vectors, fts } }: the counts are
 * the caller's own memories, the household's for an admin (issue 43).
 */
export const GET = asPerson(function GET() {
  return handle(() => {
    const h = health(appContext());
    return json(h, h.ok ? 200 : 503);
  });
});
