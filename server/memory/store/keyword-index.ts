/**
 * The keyword index: one FTS5 table per space and kind, so that bm25's statistics (how many documents,
 * their average length, how many hold a term) are the space's alone. With one household-wide table, one
 * person's writes moved another's scores, order and confidence (issue 43; SPEC §12). A shared space's
 * statistics are that space's, so sharing one space reveals nothing of its owner's others.
 *
 * Tables are made on a space's first write: `kw_m_<n>` (memories, rowid = memories.rid) and `kw_f_<n>`
 * (facts, rowid = facts.rid); `n` is the space's row in keyword_tables (drizzle/0018), whose foreign key to spaces lets a rename carry
 * the tables along. Porter stemming on unicode61 (+0.05 recall@10 measured: "paint" finds "painting").
 * FTS5's secure-delete is on: a deleted row's terms leave the index instead of staying under a delete marker.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";

export type KeywordKind = "memory" | "fact";

export interface KeywordMatch {
  rid: number;
  /** FTS5 bm25 over the space's own table (lower is better; negative). */
  bm25: number;
}

const PREFIX: Record<KeywordKind, string> = { memory: "kw_m_", fact: "kw_f_" };
export const KEYWORD_KINDS: KeywordKind[] = ["memory", "fact"];

/** The space's key in keyword_tables; made when `create` (inside the caller's write). */
function keyOf(db: Database.Database, spaceId: string, create: boolean): number | undefined {
  convertLegacyIndex(db);
  const row = stmt(db, "SELECT n FROM keyword_tables WHERE space_id = ?").get(spaceId) as { n: number } | undefined;
  if (row || !create) return row?.n;
  return Number(stmt(db, "INSERT INTO keyword_tables (space_id) VALUES (?)").run(spaceId).lastInsertRowid);
}

const tableName = (kind: KeywordKind, n: number) => `${PREFIX[kind]}${n}`;

/** Tables this connection has seen exist; a rolled-back creation is caught by `withTable`'s retry. */
const known = new WeakMap<Database.Database, Set<string>>();

function exists(db: Database.Database, name: string): boolean {
  let set = known.get(db);
  if (!set) known.set(db, (set = new Set()));
  if (set.has(name)) return true;
  const found = stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (found) set.add(name);
  return found;
}

