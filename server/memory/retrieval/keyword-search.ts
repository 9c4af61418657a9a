import type Database from "better-sqlite3";
import { stemmer } from "stemmer";
import { STOPWORDS } from "./stopwords";
import {
  factsLiveInSpace,
  factWrites,
  keywordKey,
  type KeywordKind,
  liveInSpace,
  matchCount,
  matchText,
  spaceWrites,
} from "../store";

export interface KeywordOptions {
  /** Drop a term found in more than this fraction of the space's memories (once it has ≥ 50). */
  maxDocFraction: number;
  /** At most this many terms, the rarest kept. */
  maxTerms: number;
  /** Work cap: terms (rarest first, the rarest always) while their summed df stays within this many postings. */
  maxPostings?: number;
}

export const DEFAULT_KEYWORD_OPTIONS: KeywordOptions = { maxDocFraction: 0.4, maxTerms: 12, maxPostings: 5000 };

export interface KeywordHit {
  rid: number;
  /** FTS5 bm25 over the space's own keyword table (lower is better; negative). */
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
  /**
   * Document frequency within the searched space (docs/retrieval.md#keyword-leg): what bm25's idf, "too
   * common to discriminate" and the posting-list cost are measured in. Every statistic is the space's own:
   * another space's memories (another person's) never move it.
   */
  df: number;
}

/**
 * The FTS5 MATCH expression for a user string: each distinct non-stopword term quoted and OR-ed (never a
 * phrase), terms too common in the space dropped, the rarest `maxTerms` kept; null when no term is left.
 * Without a store (`db` null) nothing is dropped for being common.
 */
export function buildFtsQuery(
  db: Database.Database | null,
  spaceId: string,
  text: string,
  opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS,
): string | null {
  const kept = selectTerms(db, spaceId, text, opts);
  return kept ? kept.map((t) => quoteFtsTerm(t.word)).join(" OR ") : null;
}

/** Rows of a kind in a space (live memories, or live facts): what "too common" and idf are measured against. */
const rowsOf = (db: Database.Database, kind: KeywordKind, spaceId: string) =>
  kind === "memory" ? liveInSpace(db, spaceId) : factsLiveInSpace(db, spaceId);

