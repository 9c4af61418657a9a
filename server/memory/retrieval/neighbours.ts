import { isReadableStoredTime } from "../../core/dates";
import type Database from "better-sqlite3";

/**
 * Neighbour context: an answer is often a short reply whose keywords sit in the exchange before it. Part
 * of an exchange's score goes to the memory just before and after it in the space, within `gapMinutes`
 * (same conversation when both have one), ordered by timestamp, then rid (an imported session has one date).
 */

/**
 * bonus(n) = weight × max over adjacent sources s of score(s), from the scores before propagation (no
 * chains), added to n's own (0 when no candidate). Returns the scores and each gainer's source.
 */
export function propagate(
  scores: Map<number, number>,
  adjacent: Map<number, number[]>,
  weight: number,
): { scores: Map<number, number>; from: Map<number, { rid: number; bonus: number }> } {
  const out = new Map(scores);
  const from = new Map<number, { rid: number; bonus: number }>();
  if (weight <= 0) return { scores: out, from };
  for (const [src, score] of scores) {
    for (const n of adjacent.get(src) ?? []) {
      const bonus = weight * score;
      const best = from.get(n);
      if (!best || bonus > best.bonus) from.set(n, { rid: src, bonus });
    }
  }
  for (const [n, { bonus }] of from) out.set(n, (scores.get(n) ?? 0) + bonus);
  return { scores: out, from };
}

const stmts = new WeakMap<
  Database.Database,
  { prev: Database.Statement; next: Database.Statement; self: Database.Statement }
>();
function prepared(db: Database.Database) {
  let s = stmts.get(db);
  if (!s) {
    const cols = "rid, timestamp, conversation_id AS conv";
    // CAST hides the space from the planner: with an equality on the index's first column and a range
    // after it, SQLite built with STAT4 (better-sqlite3 is) re-prepares the statement whenever the
    // bound space changes — on every call here, ~9 µs each (docs/retrieval.md#neighbour-context).
    s = {
      self: db.prepare(`SELECT ${cols}, space_id AS space FROM memories WHERE rid = ?`),
      prev: db.prepare(
        `SELECT ${cols} FROM memories WHERE space_id = CAST(@space AS TEXT) AND soft_deleted = 0 AND document_id IS NULL AND timestamp <= @at AND timestamp >= @lo AND (timestamp < @at OR rid < @rid) ORDER BY timestamp DESC, rid DESC LIMIT 1`,
      ),
      next: db.prepare(
        `SELECT ${cols} FROM memories WHERE space_id = CAST(@space AS TEXT) AND soft_deleted = 0 AND document_id IS NULL AND timestamp >= @at AND timestamp <= @hi AND (timestamp > @at OR rid > @rid) ORDER BY timestamp ASC, rid ASC LIMIT 1`,
      ),
    };
    stmts.set(db, s);
  }
  return s;
}

/** The adjacent exchanges of each given memory (document chunks have no session neighbours). */
export function loadNeighbours(db: Database.Database, rids: number[], gapMinutes: number): Map<number, number[]> {
  const s = prepared(db);
  const gap = gapMinutes * 60_000;
  const out = new Map<number, number[]>();
  for (const rid of rids) {
    const m = s.self.get(rid) as { rid: number; timestamp: string; conv: string | null; space: string } | undefined;
    if (!m) continue;
    if (!isReadableStoredTime(m.timestamp)) continue; // left out of the answer by getMemoriesByRid too
    const t = Date.parse(m.timestamp);
    const lo = new Date(t - gap).toISOString();
    const hi = new Date(t + gap).toISOString();
    const adj: number[] = [];
    const at = { space: m.space, at: m.timestamp, rid, lo, hi };
    for (const n of [s.prev.get(at), s.next.get(at)] as ({ rid: number; conv: string | null } | undefined)[]) {
      if (!n) continue;
      if (m.conv && n.conv && m.conv !== n.conv) continue;
      adj.push(n.rid);
    }
    if (adj.length) out.set(rid, adj);
  }
  return out;
}
