/** MCP tool `remember`: a pinned memory, as /remember in the chat (the memory store's `remember`). */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { MemoContext } from "../../core/context";
import { remember } from "../../memory/store/add";
import { DEFAULT_SPACE } from "../../core/space-name";
import { MAX_MEMORY_CHARS } from "../../core/validators";
import { mySpace } from "../../core/acting";
import { fail, space } from "./tool-support";

export function registerRemember(server: McpServer, ctx: () => MemoContext): void {
  server.registerTool(
    "remember",
    {
      title: "Remember",
      description: "Store a pinned memory (importance 5, never decays), like typing /remember in Memo's chat.",
      inputSchema: {
        text: z.string().min(1).max(MAX_MEMORY_CHARS).describe("What to remember"),
        space,
      },
      outputSchema: { ids: z.array(z.string()), message: z.string(), space: z.string() },
    },
    async ({ text, space: s }) => {
      try {
        const sp = s ?? mySpace(DEFAULT_SPACE);
        const r = await remember(ctx(), text, sp);
        return {
          content: [{ type: "text", text: r.message }],
          structuredContent: { ids: r.ids, message: r.message, space: sp },
        };
      } catch (e) {
        return fail(e);
      }
    },
  );
}
