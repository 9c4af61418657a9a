import { formatImportHandler } from "@/server/http/import-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/import/<format>[?space=<target>][&wait=true][&filename=<label>], one format per entry of
 * server/services/import/formats.ts: `chatgpt` and `claude` take the export's conversations.json as the body →
 * 202 { job }: each exchange becomes a memory with its original time (default space personal); a
 * malformed conversation is listed in the job's `problems` and the others are imported.
 */
export const POST = asPerson(formatImportHandler());
