import type { MatchType } from "./fuse";

export interface PackItem {
  content: string;
  timestamp: string;
  matchType: MatchType;
  importance: number;
}

/** A cheap token estimate (≈4 characters per token for English); the budget is a guard, not a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function entry(m: PackItem, content: string): string {
  const date = m.timestamp.slice(0, 10);
  const body = content.trim().replace(/\s*\n\s*/g, "\n  ");
  return `- ${date}: ${body}\n  (match: ${m.matchType}, importance: ${m.importance})`;
}

/**
 * The [Relevant Memories] block for the system prompt (SPEC §1.6): at most topN memories, best first,
 * within a token budget. A memory that does not fit is skipped; if even the first does not, it is cut.
 * Returns the block ("" when nothing was recalled) and how many memories it holds.
 */
export function packMemories(items: PackItem[], topN: number, tokenBudget: number): { block: string; used: number } {
  const header = "[Relevant Memories]";
  let tokens = estimateTokens(header);
  const lines: string[] = [];
  for (const m of items.slice(0, topN)) {
    let e = entry(m, m.content);
    let t = estimateTokens(e) + 1;
    if (tokens + t > tokenBudget) {
      if (lines.length > 0) continue;
      const room = Math.max(0, (tokenBudget - tokens - estimateTokens(entry(m, "")) - 2) * 4);
      if (room < 40) break;
      e = entry(m, m.content.slice(0, room) + "…");
      t = estimateTokens(e) + 1;
    }
    lines.push(e);
    tokens += t;
  }
  return lines.length ? { block: [header, ...lines].join("\n"), used: lines.length } : { block: "", used: 0 };
}
