import { handle, json, readBody } from "@/server/http/rest";
import { batchInput } from "@/server/core/validators";
import { addMemories } from "@/server/memory/store/add";
import { appContext } from "@/server/context";
import { requireAccess } from "@/server/auth/gate";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/memories/batch { items: [...] } → 201 { ids: [[...], ...] } (all items in one transaction) */
export const POST = asPerson(function POST(req: Request) {
  // Not behind proxy.ts (its 16 MB body would be buffered and cut at 10 MB): access is checked here first.
  return requireAccess(req, () =>
    handle(async () => {
      const input = await readBody(req, batchInput, 16 * 1024 * 1024);
      return json({ ids: await addMemories(appContext(), input.items) }, 201);
    }),
  );
});
