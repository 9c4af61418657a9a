/**
 * Memo's MCP server (docs/architecture.md#apis-for-other-programs), on the official MCP TypeScript SDK: tools `remember`, `search_memory`,
 * `forget` over the memory service and `list_facts` over the facts service. Served over stdio (scripts/mcp-stdio.ts, `npm run mcp`) and over
 * streamable HTTP at /mcp (app/mcp/route.ts, stateless).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { forget, forgetPreview } from "../memory/lifecycle/forget";
import { search } from "../memory/retrieval/search";
import { remember } from "../memory/store/add";
import { DEFAULT_SPACE } from "../core/space-name";
import type { MemoContext } from "../core/context";
import { asServiceError } from "../core/errors";
import { isoDateTime, MAX_MEMORY_CHARS, MAX_QUERY_CHARS } from "../core/validators";
import { spaceName } from "../core/validators";
import { mySpace } from "../core/acting";
import { listFactsFor } from "../services/facts-service";

// The acting person's key for the space named (spaceName resolves it at parse time).
const space = spaceName.optional().describe(`Memory space (default "${DEFAULT_SPACE}")`);

function fail(e: unknown): CallToolResult {
  const se = asServiceError(e);
  if (!se) console.error("[mcp] tool failed", e);
  return {
    isError: true,
    content: [
      { type: "text", text: se ? se.message : `internal error: ${e instanceof Error ? e.message : String(e)}` },
    ],
  };
}

export function createMemoMcpServer(ctx: () => MemoContext): McpServer {
  const server = new McpServer(
    { name: "memo", title: "Memo memory", version: "0.1.0" },
    {
      instructions:
        "Memo is the user's long-term memory. Use search_memory to recall what the user said or stored before, " +
        "remember to store a durable fact the user wants kept (pinned), and forget when the user asks to forget something.",
    },
  );

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

  return server;
}
