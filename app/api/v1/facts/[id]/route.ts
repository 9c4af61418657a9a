import { z } from "zod";
import { errorResponse, handle, json, readBody } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { deleteFact, editFact, factText } from "@/server/services/facts-service";
import { isoDateTime } from "@/server/core/validators";
import { UUID_RE as UUID } from "@/server/core/space-name";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const patchInput = z.strictObject({ text: factText, validFrom: isoDateTime("validFrom").optional() });

/**
 * PATCH /api/v1/facts/:id { text, validFrom? } → 201 with the new version (it replaces the fact, which is kept
 * as history), or 200 with the fact unchanged when the text (and date) are what they were
 */
export const PATCH = asPerson(async function PATCH(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a fact id (UUID)");
  return handle(async () => {
    const input = await readBody(req, patchInput);
    const r = await editFact(appContext(), id, input.text, input.validFrom);
    return json(r.fact, r.created ? 201 : 200);
  });
});

/**
 * DELETE /api/v1/facts/:id → { id, deleted: true } (forgotten with its history). `?sources=forget` (issue 54)
 * also forgets, undoably, the memories it came from: → { id, deleted: true, sourcesForgotten: [memory ids],
 * factsForgotten: [{ id, text }] } (other facts that had no other live source). `?sources=keep` is the default.
 */
export const DELETE = asPerson(async function DELETE(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a fact id (UUID)");
  const sources = new URL(req.url).searchParams.get("sources");
  if (sources !== null && sources !== "keep" && sources !== "forget")
    return errorResponse(400, "sources must be keep or forget");
  return handle(() => json(deleteFact(appContext(), id, { forgetSources: sources === "forget" })));
});