/** Make a kind's table for key n. */
function createTable(db: Database.Database, name: string): void {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS "${name}" USING fts5(content, tokenize='porter unicode61')`);
  db.exec(`INSERT INTO "${name}" ("${name}", rank) VALUES ('secure-delete', 1)`);
  known.get(db)?.add(name);
}

const isMissingTable = (e: unknown) => e instanceof Error && /no such table/i.test(e.message);

/**
 * Run `fn` on the space's table of this kind, made first when missing. A table this connection made in a
 * transaction that later rolled back is remembered wrongly: the statement fails, and it is made again.
 */
function withTable<T>(db: Database.Database, kind: KeywordKind, spaceId: string, fn: (name: string) => T): T {
  const name = tableName(kind, keyOf(db, spaceId, true)!);
  if (!exists(db, name)) createTable(db, name);
  try {
    return fn(name);
  } catch (e) {
    if (!isMissingTable(e)) throw e;
    known.get(db)?.delete(name);
    createTable(db, name);
    return fn(name);
  }
}

/** The space's existing table of this kind, or undefined (nothing written there yet). */
function tableOf(db: Database.Database, kind: KeywordKind, spaceId: string): string | undefined {
  const n = keyOf(db, spaceId, false);
  if (n === undefined) return undefined;
  const name = tableName(kind, n);
  return exists(db, name) ? name : undefined;
}

/** The name of the space's table of this kind, when it exists (invariant checks, tests). */
export const keywordTableOf = tableOf;

/** Index a text under `rid` in the space's table (inside the caller's transaction: it writes with the rows). */
export function indexText(db: Database.Database, kind: KeywordKind, spaceId: string, rid: number, text: string): void {
  withTable(db, kind, spaceId, (t) =>
    stmt(db, `INSERT INTO "${t}" (rowid, content) VALUES (?, ?)`).run(BigInt(rid), text),
  );
}

/** Remove `rid` from the space's table; nothing when it is not there. */
export function unindexText(db: Database.Database, kind: KeywordKind, spaceId: string, rid: number): void {
  const t = tableOf(db, kind, spaceId);
  if (t) stmt(db, `DELETE FROM "${t}" WHERE rowid = ?`).run(BigInt(rid));
}

/** Replace the text indexed under `rid` (an edit). */
export function reindexText(
  db: Database.Database,
  kind: KeywordKind,
  spaceId: string,
  rid: number,
  text: string,
): void {
  unindexText(db, kind, spaceId, rid);
  indexText(db, kind, spaceId, rid, text);
}

/** Every row of the space matching an FTS5 expression, with bm25 from the space's own statistics, in rowid order. */
export function matchText(db: Database.Database, kind: KeywordKind, spaceId: string, match: string): KeywordMatch[] {
  const t = tableOf(db, kind, spaceId);
  if (!t) return [];
  return stmt(db, `SELECT rowid AS rid, bm25("${t}") AS bm25 FROM "${t}" WHERE "${t}" MATCH ?`).all(
    match,
  ) as KeywordMatch[];
}

/**
 * How many of the space's rows match an FTS5 expression (one quoted term: its document frequency, counted
 * by FTS5's own tokenizer and stemmer, as bm25's idf counts it); 0 for an unknown space.
 */
export function matchCount(db: Database.Database, kind: KeywordKind, spaceId: string, match: string): number {
  const t = tableOf(db, kind, spaceId);
  if (!t) return 0;
  return (stmt(db, `SELECT count(*) AS n FROM "${t}" WHERE "${t}" MATCH ?`).get(match) as { n: number }).n;
}

/**
 * The space's keyword key: new for each life of a space id (a space deleted and made again gets another),
 * so a per-space cache keyed by it never serves one life's figures to the next. Undefined: never written.
 */
export function keywordKey(db: Database.Database, spaceId: string): number | undefined {
  return keyOf(db, spaceId, false);
}

/** The rids indexed in the space's table (the invariant checks compare them with the live rows). */
export function indexedRids(db: Database.Database, kind: KeywordKind, spaceId: string): number[] {
  const t = tableOf(db, kind, spaceId);
  if (!t) return [];
  return (stmt(db, `SELECT rowid AS rid FROM "${t}"`).all() as { rid: number }[]).map((r) => r.rid);
}

/** Every space with keyword tables, with each kind's table name when it exists. */
export function keywordSpaces(
  db: Database.Database,
): { spaceId: string; tables: Partial<Record<KeywordKind, string>> }[] {
  convertLegacyIndex(db);
  const rows = stmt(db, "SELECT space_id AS spaceId, n FROM keyword_tables ORDER BY n").all() as {
    spaceId: string;
    n: number;
  }[];
  return rows.map((r) => ({
    spaceId: r.spaceId,
    tables: Object.fromEntries(
      KEYWORD_KINDS.filter((k) => exists(db, tableName(k, r.n))).map((k) => [k, tableName(k, r.n)]),
    ),
  }));
}

/** Rows indexed for a kind across every space (the store's counts beside memories and vectors). */
export function indexedTotal(db: Database.Database, kind: KeywordKind): number {
  let n = 0;
  for (const s of keywordSpaces(db)) {
    const t = s.tables[kind];
    if (t) n += (stmt(db, `SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;
  }
  return n;
}

/** Drop the space's keyword tables and its key (deleting a space; inside its transaction). */
export function dropSpaceIndexes(db: Database.Database, spaceId: string): void {
  const n = keyOf(db, spaceId, false);
  if (n === undefined) return;
  for (const kind of KEYWORD_KINDS) {
    const name = tableName(kind, n);
    db.exec(`DROP TABLE IF EXISTS "${name}"`);
    known.get(db)?.delete(name);
  }
  stmt(db, "DELETE FROM keyword_tables WHERE space_id = ?").run(spaceId);
}

/** Connections whose store has no household-wide table left (checked once each), and those converting it now. */
const converted = new WeakSet<Database.Database>();
const converting = new WeakSet<Database.Database>();

/**
 * A store made before drizzle/0018 has one household-wide table, memory_fts: its rows are moved into
 * per-space tables once, in one transaction, by the first use of the keyword index on the connection.
 */
function convertLegacyIndex(db: Database.Database): void {
  if (converted.has(db) || converting.has(db)) return;
  const legacy = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_fts'").get();
  if (!legacy) return void converted.add(db);
  converting.add(db);
  try {
    db.transaction(() => {
      const spaces = db.prepare("SELECT DISTINCT space_id AS id FROM memories WHERE soft_deleted = 0").all() as {
        id: string;
      }[];
      for (const s of spaces) {
        withTable(db, "memory", s.id, (t) =>
          db
            .prepare(
              `INSERT INTO "${t}" (rowid, content) SELECT f.rowid, f.content FROM memory_fts f
                 JOIN memories m ON m.rid = f.rowid WHERE m.space_id = ? AND m.soft_deleted = 0`,
            )
            .run(s.id),
        );
      }
      db.exec("DROP TABLE IF EXISTS memory_fts_vocab");
      db.exec("DROP TABLE memory_fts");
    })();
    converted.add(db);
  } finally {
    converting.delete(db);
  }
}
