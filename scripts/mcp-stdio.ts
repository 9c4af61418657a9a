/**
 * Memo's MCP server over stdio (`npm run mcp`): tools remember, search_memory and forget on the same
 * store as the app (MEMO_DATA_DIR), with its own supervised embedding server. For MCP clients such as
 * Claude Desktop: { "command": "npm", "args": ["run", "--silent", "mcp"], "cwd": "/path/to/memo" }.
 *
 * stdout carries the protocol only: every log line goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

console.log = console.info = (...args: unknown[]) => console.error(...args);
// The app process keeps the in-memory vector index files; this process reads vec0 directly.
process.env.MEMO_ANN ??= "off";

const { createMemoMcpServer } = await import("../server/mcp/server");
const { appContext } = await import("../server/context");

const server = createMemoMcpServer(() => appContext());
const transport = new StdioServerTransport();
let closing = false;
const shutdown = async (code = 0) => {
  if (closing) return;
  closing = true;
  await server.close().catch(() => undefined);
  // Stop the embedding server only if a tool call started one.
  const started = (globalThis as { __memoEmbedder?: { stop(): Promise<void> } }).__memoEmbedder;
  await started?.stop().catch(() => undefined);
  process.exit(code);
};
transport.onclose = () => void shutdown(0);
process.stdin.on("end", () => void shutdown(0));
process.once("SIGINT", () => void shutdown(0));
process.once("SIGTERM", () => void shutdown(0));
await server.connect(transport);
console.error("[mcp] Memo MCP server ready on stdio (tools: remember, search_memory, forget)");
