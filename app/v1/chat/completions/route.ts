import { completeNonStreaming, completeStreaming, openAIErrorResponse, prepareCompletion, readCompletionRequest } from "@/server/chat/openai-compat";
import { appContext } from "@/server/services/memory-service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /v1/chat/completions — OpenAI-compatible, with memory. Memories recalled for the last user message
 * go into the system prompt; the request is forwarded to the configured provider; the exchange is
 * persisted. Space: header `x-memo-space` or body field `memo_space` (default "personal").
 * Model: "memo", "<provider>:<model>", or a model name for the selected provider. Errors use OpenAI's shape.
 */
export async function POST(req: Request) {
  try {
    const body = await readCompletionRequest(req);
    const memo = appContext();
    const prepared = await prepareCompletion(memo, req, body);
    return body.stream ? await completeStreaming(memo, prepared, body, req.signal) : await completeNonStreaming(memo, prepared, req.signal);
  } catch (e) {
    return openAIErrorResponse(e);
  }
}
