import { handle, json, readBody } from "@/server/http/rest";
import { newMemoryInput } from "@/server/core/validators";
import { addMemories } from "@/server/memory/store/add";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/memories { text, space?, timestamp?, kind?, importance?, pinned? } → 201 { ids } */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, newMemoryInput);
    const [ids] = await addMemories(appContext(), [input]);
    return json({ ids }, 201);
  });
});
