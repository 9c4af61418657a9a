import { errorResponse, formatZod, handle, json, readBody } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { addFactsInput, importFacts, listFactsFor, listFactsInput } from "@/server/services/facts-service";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const FLAGS: Record<string, boolean> = { "1": true, true: true, "0": false, false: false };

/**
 * GET /api/v1/facts[?space=&q=&history=1&limit=&cursor=] → { facts: [{ id, text, space, validFrom, recordedAt,
 * validTo, supersededBy, sources, origin, confirmedAt, whose? }], nextCursor } — current facts (with history=1
 * the replaced ones too), of one space or of all the person's own, a page at a time (cursor = the nextCursor
 * of the page before); q: those matching by keyword or meaning, best first (one page).
 */
export const GET = asPerson(function GET(req: Request) {
  return handle(async () => {
    const p = new URL(req.url).searchParams;
    const history = p.get("history");
    if (history !== null && !(history in FLAGS)) return errorResponse(400, "history must be 1 or 0");
    const limit = p.get("limit");
    const parsed = listFactsInput.safeParse({
      space: p.get("space") || undefined,
      q: p.get("q") ?? undefined,
      history: history === null ? undefined : FLAGS[history],
      limit: limit === null ? undefined : Number(limit),
      cursor: p.get("cursor") ?? undefined,
    });
    if (!parsed.success) return errorResponse(400, formatZod(parsed.error));
    return json(await listFactsFor(appContext(), parsed.data));
  });
});

/**
 * POST /api/v1/facts { space?, items: [{ text, sources: [memoryId], validFrom?, replaces?: [factId] }] } →
 * 201 { ids } (origin "import"; all items in one transaction, none written when one is bad)
 */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, addFactsInput);
    return json(await importFacts(appContext(), input), 201);
  });
});
