import type Database from "better-sqlite3";
import { stemmer } from "stemmer";
import { STOPWORDS } from "./stopwords";
import { stmt } from "../../core/statements";
import { liveCounts, liveInSpace } from "../store/live-counts";
import { vecLogSeq } from "../store/rows";

export interface KeywordOptions {
  /** Drop a term found in more than this fraction of memories (once the store has ≥ 50). */
  maxDocFraction: number;
  /** At most this many terms, the rarest kept. */
  maxTerms: number;
  /** Work cap: terms (rarest first, the rarest always) while their summed df stays within this many postings. */
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
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}]+/gu) ?? []
  );
}

/** Quote one term for FTS5 MATCH: inside double quotes nothing is syntax; a quote is doubled. */
export function quoteFtsTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** A word's Porter stem as FTS5 stores it (diacritics removed). */
const stemOf = (w: string) => stemmer(w.normalize("NFD").replace(/\p{M}/gu, ""));

interface Term {
  word: string;
  stem: string;
  /** Store-wide document frequency: what FTS5's bm25 idf and the posting-list cost are measured in. */
  df: number;
  /** Document frequency within the searched space: what "too common to discriminate" is measured in. */
  spaceDf: number;
}

/**
 * The FTS5 MATCH expression for a user string: each distinct non-stopword term quoted and OR-ed (never a
 * phrase), terms too common dropped, the rarest `maxTerms` kept; null when no term is left.
 */
export function buildFtsQuery(
  db: Database.Database | null,
  text: string,
  opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS,
  spaceId: string | null = null,
): string | null {
  const kept = selectTerms(db, text, opts, spaceId);
  return kept ? kept.map((t) => quoteFtsTerm(t.word)).join(" OR ") : null;
}

/** The query terms buildFtsQuery keeps, with their document frequencies; null when none is left. */
function selectTerms(
  db: Database.Database | null,
  text: string,
  opts: KeywordOptions,
  spaceId: string | null,
  terms: Term[] = [],
): Term[] | null {
  const seen = new Set<string>();
  const dfs = db ? docFrequencies(db) : null;
  for (const w of queryWords(text)) {
    if (STOPWORDS.has(w) || (w.length < 2 && !/\p{N}/u.test(w))) continue;
    const stem = stemOf(w);
    if (seen.has(stem)) continue;
    seen.add(stem);
    const df = dfs ? dfs.store(stem) : 0;
    const spaceDf = dfs && spaceId !== null ? dfs.space(spaceId, w, stem) : df;
    terms.push({ word: w, stem, df, spaceDf });
  }
  if (terms.length === 0) return null;
  let kept = terms;
  if (db) {
    const total = spaceId !== null ? liveInSpace(db, spaceId) : liveCounts(db).n;
    if (total >= 50) {
      const discriminating = terms.filter((t) => t.spaceDf / total <= opts.maxDocFraction);
      // Never drop everything: a query of only common words keeps its rarest term.
      kept = discriminating.length > 0 ? discriminating : [terms.reduce((a, b) => (b.spaceDf < a.spaceDf ? b : a))];
    }
  }
  kept = [...kept].sort((a, b) => a.df - b.df).slice(0, opts.maxTerms);
  const maxPostings = opts.maxPostings ?? 5000;
  let postings = 0;
  kept = kept.filter((t, i) => {
    postings += t.df;
    return i === 0 || postings <= maxPostings;
  });
  return kept;
}

/** The `n` of a `SELECT count(*) AS n` statement. */
const countOf = (db: Database.Database, sql: string, ...args: unknown[]) =>
  (stmt(db, sql).get(...args) as { n: number }).n;

const dfCaches = new WeakMap<Database.Database, Map<string, { df: number; seq: number }>>();

/**
 * A document frequency, reused while the store cannot have moved it by more than a tenth: every change to
 * a memory's text, space or liveness adds a vec_log entry (drizzle/0008_vector_write_log.sql, any process),
 * so df has moved by at most the entries since it was read. Counting walks the term's posting list (4 ms for
 * a word in every memory at 100K); a rare word is read again after any write, a common one rarely.
 */
