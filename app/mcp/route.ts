import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMemoMcpServer } from "@/server/mcp/server";
import { appContext } from "@/server/context";
import { checkJsonBody, isRejection, withBody } from "@/server/http/guard";
import { MAX_JSON_BYTES } from "@/server/http/rest";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * MCP over streamable HTTP, stateless: each POST gets a fresh server and transport (no session id), so any
 * number of clients can call remember / search_memory / forget. JSON responses, no server-initiated streams.
 */
export const POST = asPerson(async function POST(rawReq: Request) {
  // Raw-input checks first (the SDK would decode invalid UTF-8 as U+FFFD and has no size cap): 2 MB,
  // strict UTF-8, no NUL in any string. Answered as JSON-RPC errors with a 4xx status.
  const checked = await checkJsonBody(rawReq, MAX_JSON_BYTES);
  if (isRejection(checked)) {
    return Response.json(
      { jsonrpc: "2.0", error: { code: checked.status === 413 ? -32600 : -32700, message: checked.message }, id: null },
      { status: checked.status },
    );
  }
  if (/^\s*\[\s*\]\s*$/.test(checked.text)) {
    return Response.json(
      { jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: an empty JSON-RPC batch" }, id: null },
      { status: 400 },
    );
  }
  const req = withBody(rawReq, checked.text);
  const server = createMemoMcpServer(() => appContext());
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    // JSON mode answers in full before handleRequest resolves: nothing is left to stream.
    void transport.close().then(() => server.close());
  }
});

const notAllowed = () =>
  Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST." },
      id: null,
    },
    { status: 405, headers: { allow: "POST" } },
  );

export { notAllowed as GET, notAllowed as DELETE };
