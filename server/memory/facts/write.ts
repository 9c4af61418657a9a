/**
 * Writing facts: each new fact with its sources, its vector and its keyword row, and the facts it replaces
 * marked, all in ONE transaction (a throw anywhere leaves nothing). Every input is checked before anything is
 * written; a bad one fails the whole call with a message that says which item and why.
 */
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { StoreError } from "../../core/errors";
import { stmt } from "../../core/statements";
import { dateRangeMessage, keptIso } from "../../core/dates";
import { contentHash, nowIso, vecBlob } from "../store/rows";
import { requireWritableSpace, writerFor } from "../store/shares";
import { ensureSpace } from "../store/spaces";
import { spacePersonOf } from "../../core/space-name";
import { indexFact } from "./indexing";
import {
  FACT_ORIGINS,
  MAX_FACT_CHARS,
  MAX_FACT_REPLACES,
  MAX_FACT_SOURCES,
  MAX_FACTS_PER_CALL,
  type NewFact,
} from "./rows";
import { deriveValidFrom } from "./valid-from";

const invalid = (msg: string) => new StoreError(msg, "INVALID");

interface Checked {
  text: string;
  hash: string;
  sources: string[];
  validFrom: string;
  replaces: string[];
  origin: NewFact["origin"];
}

/** Check one item against the store: its sources live memories of the space, what it replaces current facts there. */
function checkItem(
  db: Database.Database,
  spaceId: string,
  it: NewFact,
  i: number,
  replacedInCall: Set<string>,
): Checked {
  const at = `items[${i}]`;
  const text = typeof it.text === "string" ? it.text.trim() : "";
  if (text.length === 0) throw invalid(`${at}.text must not be empty`);
  if (text.length > MAX_FACT_CHARS) throw invalid(`${at}.text must be at most ${MAX_FACT_CHARS} characters`);
  if (text.includes("\u0000")) throw invalid(`${at}.text must not contain NUL characters`);
  if (!FACT_ORIGINS.includes(it.origin)) throw invalid(`${at}.origin must be one of ${FACT_ORIGINS.join(", ")}`);
  const sources = [...new Set(it.sources ?? [])];
  if (sources.length === 0) throw invalid(`${at}.sources must name at least one memory`);
  if (sources.length > MAX_FACT_SOURCES) throw invalid(`${at}.sources: at most ${MAX_FACT_SOURCES} memories`);
  // The same message for a memory that does not exist, is in the trash, is in another space or is another
  // person's: nothing here tells them apart.
  const source = stmt(db, "SELECT timestamp FROM memories WHERE id = ? AND space_id = ? AND soft_deleted = 0");
  const times = sources.map((id) => {
    const m = source.get(id, spaceId) as { timestamp: string } | undefined;
    if (!m) throw invalid(`${at}.sources: memory ${id} is not a live memory of this space`);
    return m.timestamp;
  });
  const replaces = [...new Set(it.replaces ?? [])];
  if (replaces.length > MAX_FACT_REPLACES) throw invalid(`${at}.replaces: at most ${MAX_FACT_REPLACES} facts`);
  const current = stmt(
    db,
    "SELECT 1 FROM facts WHERE id = ? AND space_id = ? AND deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL",
  );
  for (const id of replaces) {
    if (!current.get(id, spaceId)) throw invalid(`${at}.replaces: fact ${id} is not a current fact of this space`);
    if (replacedInCall.has(id)) throw invalid(`${at}.replaces: fact ${id} is replaced by another item too`);
    replacedInCall.add(id);
  }
  let validFrom: string;
  if (it.validFrom !== undefined) {
    const t = Date.parse(it.validFrom);
    if (typeof it.validFrom !== "string" || Number.isNaN(t))
      throw invalid(`${at}.validFrom must be an ISO-8601 date or date-time`);
    const kept = keptIso(it.validFrom);
    if (kept === null) throw invalid(dateRangeMessage(`${at}.validFrom`));
    validFrom = kept;
  } else validFrom = deriveValidFrom(text, times);
  return { text, hash: contentHash(text), sources, validFrom, replaces, origin: it.origin };
}

/**
 * Who wrote a learned fact's sources, as facts.written_by says it (null: the space's person): their one
 * writer (memories.written_by, else the space's person), or `fallback` when they have several.
 */
function sourcesWriter(
  db: Database.Database,
  spaceId: string,
  sources: string[],
  fallback: string | null,
): string | null {
  const person = spacePersonOf(spaceId);
  const writers = new Set(
    (
      stmt(
        db,
        "SELECT DISTINCT coalesce(written_by, ?) AS w FROM memories WHERE id IN (SELECT value FROM json_each(?))",
      ).all(person, JSON.stringify(sources)) as { w: string }[]
    ).map((r) => r.w),
  );
  if (writers.size !== 1) return fallback;
  const [w] = writers;
  return w === person ? null : w!;
}

