/**
 * The profile (issue 47, docs/retrieval.md#the-profile): a small set of the person's most important current
 * facts that every turn carries within a fixed token budget, as ChatGPT's saved memories and Letta's core
 * memory do — what Memo knows never depends only on a transcript winning a ranking. Importance is read
 * from stored structure: confirmed by the person (or written by them), how often its source memories were
 * recalled into prompts, and how recently it was learned or its sources were used.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { estimateTokens } from "./token-estimate";
import { factLine, type KnownFact } from "./fact-block";

export interface ProfileFact extends KnownFact {
  /** The importance it was chosen by (higher first). */
  weight: number;
  /** Its live source memories: id and pinned (the sharing rules read them). */
  sources: { id: string; pinned: boolean }[];
}

/** Half-life of "recently used", days. */
const RECENT_DAYS = 30;

/** How many candidates are read before the budget picks (a profile is a handful of lines). */
const CANDIDATES = 200;

/**
 * The space's current facts with their live sources. Memories are read by id for each source (the unary +
 * keeps SQLite off the space's memory index, which made it scan every memory of the space for each fact:
 * 25 ms a turn at 400 memories and 300 facts, growing with the store; docs/benchmarks.md).
 */
export const PROFILE_SQL = `SELECT f.id, f.text, f.valid_from AS validFrom, f.recorded_at AS recordedAt,
          (f.confirmed_at IS NOT NULL OR f.origin = 'person') AS confirmed,
          sum(m.retrieval_count) AS recalls, max(coalesce(m.last_retrieved_at, '')) AS lastUsed,
          json_group_array(json_array(m.id, m.pinned)) AS sources
     FROM facts f JOIN fact_sources s ON s.fact_id = f.id
     JOIN memories m ON m.id = s.memory_id AND +m.soft_deleted = 0 AND +m.space_id = f.space_id
    WHERE f.space_id = ? AND f.deleted_at IS NULL AND f.superseded_by IS NULL AND f.valid_to IS NULL
    GROUP BY f.id`;

/**
 * The space's current facts, most important first: confirmed (+2), log(1 + recalls of its sources), and
 * recency (1 now, ½ after RECENT_DAYS) of the later of when it was learned and when a source was last recalled.
 */
export function rankedProfile(db: Database.Database, spaceId: string, nowMs = Date.now()): ProfileFact[] {
  const rows = stmt(db, PROFILE_SQL).all(spaceId) as {
    id: string;
    text: string;
    validFrom: string;
    recordedAt: string;
    confirmed: number;
    recalls: number;
    lastUsed: string;
    sources: string;
  }[];
  const out = rows.map((r) => {
    const last = Math.max(Date.parse(r.recordedAt) || 0, Date.parse(r.lastUsed) || 0);
    const days = Math.max(0, (nowMs - last) / 86_400_000);
    const weight = (r.confirmed ? 2 : 0) + Math.log1p(r.recalls ?? 0) + 0.5 ** (days / RECENT_DAYS);
    return {
      id: r.id,
      text: r.text,
      validFrom: r.validFrom,
      validTo: null,
      current: true,
      weight,
      sources: (JSON.parse(r.sources) as [string, number][]).map(([id, pinned]) => ({ id, pinned: Boolean(pinned) })),
    };
  });
  return out.sort((a, b) => b.weight - a.weight || a.id.localeCompare(b.id)).slice(0, CANDIDATES);
}

/** The first facts (in the given order) whose lines fit `tokens`. */
export function withinTokens<T extends KnownFact>(facts: T[], tokens: number, tzOffsetMinutes?: number): T[] {
  const out: T[] = [];
  let used = 0;
  for (const f of facts) {
    const t = estimateTokens(factLine(f, tzOffsetMinutes)) + 1;
    if (used + t > tokens) continue;
    out.push(f);
    used += t;
  }
  return out;
}
