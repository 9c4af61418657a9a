import { handle, json, readBody } from "@/server/http/rest";
import { idsInput } from "@/server/services/schemas";
import { restore } from "@/server/services/memory-service";
import { appContext } from "@/server/core/context";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/memories/restore { ids } → { restored } (undo of a delete or /forget) */
export function POST(req: Request) {
  return handle(async () => json(restore(appContext(), (await readBody(req, idsInput)).ids)));
}
