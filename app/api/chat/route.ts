import { z } from "zod";
import { sseFrame } from "@/server/chat/sse";
import { prepareTurn, runTurn, type TurnEvent } from "@/server/chat/turn";
import { registerTurn, TurnControl } from "@/server/chat/turn-control";
import { PROVIDER_IDS } from "@/server/chat/providers";
import type { Replacement } from "@/server/chat/replace";
import { handle, readBody } from "@/server/http/rest";
import { beginRequest, closing, CLOSING_MESSAGE } from "@/server/ops/inflight";
import { appContext } from "@/server/context";
import { ServiceError } from "@/server/core/errors";
import { sharedSpaceName, spaceName, tzOffsetMinutes } from "@/server/core/validators";
import { asPerson } from "@/server/http/person";
import { markSharesSeen } from "@/server/services/share-notices";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const chatInput = z.strictObject({
  conversationId: z.string().uuid("conversationId must be a conversation id").optional(),
  space: spaceName.optional(),
  message: z.string(),
  provider: z.enum(PROVIDER_IDS).optional(),
  model: z.string().trim().min(1).max(200).optional(),
  /** Answer the last user message again, replacing the replies after it (Regenerate, Retry). */
  regenerate: z.literal(true).optional(),
  /** Replace this user message and everything after it by `message` (Edit). */
  editMessageId: z.string().uuid("editMessageId must be a message id").optional(),
  /** Start a temporary chat: it may read memory (Settings) but never writes any, and is deleted when its page closes or after 24 h. */
  temporary: z.boolean().optional(),
  /** The person's time zone, minutes east of UTC, for calendar days in memory recall; default the server's. */
  tzOffsetMinutes: tzOffsetMinutes.optional(),
  /** The page's id for this turn: POST /api/chat/stop { turnId } stops it. */
  turnId: z.string().uuid("turnId must be a UUID").optional(),
  /** A new conversation only: spaces shared with the person ('<owner id>~<name>') that its recall also reads. */
  sharedSpaces: z.array(sharedSpaceName).max(20, "at most 20 added spaces").optional(),
});

function replacement(input: z.infer<typeof chatInput>): Replacement | undefined {
  if (input.regenerate && input.editMessageId)
    throw new ServiceError(400, "regenerate and editMessageId cannot be combined");
  if ((input.regenerate || input.editMessageId) && !input.conversationId)
    throw new ServiceError(400, "regenerate and editMessageId need a conversationId");
  if (input.regenerate) return { type: "regenerate" };
  if (input.editMessageId) return { type: "edit", messageId: input.editMessageId };
  return undefined;
}

/**
 * POST /api/chat { conversationId?, space?, message, provider?, model?, regenerate?, editMessageId?, temporary?, tzOffsetMinutes?, turnId?, sharedSpaces? } → text/event-stream
 * One JSON object per event (TurnEvent): start, recall, provider, sent, delta…, then done | command | stopped | error;
 * or only `consent` when a remote provider would get memories and the owner has not decided yet
 * (nothing was stored, and a conversation this message would have started is deleted again; save a
 * choice with privacy.setSharing and send the same request again).
 * Bad input (empty message, unknown conversation) is a JSON 4xx before any event.
 * Stop is POST /api/chat/stop { turnId, shown } (app/api/chat/stop/route.ts): the provider request ends at
 * once and the reply is stored as the page showed it, then a `stopped` event carries it. Closing the
 * connection (a reload) stops the provider request too; what was sent is kept, marked "interrupted by
 * reload" (server/chat/cut-short.ts). A graceful shutdown does the same after its grace period.
 */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, chatInput);
    const memo = appContext();
    // Checked once (turn-input.ts): the message, Memo not closing, what it replaces, its conversation — every
    // 4xx before any event; runTurn takes the prepared turn as it is.
    const turn = prepareTurn(
      memo,
      {
        conversationId: input.conversationId,
        space: input.space,
        message: input.message,
        provider: input.provider,
        model: input.model,
        temporary: input.temporary,
        tzOffsetMinutes: input.tzOffsetMinutes,
        sharedSpaces: input.sharedSpaces,
      },
      () => {
        if (closing()) throw new ServiceError(503, CLOSING_MESSAGE);
        return replacement(input);
      },
    );
    const conversation = turn.conv;
    if (!input.conversationId && input.sharedSpaces) markSharesSeen(memo.db, input.sharedSpaces);
    const control = new TurnControl();
    const unregister = input.turnId ? registerTurn(input.turnId, control) : () => undefined;
    const inflight = beginRequest();
    const end = () => (unregister(), inflight.end());
    // The client went away (Next aborts the request's signal, and cancels the body below), or Memo is stopping.
    req.signal.addEventListener("abort", () => control.cut("reload"), { once: true });
    inflight.signal.addEventListener("abort", () => control.cut("shutdown"), { once: true });
    const events = runTurn({ memo, control }, turn)[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let ev: IteratorResult<TurnEvent>;
        try {
          ev = await events.next();
        } catch (e) {
          console.error("[chat] turn failed", e);
          controller.enqueue(
            encoder.encode(
              sseFrame({
                type: "error",
                kind: "internal",
                status: 500,
                message: "The turn failed unexpectedly; see the server log.",
                partial: null,
              }),
            ),
          );
          controller.close();
          end();
          return;
        }
        if (ev.done) {
          controller.close();
          end();
        } else controller.enqueue(encoder.encode(sseFrame(ev.value)));
      },
      cancel() {
        // The page went away: stop the provider, then let the turn finish (it keeps what was generated).
        control.cut("reload");
        void (async () => {
          try {
            for (let r = await events.next(); !r.done; r = await events.next());
          } catch {
            /* logged by the turn */
          } finally {
            end();
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
});
