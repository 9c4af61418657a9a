import { handle, json } from "@/server/http/rest";
import { health } from "@/server/services/memory-service";
import { appContext } from "@/server/context";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/health → { ok, embedder: { status, model, dim }, store: { memories, vectors, fts } } */
export function GET() {
  return handle(() => {
    const h = health(appContext());
    return json(h, h.ok ? 200 : 503);
  });
}
