import { errorResponse, handle } from "@/server/http/rest";
import { appContext } from "@/server/context";
import { spaceName } from "@/server/core/validators";
import { exportFileName, exportMemories } from "@/server/services/transfer-service";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/export[?space=<name>] → a versioned JSON file of the space's (or every space's) live memories, no vectors. */
export const GET = asPerson(function GET(req: Request) {
  return handle(() => {
    const raw = new URL(req.url).searchParams.get("space");
    let space: string | null = null;
    if (raw !== null && raw !== "") {
      if (!spaceName.safeParse(raw).success)
        return errorResponse(400, "space must be 1–64 letters, digits, '-' or '_'");
      space = raw;
    }
    const now = new Date();
    const file = exportMemories(appContext().db, space, now);
    return new Response(JSON.stringify(file, null, 1), {
      status: 200,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${exportFileName(space, now)}"`,
        "cache-control": "no-store",
      },
    });
  });
});
