import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMemoMcpServer } from "@/server/mcp/server";
import { appContext } from "@/server/services/memory-service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * MCP over streamable HTTP, stateless: each POST gets a fresh server and transport (no session id), so any
 * number of clients can call remember / search_memory / forget. JSON responses, no server-initiated streams.
 */
export async function POST(req: Request) {
  const server = createMemoMcpServer(() => appContext());
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    // JSON mode answers in full before handleRequest resolves: nothing is left to stream.
    void transport.close().then(() => server.close());
  }
}

const notAllowed = () =>
  Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST." }, id: null },
    { status: 405, headers: { allow: "POST" } },
  );

export { notAllowed as GET, notAllowed as DELETE };
