import { handle, json, readBody } from "@/server/http/rest";
import { forgetInput } from "@/server/core/validators";
import { forget, forgetPreview } from "@/server/memory/lifecycle/forget";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/forget { pattern, space?, preview? } → { count, items, undo: { ids, until }, message };
 * with preview: true → { count, items, pinned, preview: true, message } and nothing is deleted.
 */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, forgetInput);
    if (input.preview) return json(forgetPreview(appContext(), input.pattern, input.space));
    return json(forget(appContext(), input.pattern, input.space));
  });
});
