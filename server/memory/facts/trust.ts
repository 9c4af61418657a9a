/**
 * Untrusted text proposes; the person decides (issue 54, docs/facts.md#untrusted-text-proposes). Two questions
 * the learning write (apply.ts) asks of every planned fact, from stored structure and scores only:
 *
 * - **Whose words taught it.** A document or an import (the run's kind, or the source memories' kind), or
 *   memories another person wrote into the space (`memories.written_by` is not the space's person), also
 *   when a back-fill reads them: anyone may have written them, so every fact they teach waits as a
 *   proposal, whatever the model says it replaces. (A back-fill's replacements of the person's own words
 *   are proposals too, as before: apply.ts.)
 * - **Whether it brings back a replaced value.** A new fact that replaces nothing, and finds a replaced fact
 *   among the learner's own candidates (the same search, `searchFacts` with the history, the same top
 *   CANDIDATES_PER_EXCHANGE) on both legs, carrying its replaced value (more than half of the words it had
 *   and its replacement lacks, the provenance guard's measure), at least as close to it as its replacement
 *   was (the closeness at which a replacement was judged the same thing) and closer to it than to that
 *   replacement: it would stand beside the current value as current again. Such a fact is a proposal from
 *   any path (chat, /v1, a document). A fact that replaces a current one is a change the provenance guard
 *   already weighs (provenance-guard.ts: the person's own words decide).
 * No word is named here.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { blobToVector } from "../store/rows";
import { CANDIDATES_PER_EXCHANGE } from "./extract";
import type { JobOrigin } from "./queue";
import { replacedValue, termsOf } from "./provenance-guard";
import { sameText } from "./reconcile";
import { cosine, searchFacts } from "./search";

/** Memory kinds whose text someone other than the person may have written: a document's chunk, an import. */
const STORED_KINDS = ["document", "import"];

/**
 * Whether a job's text is someone else's than the space's person: a document's or an import's run, or a
 * source memory that is a document chunk, an import, or another person's writing. A back-fill of the
 * person's own chats and notes is their own words; a back-fill of such memories is not.
 */
export function untrustedJob(
  db: Database.Database,
  spaceId: string,
  origin: JobOrigin | undefined,
  sources: string[],
): boolean {
  if (origin === "document" || origin === "import") return true;
  if (!sources.length) return false;
  return Boolean(
    stmt(
      db,
      `SELECT 1 FROM memories m JOIN spaces s ON s.id = ?
        WHERE m.id IN (SELECT value FROM json_each(?))
          AND (m.kind IN (SELECT value FROM json_each(?)) OR (m.written_by IS NOT NULL AND m.written_by <> s.person_id))
        LIMIT 1`,
    ).get(spaceId, JSON.stringify(sources), JSON.stringify(STORED_KINDS)),
  );
}

function vectorOf(db: Database.Database, factId: string): Float32Array | null {
  const r = stmt(db, "SELECT v.embedding FROM fact_vectors v JOIN facts f ON f.rid = v.rid WHERE f.id = ?").get(
    factId,
  ) as { embedding: Buffer } | undefined;
  return r ? blobToVector(r.embedding) : null;
}

/** A replaced fact's current successor: followed along superseded_by to the fact that is current (or none). */
function currentHead(db: Database.Database, id: string): string | null {
  const next = stmt(
    db,
    "SELECT superseded_by AS s, (deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL) AS cur FROM facts WHERE id = ?",
  );
  let at: string | null = id;
  for (let i = 0; at && i < 100; i++) {
    const r = next.get(at) as { s: string | null; cur: number } | undefined;
    if (!r) return null;
    if (r.cur) return at;
    at = r.s;
  }
  return null;
}

export interface Revival {
  /** The replaced fact it is as close to as its replacement was, and that fact's text. */
  id: string;
  text: string;
}

/**
 * The replaced fact a planned fact would make current again beside its successor, or null. `vector` is the
 * planned fact's embedding (made with `model`); `replaces` the current facts it replaces.
 */
export function revivedBy(
  db: Database.Database,
  spaceId: string,
  fact: { text: string; replaces: string[] },
  vector: Float32Array,
  model: string,
): Revival | null {
  const hits = searchFacts(db, spaceId, { text: fact.text, vector, model }, CANDIDATES_PER_EXCHANGE, {
    history: true,
  });
  // A fact that replaces a current one is a change of it, weighed by the provenance guard, not a revival.
  if (fact.replaces.length) return null;
  const words = termsOf(fact.text);
  for (const h of hits) {
    const f = h.fact;
    if (!f.supersededBy && !f.validTo) continue; // current: the learner listed it already
    if (!currentHead(db, f.id)) continue; // nothing current to stand beside: the value was taken back
    if (sameText(fact.text) === sameText(f.text)) return { id: f.id, text: f.text };
    if (h.bm25 === null || h.cosine === null) continue; // both legs must find it
    const next = f.supersededBy
      ? (stmt(db, "SELECT text FROM facts WHERE id = ?").get(f.supersededBy) as { text: string } | undefined)
      : undefined;
    const own = vectorOf(db, f.id);
    const successor = f.supersededBy ? vectorOf(db, f.supersededBy) : null;
    if (!own || !successor || !next) continue;
    // It carries the replaced value (more than half of the words the old fact had and its replacement
    // lacks), is as close to the old fact as its replacement was, and closer to it than to the replacement:
    // it states the old value again, not the new one (nor something else beside both).
    const value = replacedValue({ text: f.text, successor: next.text });
    const carried = [...value].filter((w) => words.has(w)).length;
    if (carried * 2 <= value.size) continue;
    if (h.cosine >= cosine(own, successor) && h.cosine > cosine(vector, successor)) return { id: f.id, text: f.text };
  }
  return null;
}
