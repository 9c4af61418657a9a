import { importHandler } from "@/server/http/import-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/import/chatgpt[?space=<target>][&wait=true] with a ChatGPT export's conversations.json as the
 * body → 202 { job }: each user/assistant exchange becomes a chat memory with its original time (default space personal).
 */
export const POST = asPerson(importHandler("chatgpt"));
