/**
 * Duplicate facts (issue 42 item 5), for consolidation (server/memory/lifecycle/consolidate.ts): current
 * facts of ONE space written by ONE person that say the same thing are merged into the oldest of them — it
 * keeps its text and validFrom and gains the others' sources; each other one becomes its history (replaced
 * by it, with valid_to = its own valid_from: it never held apart from the older fact, so no question about a
 * time brings it back as an old value). A merge records what it added, and unmergeFacts undoes it exactly.
 *
 * "The same thing" is the same normalised text (duplicateKey). Cosine similarity does not separate
 * duplicates from facts that differ in the one word that matters: measured on the bundled embedding model,
 * "Birthday is on 12 March" / "Birthday is on 12 May" reach 0.986 and "Moved to Lisbon after the wedding" /
 * "… before the wedding" 0.984, while true duplicates fall to 0.54 (docs/jobs.md#duplicate-facts), so no
 * threshold merges duplicates without merging different facts; a model call is not needed either.
 */
import type Database from "better-sqlite3";
import { writableScan } from "../../core/acting";
import { stmt } from "../../core/statements";
import { nowIso, writeTransaction } from "../store/rows";
import { forgetWithHistory, purgeFactRows } from "./forgetting";
import { duplicateKey } from "./duplicate-key";
import { earlierVersions } from "./lineage";

export { duplicateKey };

interface FactBrief {
  id: string;
  text: string;
  validFrom: string;
  contentHash: string;
}

/** A current fact that says what an older one of its space and person says: `merge` goes into `keep`. */
export interface FactDuplicate {
  spaceId: string;
  keep: FactBrief;
  merge: FactBrief;
}

/** What a merge did, enough to undo it (kept in the consolidation run's result). */
export interface FactMergeRecord {
  spaceId: string;
  keep: string;
  merged: string;
  keepText: string;
  mergedText: string;
  /** Sources of the merged fact the kept one did not have (removed again by the undo). */
  addedSources: string[];
  /** The merged fact's confirmation, carried over to a kept fact that had none (cleared again by the undo). */
  confirmedAt: string | null;
}

interface CurrentRow extends FactBrief {
  writer: string;
}

/** The current facts of a space, oldest first, with the person who wrote each. */
function currentFacts(db: Database.Database, spaceId: string): CurrentRow[] {
  return stmt(
    db,
    `SELECT f.id, f.text, f.valid_from AS validFrom, f.content_hash AS contentHash,
            coalesce(f.written_by, sp.person_id) AS writer
       FROM facts f JOIN spaces sp ON sp.id = f.space_id
      WHERE f.space_id = ? AND f.deleted_at IS NULL AND f.superseded_by IS NULL AND f.valid_to IS NULL
        AND ${writableScan("f.space_id")}
      ORDER BY f.valid_from, f.recorded_at, f.rid`,
  ).all(spaceId) as CurrentRow[];
}

/**
 * The duplicate current facts of a space: for each group of facts with one writer and one duplicateKey,
 * the oldest (earliest validFrom, then the first recorded) is kept and each other one is paired with it.
 * `compared` is how many current facts were looked at.
 */
export function findDuplicateFacts(
  db: Database.Database,
  spaceId: string,
): { compared: number; duplicates: FactDuplicate[] } {
  const rows = currentFacts(db, spaceId);
  const oldest = new Map<string, CurrentRow>();
  const duplicates: FactDuplicate[] = [];
  const brief = ({ id, text, validFrom, contentHash }: CurrentRow): FactBrief => ({ id, text, validFrom, contentHash });
  for (const r of rows) {
    const key = duplicateKey(r.text);
    if (!key) continue;
    // The writer is part of the key: a read-write sharee's facts in this space are never merged with its person's.
    const group = `${r.writer}\u0000${key}`;
    const kept = oldest.get(group);
    if (kept) duplicates.push({ spaceId, keep: brief(kept), merge: brief(r) });
    else oldest.set(group, r);
  }
  return { compared: rows.length, duplicates };
}

/**
 * Merge one duplicate in one transaction: the kept fact gains the merged one's sources (and its confirmation
 * if it had none); the merged one is replaced by it. Only while both are current, unchanged (content hash),
 * in the space, of one writer and still duplicates; returns null (nothing written) otherwise.
 */
