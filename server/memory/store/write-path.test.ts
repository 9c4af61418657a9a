/**
 * One write path (issue 56): memories and the rows that index them are written only by server/memory/store/,
 * facts and theirs only by server/memory/facts/, so that an invariant added to a write (a cache, the facts
 * cascade, a count, the ANN mirror's notice) cannot be skipped by a second writer somewhere else. Lifecycle,
 * re-index, ingest and the services call the store's named write functions.
 *
 * The check reads every product TypeScript file under server/, scripts/ and app/ (server/test/sql-writes.ts:
 * the compiler's parser, so comments are not code) for SQL writes — INSERT/REPLACE/UPDATE/DELETE and
 * CREATE/DROP/ALTER TABLE, in any case, over several lines, in template literals and `+` chains — and for
 * Drizzle's .insert/.update/.delete of the schema's tables, and fails naming the file and line of each one
 * outside its home. Tests (*.test.ts, *.eval.ts) and test support (server/test/) write rows directly to set
 * up a store, and are not read.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DYNAMIC, drizzleTables, productSources, type SqlWrite, sqlWritesIn } from "../../test/sql-writes";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** Who may write which tables. */
const HOMES = [
  {
    home: "server/memory/store/",
    what: "memories and their index rows (vectors, trash, re-index target, keyword tables, write log, counts)",
    tables: /^(memories|memory_\w+|vec_log|live_counts|keyword_tables|kw_m_\w*)$/,
  },
  {
    home: "server/memory/facts/",
    what: "facts, their sources, vectors and learning rows",
    tables: /^(facts|fact_\w+|kw_f_\w*)$/,
  },
];

/**
 * Writes to a table whose name is made at run time: the files allowed to make one, and why. Anywhere else a
 * computed table name is refused, since the check cannot tell which table it reaches.
 */
const COMPUTED_TABLE_WRITERS: Record<string, string> = {
  "server/memory/store/keyword-index.ts":
    "the per-space keyword tables kw_m_<n> and kw_f_<n> (facts/indexing.ts calls indexText for a fact's row)",
  "server/memory/store/spaces.ts":
    "renaming or deleting a space moves or deletes every row that names it (spaceReferences), facts' included",
  "server/memory/store/stored-times.ts": "the start-up repair of unreadable stored times in memories and facts",
  "server/db/secure-delete.ts": "FTS5 configuration commands ('secure-delete', 'optimize'): no rows",
};

const where = (f: string, w: SqlWrite) => `${f}:${w.line} ${w.verb} ${w.table}`;

let scanned: Map<string, SqlWrite[]> | undefined;

/** Every product file's SQL writes (read once for both checks). */
function scanProduct(): Map<string, SqlWrite[]> {
  if (scanned) return scanned;
  const tables = drizzleTables(ROOT);
  const out = new Map<string, SqlWrite[]>();
  for (const f of productSources(ROOT, ["server", "scripts", "app"])) {
    const writes = sqlWritesIn(fs.readFileSync(path.join(ROOT, f), "utf8"), f, tables);
    if (writes.length) out.set(f, writes);
  }
  scanned = out;
  return out;
}

test("the scan finds SQL writes in every shape a file can hold them, and nothing in comments or prose", () => {
  const tables = new Map([
    ["memories", "memories"],
    ["factSources", "fact_sources"],
  ]);
  const src = [
    'import { memories, factSources as fs } from "../../db/schema";',
    "// DELETE FROM memories in a comment is not a write",
    "/* UPDATE facts SET text = 'x' */",
    "const a = `",
    "  UPDATE memories",
    "     SET importance = ?",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the scanner, holding a template
    "   WHERE id IN (${ids}) AND ${scan}`;",
    'const b = "insert or replace into memory_vec_trash (rid, embedding) VALUES (?, ?)";',
    "const c = 'delete from facts where id = ?';",
    'const d = `INSERT INTO "memories" (id) VALUES (?)`;',
    'const e = "UPDATE main.facts SET text = ?";',
    'const f = "UPDATE " + "memory_vec_rows SET embedding = ?";',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the scanner, holding a template
    'const g = `DELETE FROM "${t}" WHERE rowid = ?`;',
    "db.insert(memories).values({});",
    "db.delete(fs).where(x);",
    'const h = "REPLACE INTO fact_vectors (rid) VALUES (?)";',
    "db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS memory_vec_next USING vec0(x)`);",
    'db.exec("DROP TABLE memory_vec");',
    'const prose = "could not update the memories; delete them from the list";',
    "set.delete(memories_seen);",
  ].join("\n");
  const found = sqlWritesIn(src, "x.ts", tables).map((w) => `${w.line} ${w.verb} ${w.table}`);
  assert.deepEqual(found, [
    "4 UPDATE memories",
    "8 INSERT OR REPLACE INTO memory_vec_trash",
    "9 DELETE FROM facts",
    "10 INSERT INTO memories",
    "11 UPDATE facts",
    "12 UPDATE memory_vec_rows",
    `13 DELETE FROM ${DYNAMIC}`,
    "14 drizzle .insert() memories",
    "15 drizzle .delete() fact_sources",
    "16 REPLACE INTO fact_vectors",
    "17 CREATE VIRTUAL TABLE IF NOT EXISTS memory_vec_next",
    "18 DROP TABLE memory_vec",
  ]);
});

test("memories and facts are written only by their homes (server/memory/store/, server/memory/facts/)", () => {
  const strays: string[] = [];
  for (const [f, writes] of scanProduct())
    for (const w of writes)
      for (const h of HOMES)
        if (h.tables.test(w.table) && !f.startsWith(h.home)) strays.push(`${where(f, w)} (home: ${h.home})`);
  assert.deepEqual(strays, [], "writes outside their home: call (or add) a named write function there instead");
});

test("a table named at run time is written only where the list above says why", () => {
  const scan = scanProduct();
  const strays: string[] = [];
  for (const [f, writes] of scan)
    for (const w of writes) if (w.table === DYNAMIC && !(f in COMPUTED_TABLE_WRITERS)) strays.push(where(f, w));
  assert.deepEqual(strays, [], "writes to a computed table name: name the table, or list the file here with why");
  const stale = Object.keys(COMPUTED_TABLE_WRITERS).filter((f) => !scan.get(f)?.some((w) => w.table === DYNAMIC));
  assert.deepEqual(stale, [], "listed as writing a computed table name, but no longer does: remove from the list");
});