function cachedDf(db: Database.Database, seq: number, key: string, read: () => number): number {
  let cache = dfCaches.get(db);
  if (!cache) dfCaches.set(db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && seq >= hit.seq && seq - hit.seq <= hit.df / 10) return hit.df;
  const df = read();
  if (cache.size > 50_000) cache.clear();
  cache.set(key, { df, seq });
  return df;
}

const VOCAB_DF = "SELECT doc FROM memory_fts_vocab WHERE term = ?";
const SPACE_DF = `SELECT count(*) AS n FROM memory_fts JOIN memories m ON m.rid = memory_fts.rowid
  WHERE memory_fts MATCH ? AND m.space_id = ?`;

/**
 * Document frequencies as the store stands now (the write log and the counts read once for a whole query):
 * `store(stem)` across every space, from the fts5vocab table; `space(…)` within one space
 * (docs/retrieval.md#keyword-leg): a word common in another space (its speakers' names) must not be pruned
 * from this one's queries. One space: the store's figure.
 */
function docFrequencies(db: Database.Database) {
  const seq = vecLogSeq(db);
  const oneSpace = liveCounts(db).spaces <= 1;
  const store = (stem: string) =>
    cachedDf(db, seq, stem, () => (stmt(db, VOCAB_DF).get(stem) as { doc: number } | undefined)?.doc ?? 0);
  const space = (spaceId: string, word: string, stem: string) =>
    oneSpace
      ? store(stem)
      : cachedDf(db, seq, `${spaceId}\u0000${stem}`, () => countOf(db, SPACE_DF, quoteFtsTerm(word), spaceId));
  return { store, space };
}

/**
 * FTS5's idf of a term in df of n documents. n is read fresh and df may be a tenth stale (cachedDf), so df
 * can exceed n: n is read as at least df, or the log turns the turn's features into NaN.
 */
export function fts5Idf(n: number, df: number): number {
  const docs = Math.max(n, df);
  return Math.max(1e-6, Math.log((docs - df + 0.5) / (df + 0.5)));
}

/** Every match with its bm25, any space, in FTS5's rowid order (keywordSearchScored's `scores`). */
const KEYWORD_ALL = "SELECT rowid AS rid, bm25(memory_fts) AS bm25 FROM memory_fts WHERE memory_fts MATCH ?";
const SPACES_OF = "SELECT rid, space_id AS spaceId FROM memories WHERE rid IN (SELECT value FROM json_each(?))";

export interface ScoredKeywordHits {
  hits: KeywordHit[];
  /** The query's bm25 ceiling (Σ idf of the kept terms): what linear fusion divides −bm25 by; 0 without terms. */
  ceiling: number;
  /** The kept query terms (Porter stems) with FTS5's idf: what a result's matched-term share is measured in. */
  terms: { stem: string; idf: number }[];
  /** The FTS5 MATCH expression of the kept terms ("" without terms): what the union is scored with (score-union.ts). */
  match: string;
  /** Share of the query's words (stopwords aside, before pruning) the space holds at all (0 without words). */
  known: number;
  /** −bm25 of every memory the expression matches (any space), read by the hits' statement (allMatches). */
  scores: Map<number, number>;
}

/** BM25-ranked keyword matches within one space, best first, with the query's bm25 ceiling, kept terms and every match's score. */
export function keywordSearchScored(
  db: Database.Database,
  spaceId: string,
  text: string,
  limit: number,
  opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS,
): ScoredKeywordHits {
  const all: Term[] = [];
  const terms = selectTerms(db, text, opts, spaceId, all);
  if (!terms) return { hits: [], ceiling: 0, terms: [], match: "", known: 0, scores: new Map() };
  const known = all.filter((t) => t.spaceDf > 0).length / all.length;
  const match = terms.map((t) => quoteFtsTerm(t.word)).join(" OR ");
  const n = liveCounts(db).n;
  const idfs = terms.map((t) => ({ stem: t.stem, idf: fts5Idf(n, t.df) }));
  // Σ idf: the bm25 of a memory holding each kept term once at average length. −bm25 over it says how
  // much of the query a hit matches, whatever the other hits are.
  const scoring = { match, known, ceiling: idfs.reduce((sum, t) => sum + t.idf, 0), terms: idfs };
  return { ...allMatches(db, spaceId, match, limit), ...scoring };
}

