import { deleteChat } from "@/server/chat/delete-chat";
import { errorResponse, handle, json } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * DELETE /api/v1/conversations/:id[?forget=true|false] → { id, messages, forgotten: { count, undo: { ids, until } } | null, message }
 * Deletes the conversation and its messages. `forget` (default true, as the chat page's dialog) also
 * forgets the memories its exchanges became: soft-deleted, restorable for 7 days with
 * POST /api/v1/memories/restore { ids: undo.ids }. `forget=false` keeps them recallable.
 */
export const DELETE = asPerson(async function DELETE(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a conversation id (UUID)");
  const raw = new URL(req.url).searchParams.get("forget");
  if (raw !== null && raw !== "true" && raw !== "false")
    return errorResponse(400, "forget must be true or false (default true: the chat's memories are forgotten too)");
  return handle(() => json(deleteChat(appContext(), id, { forget: raw !== "false" })));
});