export function mergeDuplicateFact(db: Database.Database, d: FactDuplicate): FactMergeRecord | null {
  return writeTransaction(db, () => {
    const rows = currentFacts(db, d.spaceId);
    const keep = rows.find((r) => r.id === d.keep.id);
    const merge = rows.find((r) => r.id === d.merge.id);
    if (!keep || !merge || keep.contentHash !== d.keep.contentHash || merge.contentHash !== d.merge.contentHash)
      return null;
    if (keep.writer !== merge.writer || duplicateKey(keep.text) !== duplicateKey(merge.text)) return null;
    const sourcesOf = (id: string) =>
      (stmt(db, "SELECT memory_id AS m FROM fact_sources WHERE fact_id = ?").all(id) as { m: string }[]).map(
        (r) => r.m,
      );
    const had = new Set(sourcesOf(keep.id));
    const added = sourcesOf(merge.id).filter((m) => !had.has(m));
    const addSource = stmt(db, "INSERT INTO fact_sources (fact_id, memory_id) VALUES (?, ?)");
    for (const m of added) addSource.run(keep.id, m);
    const confirmed = stmt(db, "SELECT confirmed_at AS c FROM facts WHERE id = ?");
    const keptConfirmed = (confirmed.get(keep.id) as { c: string | null }).c;
    const mergedConfirmed = (confirmed.get(merge.id) as { c: string | null }).c;
    const carried = keptConfirmed === null ? mergedConfirmed : null;
    if (carried !== null) stmt(db, "UPDATE facts SET confirmed_at = ? WHERE id = ?").run(carried, keep.id);
    stmt(
      db,
      "UPDATE facts SET superseded_by = ?, valid_to = max(valid_from, ?) WHERE id = ? AND superseded_by IS NULL",
    ).run(keep.id, keep.validFrom, merge.id);
    return {
      spaceId: d.spaceId,
      keep: keep.id,
      merged: merge.id,
      keepText: keep.text,
      mergedText: merge.text,
      addedSources: added,
      confirmedAt: carried,
    };
  });
}

/**
 * Undo merges (inside the caller's transaction), latest first: each merged fact that is still the kept
 * one's replaced, live version is current again, the kept fact loses the sources and the confirmation the
 * merge gave it, and a kept fact left without a live source then goes as any fact does (server/memory/facts/
 * cascade.ts's rules: none stored, deleted with its history; none live, forgotten). A merged fact that was
 * forgotten or purged since is not brought back; its id is returned in `missing`, and that merge is left as it is.
 */
export function unmergeFacts(
  db: Database.Database,
  merges: FactMergeRecord[],
  at: string = nowIso(),
): { restored: number; missing: string[] } {
  const missing: string[] = [];
  let restored = 0;
  const isMergedInto = stmt(db, "SELECT 1 FROM facts WHERE id = ? AND superseded_by = ? AND deleted_at IS NULL");
  const current = stmt(db, "UPDATE facts SET superseded_by = NULL, valid_to = NULL WHERE id = ?");
  const dropSource = stmt(db, "DELETE FROM fact_sources WHERE fact_id = ? AND memory_id = ?");
  const unconfirm = stmt(db, "UPDATE facts SET confirmed_at = NULL WHERE id = ? AND confirmed_at = ?");
  const sourceCount = stmt(
    db,
    `SELECT count(*) AS n, coalesce(sum(m.soft_deleted = 0), 0) AS live FROM fact_sources s
       LEFT JOIN memories m ON m.id = s.memory_id WHERE s.fact_id = ?`,
  );
  const isLive = stmt(db, "SELECT 1 FROM facts WHERE id = ? AND deleted_at IS NULL");
  for (const r of [...merges].reverse()) {
    if (!isMergedInto.get(r.merged, r.keep)) {
      missing.push(r.merged);
      continue;
    }
    current.run(r.merged);
    for (const m of r.addedSources) dropSource.run(r.keep, m);
    if (r.confirmedAt !== null) unconfirm.run(r.keep, r.confirmedAt);
    restored++;
    const { n, live } = sourceCount.get(r.keep) as { n: number; live: number };
    if (n === 0) purgeFactRows(db, [r.keep, ...earlierVersions(db, [r.keep])]);
    else if (live === 0 && isLive.get(r.keep)) forgetWithHistory(db, [r.keep], "sources", at);
  }
  return { restored, missing };
}
