/**
 * What makes two facts the same statement (server/memory/facts/duplicates.ts). No dependencies: the "What Memo
 * knows" page imports it too, to tell a merged duplicate in a fact's history from a value that changed.
 */

/** Articles: the only words a fact can gain or lose and still say exactly the same ("Is a vegetarian"). */
const ARTICLES = new Set(["a", "an", "the"]);

/**
 * A fact's text reduced to what says something: Unicode-normalised (NFKC), lower-cased, punctuation and
 * spacing dropped (every run of characters that are neither letters nor digits is one separator), articles
 * dropped. Word order, negations and numbers are kept: "Is not vegetarian" and "Is vegetarian" differ.
 */
export function duplicateKey(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !ARTICLES.has(w))
    .join(" ");
}
