/**
 * Memo's MCP server (docs/architecture.md#apis-for-other-programs), on the official MCP TypeScript SDK: tools `remember`, `search_memory`,
 * `forget` over the memory service and `list_facts` over the facts service, one file each in server/mcp/tools/. Served over stdio
 * (scripts/mcp-stdio.ts, `npm run mcp`) and over streamable HTTP at /mcp (app/mcp/route.ts, stateless).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { MemoContext } from "../core/context";
import { registerForget } from "./tools/forget";
import { registerListFacts } from "./tools/list-facts";
import { registerRemember } from "./tools/remember";
import { registerSearchMemory } from "./tools/search-memory";

/** The tools, in the order clients list them. */
const TOOLS = [registerRemember, registerSearchMemory, registerForget, registerListFacts];

export function createMemoMcpServer(ctx: () => MemoContext): McpServer {
  const server = new McpServer(
    { name: "memo", title: "Memo memory", version: "0.1.0" },
    {
      instructions:
        "Memo is the user's long-term memory. Use search_memory to recall what the user said or stored before, " +
        "remember to store a durable fact the user wants kept (pinned), and forget when the user asks to forget something.",
    },
  );
  for (const register of TOOLS) register(server, ctx);
  return server;
}
