import type { RetrievalSettings } from "./settings";

export type QueryBuildOptions = Pick<RetrievalSettings, "contextMessages" | "anchorQuery">;

export interface RetrievalQuery {
  /** "main" is message + context; "anchor" is the message's first 5 words. */
  role: "main" | "anchor";
  text: string;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/**
 * The retrieval queries for a user message (docs/retrieval.md#query-building): the message plus the last N earlier user
 * messages, so "what did we say about that?" finds something; and for a message of more than 7 words,
 * its first 5 words as a topic anchor.
 */
export function buildQueries(
  message: string,
  previousUserMessages: string[],
  opts: QueryBuildOptions,
): RetrievalQuery[] {
  const msg = message.trim();
  const context =
    opts.contextMessages > 0
      ? previousUserMessages
          .slice(-opts.contextMessages)
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  const queries: RetrievalQuery[] = [{ role: "main", text: [...context, msg].join("\n") }];
  const w = words(msg);
  if (opts.anchorQuery && w.length > 7) queries.push({ role: "anchor", text: w.slice(0, 5).join(" ") });
  return queries;
}

/**
 * A search returns the first k of a ranking RANK_DEPTH deep (or k, when larger): the pool sets the fused
 * order, and ranking only k deep gave the chat (k = 6) a worse top 6 than Debug Search's (k = 10).
 */
export const RANK_DEPTH = 10;
export const rankDepth = (k: number) => Math.max(k, RANK_DEPTH);

/** Candidate pool per leg, topK the ranking depth: a deeper pool finds more (docs/retrieval.md#the-core). */
export function candidatePool(topK: number): number {
  return Math.min(Math.max(topK * 10, 20), 100);
}
