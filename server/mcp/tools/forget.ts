/** MCP tool `forget`: soft-delete the memories containing a pattern (or, with preview, list them), as /forget. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { MemoContext } from "../../core/context";
import { forget, forgetPreview } from "../../memory/lifecycle/forget";
import { DEFAULT_SPACE } from "../../core/space-name";
import { mySpace } from "../../core/acting";
import { fail, space } from "./tool-support";

export function registerForget(server: McpServer, ctx: () => MemoContext): void {
  server.registerTool(
    "forget",
    {
      title: "Forget",
      description:
        "Forget (soft-delete) every memory whose text contains the pattern (case-insensitive), like /forget in Memo's chat. " +
        "Restorable for 7 days from Memo's Memory Manager. Call with preview: true first to see what matches (nothing is deleted).",
      inputSchema: {
        pattern: z.string().min(2).max(1000).describe("Text the memories to forget contain (at least 2 characters)"),
        space,
        preview: z.boolean().optional().describe("true: only list the matching memories, delete nothing"),
      },
      outputSchema: {
        count: z.number(),
        items: z.array(
          z.object({ id: z.string(), content: z.string(), timestamp: z.string(), pinned: z.boolean().optional() }),
        ),
        undo_until: z.string().optional(),
        preview: z.boolean().optional(),
        message: z.string(),
      },
    },
    async ({ pattern, space: s, preview }) => {
      try {
        if (preview) {
          const p = forgetPreview(ctx(), pattern, s ?? mySpace(DEFAULT_SPACE));
          const text = p.count
            ? `${p.message}\n${p.items.map((i) => `- ${i.pinned ? "[pinned] " : ""}${i.content.slice(0, 200)}`).join("\n")}`
            : p.message;
          const items = p.items.map((i) => ({
            id: i.id,
            content: i.content,
            timestamp: i.timestamp,
            pinned: i.pinned,
          }));
          return {
            content: [{ type: "text", text }],
            structuredContent: { count: p.count, items, preview: true, message: p.message },
          };
        }
        const r = forget(ctx(), pattern, s ?? mySpace(DEFAULT_SPACE));
        const text = r.count
          ? `${r.message}\n${r.items.map((i) => `- ${i.content.slice(0, 200)}`).join("\n")}`
          : r.message;
        return {
          content: [{ type: "text", text }],
          structuredContent: { count: r.count, items: r.items, undo_until: r.undo.until, message: r.message },
        };
      } catch (e) {
        return fail(e);
      }
    },
  );
}
