/**
 * Stage 1 of retrieval (docs/retrieval.md#hybrid-search): the legs FIND candidates — each query's nearest
 * vectors (the turn's vectors in one batched index call) and its best keyword matches, and the main query's
 * matches among the space's facts lifted to their source memories (fact-keys.ts). Scoring is the union's.
 */
import type Database from "better-sqlite3";
import { keywordSearchScored, type ScoredKeywordHits } from "./keyword-search";
import type { RetrievalQuery } from "./query-builder";
import type { RetrievalSettings } from "./settings";
import { vectorSearchManyWithSource, type VectorSource } from "./vector-search";
import type { StageTimer } from "./stages";
import { factKeys, NO_FACT_KEYS, type FactKeys } from "./fact-keys";

export type Found = Map<number, { vectorRank: number | null; ftsRank: number | null; factRank?: number | null }>;

export interface Candidates {
  found: Found;
  /** Each query's keyword scores (every match's bm25) with its weight. */
  matches: { scores: Map<number, number>; weight: number }[];
  /** Each query's vector with its weight. */
  dense: { vector: Float32Array; weight: number }[];
  /** The main query's keyword terms (with idf), bm25 ceiling and known share: what the confidence reads. */
  main: Pick<ScoredKeywordHits, "terms" | "ceiling" | "known">;
  /** The space's facts as keys of their memories (NO_FACT_KEYS without facts, or with both fact weights 0). */
  facts: FactKeys;
  /** The space's facts scored for the main query, for the facts leg (fact-leg.ts), whatever the weights. */
  scoredFacts: FactKeys;
  vectorSource: VectorSource | null;
  vectorMs: number;
  keywordMs: number;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export function findCandidates(
  db: Database.Database,
  space: { spaceId: string; model: string },
  settings: RetrievalSettings,
  queries: RetrievalQuery[],
  vectors: Float32Array[],
  pool: number,
  timer?: StageTimer,
): Candidates {
  const found: Found = new Map();
  const find = (rid: number, leg: "vectorRank" | "ftsRank", rank: number) => {
    const f = found.get(rid) ?? { vectorRank: null, ftsRank: null };
    if (f[leg] === null || f[leg]! > rank) f[leg] = rank;
    found.set(rid, f);
  };
  const out: Candidates = {
    found,
    matches: [],
    dense: [],
    main: { terms: [], ceiling: 0, known: 0 },
    facts: NO_FACT_KEYS,
    scoredFacts: NO_FACT_KEYS,
    vectorSource: null,
    vectorMs: 0,
    keywordMs: 0,
  };
  let t = process.hrtime.bigint();
  const searched =
    settings.weights.vector > 0 && vectors.length > 0
      ? vectorSearchManyWithSource(db, space.spaceId, vectors.slice(0, queries.length), pool)
      : null;
  out.vectorMs += ms(t);
  queries.forEach((q, i) => {
    const roleWeight = q.role === "anchor" ? settings.weights.anchor : 1;
    t = process.hrtime.bigint();
    if (searched && vectors[i]) {
      out.vectorSource = searched.source;
      searched.hits[i]!.forEach((h, r) => find(h.rid, "vectorRank", r + 1));
      out.dense.push({ vector: vectors[i]!, weight: settings.weights.vector * roleWeight });
    }
    timer?.mark("vector");
    out.vectorMs += ms(t);
    t = process.hrtime.bigint();
    if (settings.weights.fts > 0) {
      const scored = keywordSearchScored(db, space.spaceId, q.text, pool, settings);
      if (q.role === "main") out.main = scored;
      scored.hits.forEach((h, r) => find(h.rid, "ftsRank", r + 1));
      if (scored.match) out.matches.push({ scores: scored.scores, weight: settings.weights.fts * roleWeight });
    }
    timer?.mark("keyword");
    out.keywordMs += ms(t);
  });
  // Facts as extra keys (fact-keys.ts): the main query's matches among the space's facts, lifted to their
  // source memories, which join the union. The facts leg (fact-leg.ts) reads the same scores.
  const mainQuery = queries.find((q) => q.role === "main") ?? queries[0];
  const asKeys = settings.weights.factVector > 0 || settings.weights.factFts > 0;
  const scored =
    mainQuery && (asKeys || settings.factMinConfidence < 1)
      ? factKeys(
          db,
          space.spaceId,
          { text: mainQuery.text, vector: vectors[0] ?? null, model: space.model },
          pool,
          settings,
        )
      : NO_FACT_KEYS;
  out.scoredFacts = scored;
  out.facts = asKeys ? scored : NO_FACT_KEYS;
  for (const [rid, rank] of out.facts.found) {
    const f = found.get(rid) ?? { vectorRank: null, ftsRank: null };
    found.set(rid, { ...f, factRank: Math.min(f.factRank ?? rank, rank) });
  }
  timer?.mark("facts");
  return out;
}
