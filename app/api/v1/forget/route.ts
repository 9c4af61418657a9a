import { handle, json, readBody } from "@/server/http/rest";
import { forgetInput } from "@/server/core/validators";
import { forgetRequest } from "@/server/memory/lifecycle/forget";
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
    return json(forgetRequest(appContext(), await readBody(req, forgetInput)));
  });
});
