import { handle, json, readBody } from "@/server/http/rest";
import { idsInput } from "@/server/core/validators";
import { restore } from "@/server/memory/lifecycle/forget";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/memories/restore { ids } → { restored } (undo of a delete or /forget) */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => json(restore(appContext(), (await readBody(req, idsInput)).ids)));
});
