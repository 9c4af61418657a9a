/** What Memo's MCP tools share: the `space` argument and how a failed call is answered. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_SPACE } from "../../core/space-name";
import { asServiceError } from "../../core/errors";
import { spaceName } from "../../core/validators";

// The acting person's key for the space named (spaceName resolves it at parse time).
export const space = spaceName.optional().describe(`Memory space (default "${DEFAULT_SPACE}")`);

/** A tool's error answer: a service error's message as it is, anything else logged and named internal. */
export function fail(e: unknown): CallToolResult {
  const se = asServiceError(e);
  if (!se) console.error("[mcp] tool failed", e);
  return {
    isError: true,
    content: [
      { type: "text", text: se ? se.message : `internal error: ${e instanceof Error ? e.message : String(e)}` },
    ],
  };
}
