/**
 * Start-up repair of stored times Memo cannot compute with (issue 58): a memory or fact stored before the
 * dates Memo keeps were checked on input (server/core/dates.ts), or written into the file by hand, with a
 * time like `+275760-09-13T00:00:00.000Z`. Such a row used to fail search and recall for its whole space.
 * Each is repaired in place, in one transaction, and logged with its id and the value it had:
 *   - a memory's `timestamp` becomes the time it was recorded (`created_at`), or now when that is bad too;
 *   - a memory's `updated_at` and `last_retrieved_at` are cleared (never edited, never recalled);
 *   - a trashed memory's `deleted_at` becomes now (its trash time starts again);
 *   - a fact's `valid_from` becomes its `recorded_at` (or now), a bad `valid_to` becomes now (it stays ended).
 * The memory keeps its text, space, vector and keywords: it stays searchable, dated when Memo learnt it.
 * SQLite finds the candidates (a time it cannot read, or before year 1 / after 9999 as text); JavaScript
 * confirms each, so a store without such rows costs one scan and writes nothing.
 */
import type Database from "better-sqlite3";
import { isReadableStoredTime } from "../../core/dates";

interface Column {
  table: "memories" | "facts";
  column: string;
  /** The value a bad one becomes: another column when readable, else now; null clears it. */
  repair: { from: string } | "now" | null;
}

const COLUMNS: Column[] = [
  { table: "memories", column: "timestamp", repair: { from: "created_at" } },
  { table: "memories", column: "updated_at", repair: null },
  { table: "memories", column: "last_retrieved_at", repair: null },
  { table: "memories", column: "deleted_at", repair: "now" },
  { table: "facts", column: "valid_from", repair: { from: "recorded_at" } },
  { table: "facts", column: "valid_to", repair: "now" },
];

/** SQL: this column may hold a time Memo cannot compute with (confirmed in JavaScript). */
const suspect = (c: string) =>
  `${c} IS NOT NULL AND (typeof(${c}) != 'text' OR julianday(${c}) IS NULL OR ${c} < '0001-01-01' OR ${c} > '9999-12-31T23:59:59.999Z')`;

export interface RepairedTime {
  table: string;
  id: string;
  column: string;
  was: string;
  now: string | null;
}

/** Repair every stored time Memo cannot compute with; returns what was changed (also logged). */
export function repairStoredTimes(db: Database.Database, now = new Date()): RepairedTime[] {
  const nowIso = now.toISOString();
  const repaired: RepairedTime[] = [];
  db.transaction(() => {
    for (const c of COLUMNS) {
      const from = c.repair && typeof c.repair === "object" ? c.repair.from : null;
      const rows = db
        .prepare(
          `SELECT id, ${c.column} AS v${from ? `, ${from} AS f` : ""} FROM ${c.table} WHERE ${suspect(c.column)}`,
        )
        .all() as { id: string; v: unknown; f?: unknown }[];
      const update = db.prepare(`UPDATE ${c.table} SET ${c.column} = ? WHERE id = ?`);
      for (const r of rows) {
        if (isReadableStoredTime(r.v)) continue;
        const value = c.repair === null ? null : c.repair === "now" ? nowIso : isReadableStoredTime(r.f) ? r.f : nowIso;
        update.run(value, r.id);
        repaired.push({ table: c.table, id: r.id, column: c.column, was: String(r.v).slice(0, 64), now: value });
      }
    }
  })();
  for (const r of repaired)
    console.warn(
      `[dates] repaired ${r.table === "memories" ? "memory" : "fact"} ${r.id}: ${r.column} was ${JSON.stringify(r.was)}, outside the dates Memo keeps (0001–9999); now ${r.now ?? "empty"}`,
    );
  return repaired;
}
