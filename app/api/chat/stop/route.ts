import { z } from "zod";
import { stopTurn } from "@/server/chat/turn-control";
import { handle, json, readBody } from "@/server/http/rest";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const stopInput = z.strictObject({
  turnId: z.string().uuid("turnId must be the UUID the page sent with POST /api/chat"),
  /** How much of the reply the page had shown (characters, as JavaScript counts them): all that is kept. */
  shown: z.number().int().min(0),
});

/**
 * POST /api/chat/stop { turnId, shown } → { state: "stopped" | "finished" }
 * Stops a streaming chat turn (server/chat/turn-control.ts): its provider request ends at once, and the
 * reply is stored as the first `shown` characters the page displayed, marked stopped, not as memory; the
 * turn's own stream then ends with a `stopped` event carrying the stored message. "finished": the
 * reply had already ended, and stands as its stream reports.
 */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, stopInput);
    return json({ state: stopTurn(input.turnId, input.shown) });
  });
});
