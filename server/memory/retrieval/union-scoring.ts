/**
 * Stage 2 of retrieval (docs/retrieval.md#the-core): every candidate of the union scored on every signal —
 * each query vector's cosine to the candidate's stored vector, each query's bm25 (the keyword leg's own
 * scores), its facts' best cosine and bm25 — and fused (union-fusion.ts `fuseUnion`).
 */
import type Database from "better-sqlite3";
import { storedVectors } from "../store";
import type { Candidates } from "./candidates";
import { unitCosine } from "./cosine";
import { fuseUnion, type UnionSignal } from "./union-fusion";
import type { RetrievalSettings } from "./settings";

export function scoreUnion(db: Database.Database, c: Candidates, settings: RetrievalSettings) {
  const rids = [...c.found.keys()];
  const vectors = storedVectors(db, rids);
  const over = (score: (rid: number) => number | undefined) => {
    const out = new Map<number, number>();
    for (const rid of rids) {
      const v = score(rid);
      if (v !== undefined) out.set(rid, v);
    }
    return out;
  };
  const fk = c.facts;
  const signals: UnionSignal[] = [
    ...c.dense.map((d) => {
      const scores = over((rid) => (vectors.has(rid) ? unitCosine(d.vector, vectors.get(rid)!) : undefined));
      return { kind: "vector" as const, weight: d.weight, scores };
    }),
    // The keyword leg read every match's bm25 (keywordSearchScored's scores): the union's are looked up.
    ...c.matches.map((m) => ({ kind: "fts" as const, weight: m.weight, scores: over((rid) => m.scores.get(rid)) })),
    // A memory's facts' best cosine and bm25: two more signals (fact-keys.ts); none when the space has no facts.
    ...(fk.vector.size
      ? [{ kind: "factVector" as const, weight: settings.weights.factVector, scores: over((r) => fk.vector.get(r)) }]
      : []),
    ...(fk.keyword.size
      ? [{ kind: "factFts" as const, weight: settings.weights.factFts, scores: over((r) => fk.keyword.get(r)) }]
      : []),
  ];
  // The main query's own signals: what the breakdown shows.
  const fused = fuseUnion({
    found: c.found,
    signals,
    similarity: signals.find((s) => s.kind === "vector")?.scores ?? new Map<number, number>(),
    keyword: signals.find((s) => s.kind === "fts")?.scores ?? new Map<number, number>(),
    method: settings.fusion,
    rrfK: settings.rrfK,
  });
  return { fused, vectors };
}
