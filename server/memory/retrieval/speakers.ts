/**
 * Speaker awareness (docs/retrieval.md#speaker-awareness): a question that names a person whose words are
 * stored favours what that person said. Who said what is the memories' stored structure
 * (memories.speakers, written with each memory), never read from the text: a query word sequence equal
 * to a speaker name stored in the space names that person, whatever its case.
 */
import type Database from "better-sqlite3";
import { getMeta } from "../../core/meta";
import type { MemoryRow } from "../store";
import { queryWords, textStems } from "./keyword-search";
import type { Staged } from "./rerank";

const cache = new WeakMap<Database.Database, Map<string, { generation: string; names: string[] }>>();

/** The speaker names stored in a space, read once per store generation (a write changes it). */
export function spaceSpeakers(db: Database.Database, spaceId: string): string[] {
  const generation = getMeta(db, "vec_generation") ?? "0";
  let bySpace = cache.get(db);
  if (!bySpace) cache.set(db, (bySpace = new Map()));
  const hit = bySpace.get(spaceId);
  if (hit?.generation === generation) return hit.names;
  const names = (
    db
      .prepare(
        `SELECT DISTINCT json_extract(s.value, '$.name') AS name FROM memories m, json_each(m.speakers) s
         WHERE m.space_id = ? AND m.soft_deleted = 0 AND m.speakers IS NOT NULL AND name IS NOT NULL`,
      )
      .all(spaceId) as { name: string }[]
  ).map((r) => r.name);
  bySpace.set(spaceId, { generation, names });
  return names;
}

/** The stored names the query names: the name's words, normalised as the keyword leg reads words, in a row. */
export function namedSpeakers(query: string, names: string[]): string[] {
  const q = queryWords(query);
  return names.filter((name) => {
    const n = queryWords(name);
    return n.length > 0 && q.some((_, i) => n.every((w, j) => q[i + j] === w));
  });
}

/**
 * Each candidate's score × (1 + boost × share), where share is the idf-weighted part of the query's
 * matched terms (the named people's own names aside) that the named people themselves said in it. A
 * memory whose match is in someone else's words, or with no stored speakers, is left as it is.
 */
export function withSpeakers(
  cands: Staged[],
  rows: Map<number, MemoryRow>,
  named: string[],
  terms: { stem: string; idf: number }[],
  boost: number,
): Staged[] {
  if (boost <= 0 || named.length === 0) return cands;
  const nameStems = textStems(named.join(" "));
  const asked = terms.filter((t) => !nameStems.has(t.stem));
  for (const c of cands) {
    const m = rows.get(c.rid);
    const own = m?.speakers?.filter((s) => s.name && named.includes(s.name));
    if (!m || !own?.length) continue;
    const all = textStems(m.content);
    const theirs = textStems(own.map((s) => m.content.slice(s.start, s.end)).join(" "));
    const matched = asked.filter((t) => all.has(t.stem));
    const total = matched.reduce((n, t) => n + t.idf, 0);
    const share = total > 0 ? matched.filter((t) => theirs.has(t.stem)).reduce((n, t) => n + t.idf, 0) / total : 0;
    if (share <= 0) continue;
    c.fused *= 1 + boost * share;
    c.moves.push(`speaker ×${(1 + boost * share).toFixed(2)} (${named.join(", ")} said it)`);
  }
  return cands.sort((a, b) => b.fused - a.fused || a.rid - b.rid);
}
