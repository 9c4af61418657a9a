import { z } from "zod";
import { sseFrame } from "@/server/chat/sse";
import { runTurn, turnConversation, checkTurnInput, type TurnEvent } from "@/server/chat/turn";
import { PROVIDER_IDS } from "@/server/chat/providers";
import { handle, readBody } from "@/server/http/rest";
import { appContext } from "@/server/services/memory-service";
import { spaceName } from "@/server/services/schemas";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const chatInput = z.strictObject({
  conversationId: z.string().uuid("conversationId must be a conversation id").optional(),
  space: spaceName.optional(),
  message: z.string(),
  provider: z.enum(PROVIDER_IDS).optional(),
  model: z.string().trim().min(1).max(200).optional(),
});

/**
 * POST /api/chat { conversationId?, space?, message, provider?, model? } → text/event-stream
 * One JSON object per event (TurnEvent): start, recall, provider, delta…, then done | command | error.
 * Bad input (empty message, unknown conversation) is a JSON 4xx before any event.
 * Closing the connection stops the reply; what was generated is kept.
 */
export function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, chatInput);
    checkTurnInput(input);
    const memo = appContext();
    const conversation = turnConversation(memo, input);
    const abort = new AbortController();
    const events = runTurn({ memo, signal: abort.signal }, { ...input, conversationId: conversation.id })[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let ev: IteratorResult<TurnEvent>;
        try {
          ev = await events.next();
        } catch (e) {
          console.error("[chat] turn failed", e);
          controller.enqueue(encoder.encode(sseFrame({ type: "error", kind: "internal", status: 500, message: "The turn failed unexpectedly; see the server log.", partial: null })));
          controller.close();
          return;
        }
        if (ev.done) controller.close();
        else controller.enqueue(encoder.encode(sseFrame(ev.value)));
      },
      cancel() {
        // The page went away: stop the provider, then let the turn finish (it keeps what was generated).
        abort.abort(new Error("client disconnected"));
        void (async () => {
          try {
            for (let r = await events.next(); !r.done; r = await events.next());
          } catch {
            /* logged by the turn */
          }
        })();
      },
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform: keeps the compression middleware from buffering the stream
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
        "x-memo-conversation": conversation.id,
      },
    });
  });
}
