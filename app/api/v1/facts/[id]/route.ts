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

/** DELETE /api/v1/facts/:id → { id, deleted: true } (forgotten with its history) */
export const DELETE = asPerson(async function DELETE(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!UUID.test(id)) return errorResponse(400, "id must be a fact id (UUID)");
  return handle(() => json(deleteFact(appContext(), id)));
});
