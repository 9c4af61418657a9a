/** MCP tool `list_facts`: what Memo knows (the facts service), current facts or their history. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { MemoContext } from "../../core/context";
import { MAX_QUERY_CHARS, spaceName } from "../../core/validators";
import { listFactsFor } from "../../services/facts-service";
import { fail } from "./tool-support";

export function registerListFacts(server: McpServer, ctx: () => MemoContext): void {
  server.registerTool(
    "list_facts",
    {
      title: "List facts",
      description:
        "What Memo knows about the user: short statements learned from their conversations and documents, each with " +
        "when it became true (valid_from) and, for a replaced one, until when it held (valid_to). Current facts only " +
        "unless history is true; q keeps those that match by keyword or meaning, best first.",
      inputSchema: {
        space: spaceName.optional().describe("Memory space (default: all of the user's own spaces)"),
        q: z.string().min(1).max(MAX_QUERY_CHARS).optional().describe("Only facts about this"),
        history: z.boolean().optional().describe("Include replaced facts (with their dates)"),
        limit: z.number().int().min(1).max(200).optional().describe("How many facts at most (default 50)"),
      },
      outputSchema: {
        facts: z.array(
          z.object({
            id: z.string(),
            text: z.string(),
            space: z.string(),
            valid_from: z.string(),
            valid_to: z.string().nullable(),
            superseded_by: z.string().nullable(),
            sources: z.array(z.string()),
            origin: z.string(),
          }),
        ),
      },
    },
    async ({ space: s, q, history, limit }) => {
      try {
        const r = await listFactsFor(ctx(), { space: s, q, history, limit: limit ?? 50 });
        const facts = r.facts.map((f) => ({
          id: f.id,
          text: f.text,
          space: f.space,
          valid_from: f.validFrom,
          valid_to: f.validTo,
          superseded_by: f.supersededBy,
          sources: f.sources,
          origin: f.origin,
        }));
        const text = facts.length
          ? facts
              .map(
                (f) =>
                  `- ${f.text} (since ${f.valid_from.slice(0, 10)}${f.valid_to ? `, until ${f.valid_to.slice(0, 10)}` : ""})`,
              )
              .join("\n")
          : "Memo knows no fact that matches.";
        return { content: [{ type: "text", text }], structuredContent: { facts } };
      } catch (e) {
        return fail(e);
      }
    },
  );
}
