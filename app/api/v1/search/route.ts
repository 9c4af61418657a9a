import { handle, json, readBody } from "@/server/http/rest";
import { searchInput } from "@/server/core/validators";
import { search } from "@/server/memory/retrieval/search";
import { appContext } from "@/server/context";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST /api/v1/search { query, space?, k?, context?, tzOffsetMinutes?, at?, options? } →
 * { results: [{ id, content, timestamp, matchType, importance, scores: { similarity, ftsRank, rrf, confidence, … }, moves, signals }],
 *   facts: [{ id, text, validFrom, validTo, current }], queries, dense, minConfidence, time, timings } — a chat turn packs the first topN of the first 10 results
 *   (k = 10) with scores.confidence ≥ minConfidence; every k up to 10 gets the first k of that one ranking
 *   (docs/retrieval.md#hybrid-search); `dense` is what the vector leg embedded for each query
 *   (docs/retrieval.md#the-dense-query). `options` overrides settings for this query only: Debug Search's
 *   pipeline options, the memory techniques and the minimum confidence (docs/retrieval.md#memory-techniques).
 */
export const POST = asPerson(function POST(req: Request) {
  return handle(async () => {
    const input = await readBody(req, searchInput);
    const r = await search(appContext(), input);
    return json({
      results: r.results,
      dropped: r.dropped,
      // The current facts that matched (a result found through a fact says so in its `via`).
      facts: r.facts.filter((f) => f.current),
      queries: r.queries,
      dense: r.dense ?? [],
      minConfidence: r.minConfidence,
      time: r.time,
      timings: r.timings,
      model: r.model,
      ...(r.notice ? { notice: r.notice } : {}),
    });
  });
});
