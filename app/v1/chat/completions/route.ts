import {
  completeNonStreaming,
  completeStreaming,
  OpenAIHttpError,
  openAIErrorResponse,
  prepareCompletion,
  readCompletionRequest,
} from "@/server/http/openai-compat";
import { beginRequest, closing, CLOSING_MESSAGE, trackBody } from "@/server/ops/inflight";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /v1/chat/completions — OpenAI-compatible, with memory. Memories recalled for the last user message
 * go into the system prompt; the request is forwarded to the configured provider; the exchange is
 * persisted. Space: header `x-memo-space` or body field `memo_space` (default "personal").
 * Model: "memo", "<provider>:<model>", or a model name for the selected provider. Errors use OpenAI's shape.
 * A client that disconnects cancels the provider request; a streamed reply cut short is persisted with
 * what was sent, marked as interrupted (server/http/openai-compat.ts). A graceful shutdown does the same
 * after its grace period.
 */
export const POST = asPerson(async function POST(req: Request) {
  const inflight = beginRequest();
  try {
    const body = await readCompletionRequest(req);
    if (closing()) throw new OpenAIHttpError(503, CLOSING_MESSAGE, "server_error", "shutting_down");
    const memo = appContext();
    const prepared = await prepareCompletion(memo, req, body);
    const signal = AbortSignal.any([req.signal, inflight.signal]);
    if (body.stream) return trackBody(await completeStreaming(memo, prepared, body, signal), inflight.end);
    const res = await completeNonStreaming(memo, prepared, signal);
    inflight.end();
    return res;
  } catch (e) {
    inflight.end();
    return openAIErrorResponse(e);
  }
});
