import { importHandler } from "@/server/http/import-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/import[?space=<target>][&wait=true][&filename=<label>] with a Memo export as the body →
 * 202 { job } (progress at GET /api/v1/import/jobs/<id>), or with wait=true 200 { job } when finished.
 * Memories already live in their space (same content) are skipped; the rest are embedded with the current model.
 */
export const POST = asPerson(importHandler("memo"));
