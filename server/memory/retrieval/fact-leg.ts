/**
 * The facts leg (issue 47, docs/retrieval.md#the-facts-leg): the space's current facts searched with the
 * question directly — both legs (fact-keys.ts scores every fact: bm25 over the space's fact table, cosine
 * of its vector) — and kept on their own evidence, at their own calibrated confidence, not only through a
 * packed memory. A new store's first exchange can be answered from a fact: the features read the fact's
 * cosine over the model's range while the space is too small for a background (confidence.ts `features`).
 */
import { confidenceOf, features } from "./confidence";
import type { ConfidenceModel } from "./confidence-models";
import type { Features } from "./confidence-features";
import type { FactKeys, ScoredFact } from "./fact-keys";
import type { KnownFact } from "./fact-block";
import { textStems } from "./keyword-search";
import { queryBackground, type Background } from "./background";
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";

/** A current fact the question matched on its own evidence. */
export interface LegFact extends KnownFact {
  confidence: number;
  /** Its live source memories' rids (the sharing rules read their memories). */
  sourceRids: number[];
  /** Those memories' ids and whether each is pinned (filled by withSources). */
  sources?: { id: string; pinned: boolean }[];
  features?: Features;
}

// BEGIN FITTED FACT LEG (npm run eval:locomo -- --facts --fit-facts: 54,600 scored facts of LoCoMo's tuning
// half, 858 from a question's evidence). The fit's bias −4.802 is moved by logit(0.5) − logit(0.67): on tuning
// 0.67 is the lowest threshold at which another conversation's questions get ≤ 0.15 facts and everyday
// prompts ≤ 0.3 (docs/retrieval.md#the-facts-leg), so that factMinConfidence 0.5 means it.
export const FACT_LEG_MODEL: ConfidenceModel = {
  bias: -5.51,
  weights: {
    similarity: 0.224,
    keyword: 1.352,
    agreement: 0.204,
    termShare: 1.432,
    rareMatch: 1.744,
    dateMatch: 0,
    gap: 0,
    standout: 4.019,
    known: 3.07,
    factKeyword: 0,
    factSimilarity: 0,
  },
  similarityRange: [0.1, 0.7],
  turnShare: 0,
};
// END FITTED FACT LEG

export interface FactLegContext {
  /** The query's dense vector (the standout's background). */
  queryVector: Float32Array | null;
  /** The main query's kept keyword terms with their idf, and the share of its words the space knows. */
  terms: { stem: string; idf: number }[];
  known: number;
  /** Live memories of the space (bounds idf for rareMatch). */
  docs: number;
  background: Background | null;
  /** The query's own background (queryBackground), computed once per turn by factLeg. */
  own?: { mean: number; sd: number } | null;
}

/** A fact's features for the question: its own cosine and bm25 share, the query terms it holds. */
export function factFeatures(f: ScoredFact, fk: Pick<FactKeys, "ceiling" | "known">, ctx: FactLegContext): Features {
  const idfSum = ctx.terms.reduce((s, t) => s + t.idf, 0);
  let termShare = 0;
  let rare = 0;
  if (idfSum > 0) {
    const stems = textStems(f.text);
    for (const t of ctx.terms) {
      if (!stems.has(t.stem)) continue;
      termShare += t.idf / idfSum;
      rare = Math.max(rare, t.idf);
    }
  }
  const own = ctx.own !== undefined ? ctx.own : queryBackground(ctx.background, ctx.queryVector);
  const keywordShare = fk.ceiling > 0 ? f.keyword / fk.ceiling : 0;
  const x = features(
    {
      similarity: f.cosine,
      keywordShare,
      agreement: 0,
      termShare,
      rareMatch: rare / Math.log(Math.max(2, ctx.docs) + 0.5),
      dateMatch: false,
      gap: 0,
      standout: own && f.cosine !== null ? (f.cosine - own.mean) / own.sd : null,
      // What the space knows of the question: in its memories or in its facts (a fact's words need not be its exchange's).
      known: Math.max(ctx.known, fk.known),
      factKeywordShare: 0,
      factSimilarity: null,
    },
    FACT_LEG_MODEL,
    ctx.background,
  );
  // Both legs: the smaller of its meaning and its words (as the memories' agreement is).
  return { ...x, agreement: Math.min(x.similarity, x.keyword) };
}

/** Facts read per turn beside every keyword match: the best this many by cosine (a turn's cost stays flat in a large space). */
export const LEG_BY_MEANING = 50;

/** The current facts with a keyword match, and the LEG_BY_MEANING nearest by cosine. */
function legCandidates(fk: FactKeys): ScoredFact[] {
  const current = [...fk.facts.values()].filter(
    (f) => f.validTo === null && f.supersededBy === null && f.sources.length > 0,
  );
  const near = current
    .filter((f) => f.cosine !== null)
    .sort((a, b) => b.cosine! - a.cosine! || a.rid - b.rid)
    .slice(0, LEG_BY_MEANING);
  return [...new Set([...current.filter((f) => f.keyword > 0), ...near])];
}

/** The facts leg gives a prompt at most this many facts (as many as memories are packed by default). */
export const MAX_LEG_FACTS = 6;

/** The current facts that pass `minConfidence` on their own evidence, best first (all of them at 0: the fit's). */
export function factLeg(fk: FactKeys, ctx: FactLegContext, minConfidence: number, model = FACT_LEG_MODEL): LegFact[] {
  if (minConfidence >= 1 || fk.facts.size === 0) return [];
  const out: LegFact[] = [];
  const withOwn = { ...ctx, own: queryBackground(ctx.background, ctx.queryVector) };
  for (const f of legCandidates(fk)) {
    const x = factFeatures(f, fk, withOwn);
    const confidence = confidenceOf(x, model);
    if (confidence < minConfidence) continue;
    out.push({
      id: f.id,
      text: f.text,
      validFrom: f.validFrom,
      validTo: null,
      current: true,
      confidence,
      sourceRids: f.sources,
      features: x,
    });
  }
  out.sort((a, b) => b.confidence - a.confidence || a.id.localeCompare(b.id));
  return minConfidence > 0 ? out.slice(0, MAX_LEG_FACTS) : out;
}

/** Each fact with its source memories' ids and pinned flags (what the sharing rules of a turn read). */
export function withSources(db: Database.Database, facts: LegFact[]): LegFact[] {
  if (!facts.length) return facts;
  const q = stmt(db, "SELECT rid, id, pinned FROM memories WHERE rid IN (SELECT value FROM json_each(?))");
  return facts.map((f) => ({
    ...f,
    sources: (q.all(JSON.stringify(f.sourceRids)) as { id: string; pinned: number }[]).map((m) => ({
      id: m.id,
      pinned: Boolean(m.pinned),
    })),
  }));
}
