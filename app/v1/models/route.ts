import { listModels, openAIErrorResponse } from "@/server/http/openai-compat";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /v1/models — "memo" (the selected provider) and "<provider>:<model>" for each configured provider. */
export const GET = asPerson(function GET(_req: Request) {
  try {
    return Response.json(listModels(appContext().db));
  } catch (e) {
    return openAIErrorResponse(e);
  }
});
