import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { badTextMessage, checkJsonBody, findBadText, isRejection, withBody } from "@/server/http/guard";
import { MAX_JSON_BYTES } from "@/server/http/rest";
import { TRPC_CODE_BY_STATUS } from "@/server/core/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A tRPC-shaped error for input refused before tRPC parses it. */
function refuse(status: 400 | 413, message: string): Response {
  const code = TRPC_CODE_BY_STATUS[status];
  return Response.json({ error: { message, code: -32600, data: { code, httpStatus: status } } }, { status });
}

/**
 * Raw-input checks before tRPC (which would decode invalid UTF-8 as U+FFFD and has no size cap here):
 * bodies capped at 2 MB, strict UTF-8, and no NUL character or lone surrogate in any string, in the body or
 * the GET `input`.
 */
const handler = async (rawReq: Request) => {
  let req = rawReq;
  const input = new URL(req.url).searchParams.get("input");
  if (input !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      parsed = undefined; // tRPC answers malformed input itself
    }
    const bad =
      findBadText(parsed) ??
      (input.includes("\u0000") && parsed === undefined ? { path: [], problem: "nul" as const } : null);
    if (bad) return refuse(400, badTextMessage(bad));
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    const checked = await checkJsonBody(req, MAX_JSON_BYTES);
    if (isRejection(checked)) return refuse(checked.status, checked.message);
    req = withBody(req, checked.text);
  }
  return trpcHandler(req);
};

const trpcHandler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createTRPCContext({ headers: req.headers }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path}:`, error);
    },
  });

export { handler as GET, handler as POST };