/**
 * Write facts into one space with their vectors (one per item, made with `model`), in one transaction.
 * A fact whose text is already a current fact of the space (and that replaces nothing) is not stored twice:
 * its sources are added to the existing fact and that id is returned. Returns the ids in input order.
 * The space must be writable by the acting person (their own, or shared read-write).
 */
export function insertFacts(
  db: Database.Database,
  spaceId: string,
  items: NewFact[],
  vectors: Float32Array[],
  model: string,
): string[] {
  if (items.length === 0) throw invalid("items must not be empty");
  if (items.length > MAX_FACTS_PER_CALL) throw invalid(`at most ${MAX_FACTS_PER_CALL} facts per call`);
  if (items.length !== vectors.length) throw invalid("one vector per fact is required");
  const insert = stmt(
    db,
    `INSERT INTO facts (id, rid, space_id, text, content_hash, valid_from, recorded_at, origin, written_by, embedding_model)
     VALUES (@id, @rid, @spaceId, @text, @hash, @validFrom, @recordedAt, @origin, @writtenBy, @model)`,
  );
  const addSource = stmt(db, "INSERT OR IGNORE INTO fact_sources (fact_id, memory_id) VALUES (?, ?)");
  const sameText = stmt(
    db,
    `SELECT id FROM facts WHERE space_id = ? AND content_hash = ? AND deleted_at IS NULL
       AND superseded_by IS NULL AND valid_to IS NULL LIMIT 1`,
  );
  const supersede = stmt(
    db,
    `UPDATE facts SET superseded_by = @by, valid_to = max(valid_from, @validFrom)
      WHERE id = @id AND deleted_at IS NULL AND superseded_by IS NULL`,
  );
  const maxRid = stmt(db, "SELECT coalesce(max(rid), 0) AS r FROM facts");
  return db.transaction(() => {
    requireWritableSpace(db, spaceId);
    ensureSpace(db, spaceId);
    const replaced = new Set<string>();
    const checked = items.map((it, i) => checkItem(db, spaceId, it, i, replaced));
    let rid = (maxRid.get() as { r: number }).r;
    const recordedAt = nowIso();
    const writtenBy = writerFor(spaceId);
    return checked.map((c, i) => {
      // A learned fact is by whoever wrote its sources (issue 54): the owner's back-fill learning from Bob's
      // memory in the owner's space records Bob, not the owner (or nobody).
      const by = c.origin === "learned" ? sourcesWriter(db, spaceId, c.sources, writtenBy) : writtenBy;
      const existing =
        c.replaces.length === 0 ? (sameText.get(spaceId, c.hash) as { id: string } | undefined) : undefined;
      if (existing) {
        for (const m of c.sources) addSource.run(existing.id, m);
        return existing.id;
      }
      const id = crypto.randomUUID();
      rid++;
      insert.run({
        id,
        rid,
        spaceId,
        text: c.text,
        hash: c.hash,
        validFrom: c.validFrom,
        recordedAt,
        origin: c.origin,
        writtenBy: by,
        model,
      });
      for (const m of c.sources) addSource.run(id, m);
      indexFact(db, { rid, spaceId, text: c.text }, vecBlob(vectors[i]!));
      for (const old of c.replaces) supersede.run({ by: id, validFrom: c.validFrom, id: old });
      return id;
    });
  })();
}

/**
 * Mark the facts among `ids` made after `afterRid` (the largest rid before the write) as a learning run's own:
 * what undoing the run takes back. A fact that only gained a source (its text was already a fact) is older,
 * so it is not taken.
 */
export function markLearnedInRun(db: Database.Database, runId: string, ids: string[], afterRid: number): void {
  stmt(db, "UPDATE facts SET learn_run_id = ? WHERE id IN (SELECT value FROM json_each(?)) AND rid > ?").run(
    runId,
    JSON.stringify(ids),
    afterRid,
  );
}

/** The largest fact rid so far (0 for none): taken before a write, for markLearnedInRun. */
export function maxFactRid(db: Database.Database): number {
  return (stmt(db, "SELECT coalesce(max(rid), 0) AS r FROM facts").get() as { r: number }).r;
}

/** Facts written by `personId` name `replacement` instead (a removed person's facts in others' spaces). */
export function reassignFactsWrittenBy(db: Database.Database, personId: string, replacement: string): number {
  return stmt(db, "UPDATE facts SET written_by = ? WHERE written_by = ?").run(replacement, personId).changes;
}

/**
 * The facts `factId` replaced are current again (insertFacts' supersession undone: the later fact is being
 * undone or forgotten by a person). Returns how many.
 */
export function reopenReplacedBy(db: Database.Database, factId: string): number {
  return stmt(
    db,
    "UPDATE facts SET superseded_by = NULL, valid_to = NULL WHERE superseded_by = ? AND deleted_at IS NULL",
  ).run(factId).changes;
}
