import { handle, json, readBody } from "@/server/http/rest";
import { forgetInput } from "@/server/services/schemas";
import { appContext, forget } from "@/server/services/memory-service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/forget { pattern, space? } → { count, items, undo: { ids, until }, message } */
export function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, forgetInput);
    return json(forget(appContext(), input.pattern, input.space));
  });
}