/**
 * The hits and every match's −bm25 from one FTS5 statement (ORDER BY bm25 computes them all anyway; a
 * `rowid IN` query for the union cost ~100 ms at 10K). Ranked here (stable: FTS5's rowid order among
 * equals) and filtered to the space a slice at a time until `limit` are found.
 */
function allMatches(
  db: Database.Database,
  spaceId: string,
  match: string,
  limit: number,
): { hits: KeywordHit[]; scores: Map<number, number> } {
  const rows = stmt(db, KEYWORD_ALL).all(match) as KeywordHit[];
  const scores = new Map<number, number>();
  for (const r of rows) scores.set(r.rid, -r.bm25);
  const hits: KeywordHit[] = [];
  const slice = Math.max(limit * 2, 100);
  const spaceOf = (part: KeywordHit[]) =>
    new Map(
      (stmt(db, SPACES_OF).all(JSON.stringify(part.map((r) => r.rid))) as { rid: number; spaceId: string }[]).map(
        (r) => [r.rid, r.spaceId],
      ),
    );
  const take = (part: KeywordHit[]) => {
    const spaces = spaceOf(part);
    for (const r of part) if (hits.length < limit && spaces.get(r.rid) === spaceId) hits.push(r);
  };
  // The first slice holds the space's hits unless the space is a small part of the matches: select it
  // without sorting every match (a turn's message matches ~2,500 memories; sorting them cost ~1 ms).
  take(bestFirst(rows, slice));
  if (hits.length < limit && rows.length > slice) {
    // bestFirst gave exactly the sorted order's first slice: go on from the second.
    const ranked = [...rows].sort((a, b) => a.bm25 - b.bm25);
    for (let i = slice; i < ranked.length && hits.length < limit; i += slice) take(ranked.slice(i, i + slice));
  }
  return { hits, scores };
}

/**
 * The first `m` of `rows` sorted by bm25 (stable), without sorting all: the m-th smallest value (selected
 * in linear time), then the rows below it and, in their order, enough of the rows equal to it.
 */
export function bestFirst(rows: KeywordHit[], m: number): KeywordHit[] {
  if (rows.length <= m) return [...rows].sort((a, b) => a.bm25 - b.bm25);
  const values = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) values[i] = rows[i]!.bm25;
  const edge = kthSmallest(values, m - 1);
  let below = 0;
  for (const r of rows) if (r.bm25 < edge) below++;
  let atEdge = m - below;
  const out: KeywordHit[] = [];
  for (const r of rows) {
    if (r.bm25 < edge) out.push(r);
    else if (r.bm25 === edge && atEdge > 0) {
      out.push(r);
      atEdge--;
    }
  }
  return out.sort((a, b) => a.bm25 - b.bm25);
}

/** The k-th smallest (0-based) of `a` by quickselect (Hoare partition); reorders `a`. */
function kthSmallest(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const x = a[i]!;
        a[i] = a[j]!;
        a[j] = x;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/** Porter stems of a text's words, as the keyword leg sees them (for matched-term shares). */
export function textStems(text: string): Set<string> {
  return new Set(queryWords(text).map(stemOf));
}

/**
 * The dense leg's query: words in more than `maxDocFraction` of the space's memories (speakers' names,
 * role labels) dropped, as they dominate a small encoder's vector. Unchanged below 50 memories or at 1.
 */
export function cleanDenseQuery(
  db: Database.Database,
  spaceId: string,
  text: string,
  maxDocFraction: number,
): { text: string; dropped: string[] } {
  if (maxDocFraction >= 1) return { text, dropped: [] };
  const total = liveInSpace(db, spaceId);
  if (total < 50) return { text, dropped: [] };
  const dropped: string[] = [];
  const dfs = docFrequencies(db);
  const out = text.replace(/[\p{L}\p{N}\p{M}]+/gu, (w) => {
    const lw = w.normalize("NFKC").toLowerCase();
    if (STOPWORDS.has(lw) || lw.length < 2) return w;
    const df = dfs.space(spaceId, lw, stemOf(lw));
    if (df / total > maxDocFraction) {
      dropped.push(w);
      return "";
    }
    return w;
  });
  const cleaned = out.replace(/[ \t]{2,}/g, " ").trim();
  return cleaned && dropped.length ? { text: cleaned, dropped } : { text, dropped: [] };
}
