export interface QueryBuildOptions {
  /** How many earlier user messages join the main query (3; docs/retrieval.md). */
  contextMessages: number;
  /** Add the topic-anchor query (first 5 words) when the message has more than 7 words. */
  anchorQuery: boolean;
}

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
 * The depth a search ranks at: it returns the first k of a ranking RANK_DEPTH deep (or k deep, when k is
 * larger). The pool sets each leg's list and with it the fused order (min-max normalisation, which
 * candidates both legs find), so a search ranking only as deep as the k it was asked for gave the chat
 * (k = 6, pool 30) another top 6 than Debug Search and the eval (k = 10, pool 50) on 143 of the eval's
 * 237 tuning turns, and a worse one (recall@6 0.778 against 0.801): docs/retrieval.md#hybrid-search.
 */
export const RANK_DEPTH = 10;
export const rankDepth = (k: number) => Math.max(k, RANK_DEPTH);

/**
 * Candidate pool per leg (docs/retrieval.md#the-core): min(max(topK*10, 20), 100), topK the ranking
 * depth. The legs only find candidates; the union is scored on every signal, so a deeper pool finds
 * more: on LoCoMo's tuning half 25 → 0.791, 50 → 0.795, 100 → 0.803, 200 → 0.804 recall@10.
 */
export function candidatePool(topK: number): number {
  return Math.min(Math.max(topK * 10, 20), 100);
}
