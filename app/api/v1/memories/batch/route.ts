import { handle, json, readBody } from "@/server/http/rest";
import { batchInput } from "@/server/services/schemas";
import { addMemories, appContext } from "@/server/services/memory-service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/memories/batch { items: [...] } → 201 { ids: [[...], ...] } (all items in one transaction) */
export function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, batchInput, 16 * 1024 * 1024);
    return json({ ids: await addMemories(appContext(), input.items) }, 201);
  });
}
