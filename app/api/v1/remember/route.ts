import { handle, json, readBody } from "@/server/http/rest";
import { rememberInput } from "@/server/core/validators";
import { remember } from "@/server/memory/store/add";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/remember { text, space? } → 201 { ids, message } (a pinned memory) */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, rememberInput);
    return json(await remember(appContext(), input.text, input.space), 201);
  });
});
