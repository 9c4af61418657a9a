import type Database from "better-sqlite3";
import { stemmer } from "stemmer";
import { STOPWORDS } from "./stopwords";

export interface KeywordOptions {
  /** Drop a term found in more than this fraction of memories (once the store has ≥ 50). */
  maxDocFraction: number;
  /** At most this many terms, the rarest kept. */
  maxTerms: number;
  /**
   * Work cap: keep terms (rarest first) while their summed document frequency stays within this many
   * postings; the rarest term is always kept. BM25 scores every matching row, so this bounds the cost
   * of the keyword leg at any store size (measured: ~2,000 matches cost ~1.5 ms at 10K memories).
   */
  maxPostings?: number;
}

export const DEFAULT_KEYWORD_OPTIONS: KeywordOptions = { maxDocFraction: 0.4, maxTerms: 12, maxPostings: 5000 };

export interface KeywordHit {
  rid: number;
  /** FTS5 bm25 (lower is better; negative). */
  bm25: number;
}

/** Words of a user string as unicode61 sees them: runs of letters, digits and marks, lower-cased. */
export function queryWords(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

/** Quote one term for FTS5 MATCH: inside double quotes nothing is syntax; a quote is doubled. */
export function quoteFtsTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function stripDiacritics(s: string): string {
  return s.normalize("NFD").replace(/\p{M}/gu, "");
}

interface Term {
  word: string;
  df: number;
}

/**
 * The FTS5 MATCH expression for a user string: each distinct non-stopword term quoted and OR-ed (never
 * a phrase), terms too common to discriminate dropped, the rarest `maxTerms` kept. Returns null when no
 * term is left. Document frequency comes from the fts5vocab table (terms are stored Porter-stemmed).
 */
export function buildFtsQuery(db: Database.Database | null, text: string, opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS): string | null {
  const seen = new Set<string>();
  const terms: Term[] = [];
  const dfStmt = db?.prepare("SELECT doc FROM memory_fts_vocab WHERE term = ?");
  for (const w of queryWords(text)) {
    if (STOPWORDS.has(w) || (w.length < 2 && !/\p{N}/u.test(w))) continue;
    const stem = stemmer(stripDiacritics(w));
    if (seen.has(stem)) continue;
    seen.add(stem);
    const df = dfStmt ? ((dfStmt.get(stem) as { doc: number } | undefined)?.doc ?? 0) : 0;
    terms.push({ word: w, df });
  }
  if (terms.length === 0) return null;
  let kept = terms;
  if (db) {
    const total = liveDocCount(db);
    if (total >= 50) {
      const discriminating = terms.filter((t) => t.df / total <= opts.maxDocFraction);
      // Never drop everything: a query of only common words keeps its rarest term.
      kept = discriminating.length > 0 ? discriminating : [terms.reduce((a, b) => (b.df < a.df ? b : a))];
    }
  }
  kept = [...kept].sort((a, b) => a.df - b.df).slice(0, opts.maxTerms);
  const maxPostings = opts.maxPostings ?? 5000;
  let postings = 0;
  kept = kept.filter((t, i) => {
    postings += t.df;
    return i === 0 || postings <= maxPostings;
  });
  return kept.map((t) => quoteFtsTerm(t.word)).join(" OR ");
}

const countCache = new WeakMap<Database.Database, { at: number; n: number }>();
function liveDocCount(db: Database.Database): number {
  const c = countCache.get(db);
  if (c && Date.now() - c.at < 5000) return c.n;
  const n = (db.prepare("SELECT count(*) AS n FROM memories WHERE soft_deleted = 0").get() as { n: number }).n;
  countCache.set(db, { at: Date.now(), n });
  return n;
}

/** BM25-ranked keyword matches within one space, best first. */
export function keywordSearch(
  db: Database.Database,
  spaceId: string,
  text: string,
  limit: number,
  opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS,
): KeywordHit[] {
  const match = buildFtsQuery(db, text, opts);
  if (!match) return [];
  return db
    .prepare(
      `SELECT memory_fts.rowid AS rid, bm25(memory_fts) AS bm25 FROM memory_fts
       JOIN memories m ON m.rid = memory_fts.rowid
       WHERE memory_fts MATCH ? AND m.space_id = ? ORDER BY bm25 LIMIT ?`,
    )
    .all(match, spaceId, limit) as KeywordHit[];
}
