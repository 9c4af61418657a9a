/**
 * The facts' part of the store's consistency check (server/memory/store/read.ts checkInvariant): every live
 * fact has exactly one vector and one keyword row, in its own space; a forgotten one has neither, and a
 * parked vector to come back with; nothing else is there. Every fact keeps at least one source memory of
 * its space, a replaced fact names a fact that exists, and live_counts' fact counts are right.
 */
import type Database from "better-sqlite3";
import { keywordSpaces } from "../store/keyword-index";

export function factProblems(db: Database.Database): string[] {
  const problems: string[] = [];
  const n = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
  const check = (count: number, what: string) => count && problems.push(`${count} ${what}`);
  check(
    n(`SELECT count(*) AS n FROM facts f WHERE f.deleted_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM fact_vectors v WHERE v.rid = f.rid AND v.space_id = f.space_id)`),
    "live facts lack a vector in their space",
  );
  check(
    n(`SELECT count(*) AS n FROM fact_vectors v WHERE NOT EXISTS
         (SELECT 1 FROM facts f WHERE f.rid = v.rid AND f.deleted_at IS NULL)`),
    "fact vectors belong to no live fact",
  );
  check(
    n(`SELECT count(*) AS n FROM fact_vector_trash t WHERE NOT EXISTS
         (SELECT 1 FROM facts f WHERE f.rid = t.rid AND f.deleted_at IS NOT NULL)`),
    "parked fact vectors belong to no forgotten fact",
  );
  check(
    n(`SELECT count(*) AS n FROM facts f WHERE f.deleted_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM fact_vector_trash t WHERE t.rid = f.rid)`),
    "forgotten facts lack a parked vector",
  );
  check(
    n("SELECT count(*) AS n FROM facts f WHERE NOT EXISTS (SELECT 1 FROM fact_sources s WHERE s.fact_id = f.id)"),
    "facts have no source",
  );
  check(
    n(`SELECT count(*) AS n FROM fact_sources s JOIN facts f ON f.id = s.fact_id
         WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = s.memory_id AND m.space_id = f.space_id)`),
    "fact sources name no memory of the fact's space",
  );
  check(
    n(`SELECT count(*) AS n FROM facts f WHERE f.superseded_by IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.id = f.superseded_by AND g.space_id = f.space_id)`),
    "replaced facts name no fact of their space as their successor",
  );
  problems.push(...keywordProblems(db), ...countProblems(db));
  return problems;
}

/** Each space's fact keyword table holds exactly its live facts. */
function keywordProblems(db: Database.Database): string[] {
  let missing = 0;
  let stray = 0;
  const indexed = new Set<string>();
  for (const { spaceId, tables } of keywordSpaces(db)) {
    const t = tables.fact;
    if (!t) continue;
    indexed.add(spaceId);
    missing += (
      db
        .prepare(
          `SELECT count(*) AS n FROM facts f WHERE f.space_id = ? AND f.deleted_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM "${t}" k WHERE k.rowid = f.rid)`,
        )
        .get(spaceId) as { n: number }
    ).n;
    stray += (
      db
        .prepare(
          `SELECT count(*) AS n FROM "${t}" k WHERE NOT EXISTS
             (SELECT 1 FROM facts f WHERE f.rid = k.rowid AND f.deleted_at IS NULL AND f.space_id = ?)`,
        )
        .get(spaceId) as { n: number }
    ).n;
  }
  const bySpace = db
    .prepare("SELECT space_id AS spaceId, count(*) AS n FROM facts WHERE deleted_at IS NULL GROUP BY space_id")
    .all() as { spaceId: string; n: number }[];
  for (const s of bySpace) if (!indexed.has(s.spaceId)) missing += s.n;
  const problems: string[] = [];
  if (missing) problems.push(`${missing} live facts lack a keyword row`);
  if (stray) problems.push(`${stray} fact keyword rows belong to no live fact of their space`);
  return problems;
}

/** live_counts.facts_live against a count of the live facts. */
function countProblems(db: Database.Database): string[] {
  const rows = db
    .prepare(
      `SELECT s.space_id AS spaceId, coalesce(c.facts_live, 0) AS kept, s.n AS actual
         FROM (SELECT space_id, sum(deleted_at IS NULL) AS n FROM facts GROUP BY space_id) s
         LEFT JOIN live_counts c ON c.space_id = s.space_id
       UNION ALL
       SELECT c.space_id, c.facts_live, 0 FROM live_counts c
         WHERE c.facts_live <> 0 AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.space_id = c.space_id)`,
    )
    .all() as { spaceId: string; kept: number; actual: number }[];
  return rows
    .filter((r) => r.kept !== r.actual)
    .map((r) => `live fact count of space ${r.spaceId}: kept ${r.kept}, counted ${r.actual}`);
}