/** The query terms buildFtsQuery keeps, with their document frequencies; null when none is left. */
function selectTerms(
  db: Database.Database | null,
  spaceId: string,
  text: string,
  opts: KeywordOptions,
  terms: Term[] = [],
  kind: KeywordKind = "memory",
): Term[] | null {
  const seen = new Set<string>();
  const df = db ? docFrequencies(db, spaceId, kind) : null;
  for (const w of queryWords(text)) {
    if (STOPWORDS.has(w) || (w.length < 2 && !/\p{N}/u.test(w))) continue;
    const stem = stemOf(w);
    if (seen.has(stem)) continue;
    seen.add(stem);
    terms.push({ word: w, stem, df: df ? df(w, stem) : 0 });
  }
  if (terms.length === 0) return null;
  let kept = terms;
  if (db) {
    const total = rowsOf(db, kind, spaceId);
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
  return kept;
}

const dfCaches = new WeakMap<Database.Database, Map<string, { df: number; writes: number }>>();

/**
 * A space's document frequencies of one kind (read once per query: its write count). A df is reused while
 * the space cannot have moved it by more than a tenth: every change to one of its memories' (facts') text or
 * liveness counts in its `writes` (`fact_writes`; drizzle/0018, 0019, any process), and only its own.
 * Counting walks the term's posting list (4 ms for a word in every memory at 100K); a rare word is read
 * again after any write, a common one rarely. Keyed by the space's keyword key, so a space deleted and made
 * again starts afresh.
 */
function docFrequencies(
  db: Database.Database,
  spaceId: string,
  kind: KeywordKind = "memory",
): (word: string, stem: string) => number {
  const key = keywordKey(db, spaceId);
  if (key === undefined) return () => 0;
  const writes = kind === "memory" ? spaceWrites(db, spaceId) : factWrites(db, spaceId);
  let cache = dfCaches.get(db);
  if (!cache) dfCaches.set(db, (cache = new Map()));
  const c = cache;
  return (word, stem) => {
    const k = `${kind}\u0000${key}\u0000${stem}`;
    const hit = c.get(k);
    if (hit && writes >= hit.writes && writes - hit.writes <= hit.df / 10) return hit.df;
    const df = matchCount(db, kind, spaceId, quoteFtsTerm(word));
    if (c.size > 50_000) c.clear();
    c.set(k, { df, writes });
    return df;
  };
}

/**
 * FTS5's idf of a term in df of n documents. n is read fresh and df may be a tenth stale (docFrequencies), so
 * df can exceed n: n is read as at least df, or the log turns the turn's features into NaN.
 */
export function fts5Idf(n: number, df: number): number {
  const docs = Math.max(n, df);
  return Math.max(1e-6, Math.log((docs - df + 0.5) / (df + 0.5)));
}

export interface ScoredKeywordHits {
  hits: KeywordHit[];
  /** The query's bm25 ceiling (Σ idf of the kept terms): what linear fusion divides −bm25 by; 0 without terms. */
  ceiling: number;
  /** The kept query terms (Porter stems) with FTS5's idf: what a result's matched-term share is measured in. */
  terms: { stem: string; idf: number }[];
  /** The FTS5 MATCH expression of the kept terms ("" without terms): what the union is scored with (union-scoring.ts). */
  match: string;
  /** Share of the query's words (stopwords aside, before pruning) the space holds at all (0 without words). */
  known: number;
  /** −bm25 of every row (memory, or fact) of the space the expression matches. */
  scores: Map<number, number>;
}

/**
 * BM25-ranked keyword matches within one space, best first, with the query's bm25 ceiling, kept terms and
 * every match's score. `kind` "fact": the space's facts, by their own table's statistics.
 */
export function keywordSearchScored(
  db: Database.Database,
  spaceId: string,
  text: string,
  limit: number,
  opts: KeywordOptions = DEFAULT_KEYWORD_OPTIONS,
  kind: KeywordKind = "memory",
): ScoredKeywordHits {
  const all: Term[] = [];
  const terms = selectTerms(db, spaceId, text, opts, all, kind);
  if (!terms) return { hits: [], ceiling: 0, terms: [], match: "", known: 0, scores: new Map() };
  const known = all.filter((t) => t.df > 0).length / all.length;
  const match = terms.map((t) => quoteFtsTerm(t.word)).join(" OR ");
  const n = rowsOf(db, kind, spaceId);
  const idfs = terms.map((t) => ({ stem: t.stem, idf: fts5Idf(n, t.df) }));
  // Σ idf: the bm25 of a memory holding each kept term once at average length. −bm25 over it says how
  // much of the query a hit matches, whatever the other hits are.
  const scoring = { match, known, ceiling: idfs.reduce((sum, t) => sum + t.idf, 0), terms: idfs };
  // One FTS5 statement scores every match (ORDER BY bm25 computes them all anyway; a `rowid IN` query for
  // the union cost ~100 ms at 10K); the hits are its best `limit`, stable in FTS5's rowid order among equals.
  const rows = matchText(db, kind, spaceId, match);
  const scores = new Map<number, number>();
  for (const r of rows) scores.set(r.rid, -r.bm25);
  return { hits: bestFirst(rows, limit), scores, ...scoring };
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

/** The stems a keyword query would keep from a text: stopwords and one-letter words aside (buildFtsQuery's rule). */
export function contentStems(text: string): Set<string> {
  return new Set(
    queryWords(text)
      .filter((w) => !STOPWORDS.has(w) && (w.length >= 2 || /\p{N}/u.test(w)))
      .map(stemOf),
  );
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
  const df = docFrequencies(db, spaceId);
  const out = text.replace(/[\p{L}\p{N}\p{M}]+/gu, (w) => {
    const lw = w.normalize("NFKC").toLowerCase();
    if (STOPWORDS.has(lw) || lw.length < 2) return w;
    if (df(lw, stemOf(lw)) / total > maxDocFraction) {
      dropped.push(w);
      return "";
    }
    return w;
  });
  const cleaned = out.replace(/[ \t]{2,}/g, " ").trim();
  return cleaned && dropped.length ? { text: cleaned, dropped } : { text, dropped: [] };
}
