/**
 * A fact's index rows: its vector (fact_vectors) and its keyword row (the space's kw_f_<n> table, both keyed
 * by facts.rid). A live fact has both; a forgotten one has neither (its vector parked in fact_vector_trash so
 * a restore needs no embedder). Every change to them goes through here, inside the caller's transaction.
 */
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { stmt } from "../../core/statements";
import { indexText, unindexText } from "../store/keyword-index";

export interface IndexedFact {
  rid: number;
  spaceId: string;
  text: string;
}

/** Index a new live fact: its vector and keyword row. */
export function indexFact(db: Database.Database, f: IndexedFact, embedding: Buffer): void {
  stmt(db, "INSERT INTO fact_vectors (rid, space_id, embedding) VALUES (?, ?, ?)").run(f.rid, f.spaceId, embedding);
  indexText(db, "fact", f.spaceId, f.rid, f.text);
}

/** Take a fact out of every index: the vector is parked, the keyword row removed. */
export function unindexFact(db: Database.Database, f: IndexedFact): void {
  const v = stmt(db, "SELECT embedding FROM fact_vectors WHERE rid = ?").get(f.rid) as
    | { embedding: Buffer }
    | undefined;
  if (v) stmt(db, "INSERT OR REPLACE INTO fact_vector_trash (rid, embedding) VALUES (?, ?)").run(f.rid, v.embedding);
  stmt(db, "DELETE FROM fact_vectors WHERE rid = ?").run(f.rid);
  unindexText(db, "fact", f.spaceId, f.rid);
}

/** Put a forgotten fact back into the indexes from its parked vector. */
export function reindexFact(db: Database.Database, f: IndexedFact): void {
  const v = stmt(db, "SELECT embedding FROM fact_vector_trash WHERE rid = ?").get(f.rid) as
    | { embedding: Buffer }
    | undefined;
  if (!v) throw new StoreError(`fact rid ${f.rid} has no parked vector to restore`, "INVALID");
  stmt(db, "DELETE FROM fact_vector_trash WHERE rid = ?").run(f.rid);
  indexFact(db, f, v.embedding);
}

/** A fact's vector, live or parked (a re-embed replaces whichever it has). */
export function replaceFactVector(db: Database.Database, rid: number, embedding: Buffer): void {
  const live = stmt(db, "UPDATE fact_vectors SET embedding = ? WHERE rid = ?").run(embedding, rid).changes;
  if (!live) stmt(db, "UPDATE fact_vector_trash SET embedding = ? WHERE rid = ?").run(embedding, rid);
}
