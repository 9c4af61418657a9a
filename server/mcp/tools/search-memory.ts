/** MCP tool `search_memory`: the hybrid search, its results counted as recalled (promoted). */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { MemoContext } from "../../core/context";
import { search } from "../../memory/retrieval/search";
import { DEFAULT_SPACE } from "../../core/space-name";
import { isoDateTime, MAX_QUERY_CHARS } from "../../core/validators";
import { mySpace } from "../../core/acting";
import { fail, space } from "./tool-support";

export function registerSearchMemory(server: McpServer, ctx: () => MemoContext): void {
  server.registerTool(
    "search_memory",
    {
      title: "Search memory",
      description:
        "Hybrid (meaning + keyword) search over the user's memories. Returns the best matches with date, match type " +
        "(vector, fts or hybrid), importance and score. Results count as recalled (their importance is promoted).",
      inputSchema: {
        query: z.string().min(1).max(MAX_QUERY_CHARS).describe("What to look for"),
        space,
        k: z.number().int().min(1).max(50).optional().describe("How many results (default 6)"),
        at: isoDateTime("at")
          .optional()
          .describe(
            'The conversation\'s date (ISO 8601) that "last week", "in May" and "recently" resolve against (default now)',
          ),
      },
      outputSchema: {
        results: z.array(
          z.object({
            id: z.string(),
            content: z.string(),
            timestamp: z.string(),
            kind: z.string(),
            match_type: z.enum(["vector", "fts", "hybrid", "neighbour"]),
            importance: z.number(),
            score: z.number(),
            similarity: z.number().nullable(),
          }),
        ),
        space: z.string(),
      },
    },
    async ({ query, space: s, k, at }) => {
      try {
        const sp = s ?? mySpace(DEFAULT_SPACE);
        const r = await search(ctx(), { query, space: sp, k, at, promote: true });
        const results = r.results.map((m) => ({
          id: m.id,
          content: m.content,
          timestamp: m.timestamp,
          kind: m.kind,
          match_type: m.matchType,
          importance: m.importance,
          score: m.scores.final,
          similarity: m.scores.similarity,
        }));
        const text = results.length
          ? results
              .map(
                (m, i) =>
                  `${i + 1}. ${m.timestamp.slice(0, 10)} [${m.match_type}, importance ${m.importance}] ${m.content}`,
              )
              .join("\n")
          : "No memory matched.";
        return { content: [{ type: "text", text }], structuredContent: { results, space: sp } };
      } catch (e) {
        return fail(e);
      }
    },
  );
}
