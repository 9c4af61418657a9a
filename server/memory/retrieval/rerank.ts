import type Database from "better-sqlite3";
import { confidenceModelFor, confidenceOf, contributions, features, withTurnEvidence } from "./confidence";
import type { FeatureName, Features } from "./confidence-features";
import { unscored, type FusedCandidate } from "./fuse";
import { loadNeighbours, propagate } from "./neighbours";
import { textStems } from "./keyword-search";
import type { RetrievalSettings } from "./settings";
import type { MemoryRow } from "../store";
import { recencyOf } from "./recency";
import { inWindows, type TimeIntent, type TimeWindow } from "./time-window";
import { queryBackground, type Background } from "./background";
import { dot } from "./score-union";
import type { FactKeys } from "./fact-keys";

/** Stages after fusion (neighbours, dates, confidence): each is a setting and leaves a line in `moves`. */

export interface Staged extends FusedCandidate {
  moves: string[];
  dateMatch: boolean;
  /** The first date window of the query that holds this memory (withTime), when one does. */
  dateWindow?: TimeWindow;
}

/** Neighbour propagation over fused candidates; neighbours that were not candidates join as "neighbour". */
export function withNeighbours(
  db: Database.Database,
  cands: FusedCandidate[],
  s: RetrievalSettings,
  sources: number,
): Staged[] {
  const staged: Staged[] = cands.map((c) => ({ ...c, moves: [], dateMatch: false }));
  if (s.neighbourWeight <= 0 || cands.length === 0) return staged;
  const top = cands.slice(0, sources);
  const adjacent = loadNeighbours(
    db,
    top.map((c) => c.rid),
    s.neighbourGapMinutes,
  );
  const { from } = propagate(new Map(top.map((c) => [c.rid, c.fused])), adjacent, s.neighbourWeight);
  const byRid = new Map(staged.map((c) => [c.rid, c]));
  for (const [rid, f] of from) {
    let c = byRid.get(rid);
    if (!c) {
      c = {
        ...unscored(rid, "neighbour"),
        moves: [],
        dateMatch: false,
      };
      byRid.set(rid, c);
      staged.push(c);
    }
    c.fused = (c.fused ?? 0) + f.bonus;
    c.moves.push(`neighbour +${f.bonus.toFixed(3)} (next to a match)`);
  }
  return staged.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

/** Date windows: a candidate inside a date the query names is marked (`dateMatch`), its score × (1 + dateBoost). */
export function withTime(
  cands: Staged[],
  rows: Map<number, MemoryRow>,
  intent: TimeIntent,
  s: RetrievalSettings,
): Staged[] {
  for (const c of cands) {
    const m = rows.get(c.rid);
    if (!m) continue;
    const at = recencyOf(m);
    const w = intent.windows.length ? inWindows(at, intent.windows) : null;
    if (w) {
      c.dateMatch = true;
      c.dateWindow = w;
      if (s.dateBoost > 0) {
        c.fused *= 1 + s.dateBoost;
        c.moves.push(`date ×${(1 + s.dateBoost).toFixed(2)} (in “${w.text}”)`);
      } else c.moves.push(`date: in “${w.text}”`);
    }
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}

export interface Confidence {
  confidence: number;
  features: Features;
  /** Features with their share of the logit, largest first (what moved it). */
  because: { feature: FeatureName; logit: number }[];
  /** Logit added for the turn's strongest leading result (withTurnEvidence); 0 when none. */
  turnLift: number;
}

/**
 * Calibrated confidence of each ranked result (confidence.ts), its own and then given the turn's leaders:
 * pass at least the first TURN_LEADERS and one more (the last one's gap), so k does not change it.
 */
export function confidences(
  ranked: (Staged & { final: number; norms?: Record<string, number> })[],
  ctx: {
    model: string;
    rows: Map<number, MemoryRow>;
    queryVector: Float32Array | null;
    vectors: Map<number, Float32Array>;
    /** The main query's kept terms, bm25 ceiling and known share (keyword-search.ts). */
    ceiling: number;
    terms: { stem: string; idf: number }[];
    known: number;
    /** Live memories in the store (bounds idf). */
    docs: number;
    /** The space's background similarity (background.ts); null for a space too small to have one. */
    background: Background | null;
    /** The memories' facts' best scores for the query (fact-keys.ts); absent: no facts. */
    facts?: Pick<FactKeys, "keyword" | "vector" | "ceiling" | "facts">;
  },
): Confidence[] {
  const model = confidenceModelFor(ctx.model, { withFacts: (ctx.facts?.facts.size ?? 0) > 0 });
  const idfSum = ctx.terms.reduce((s, t) => s + t.idf, 0);
  const top = Math.max(1e-9, ranked[0]?.final ?? 0);
  const own0 = queryBackground(ctx.background, ctx.queryVector);
  const own = ranked.map((c, i) => {
    const v = ctx.vectors.get(c.rid);
    const sim = ctx.queryVector && v ? dot(ctx.queryVector, v) : c.similarity;
    const m = ctx.rows.get(c.rid);
    let termShare = 0;
    let rare = 0;
    if (m && idfSum > 0) {
      const stems = textStems(m.content);
      for (const t of ctx.terms) {
        if (!stems.has(t.stem)) continue;
        termShare += t.idf / idfSum;
        rare = Math.max(rare, t.idf);
      }
    }
    const next = ranked[i + 1]?.final ?? 0;
    const f = features(
      {
        similarity: sim,
        keywordShare: c.bm25 !== null && ctx.ceiling > 0 ? -c.bm25 / ctx.ceiling : 0,
        agreement: Math.min(c.norms?.vector ?? 0, c.norms?.fts ?? 0),
        termShare,
        rareMatch: rare / Math.log(Math.max(2, ctx.docs) + 0.5),
        dateMatch: c.dateMatch,
        gap: (c.final - next) / top,
        standout: own0 && sim !== null ? (sim - own0.mean) / own0.sd : null,
        known: ctx.known,
        factKeywordShare:
          ctx.facts && ctx.facts.ceiling > 0 ? (ctx.facts.keyword.get(c.rid) ?? 0) / ctx.facts.ceiling : 0,
        factSimilarity: ctx.facts?.vector.get(c.rid) ?? null,
      },
      model,
      ctx.background,
    );
    return { confidence: confidenceOf(f, model), features: f, because: contributions(f, model) };
  });
  const turn = withTurnEvidence(
    own.map((c) => c.confidence),
    model.turnShare,
  );
  return own.map((c, i) => ({ ...c, confidence: turn[i]!.confidence, turnLift: turn[i]!.lift }));
}
