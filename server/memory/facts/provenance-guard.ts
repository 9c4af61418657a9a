/**
 * Provenance guard (issue 47, docs/facts.md#provenance): an assistant restating a replaced value never
 * re-teaches or resurrects it. A reply is written from what was recalled for it, so it can repeat an
 * outdated memory; a model that learns from the whole exchange (the assistant's words too) would then write
 * the replaced fact again, current. The learning prompt asks for the person's words only — this guard holds
 * whatever the model answers.
 *
 * A planned fact from a chat or API exchange is not learned when all of these hold, read from stored
 * structure only:
 * - it **restates a replaced fact**: it says what a superseded fact of the space says, or it carries every
 *   word that fact had and its successor does not (the replaced value: "Ghent" of "lives in Ghent" against
 *   "lives in Valencia");
 * - **the reply was given that fact**: one of its source memories, or the fact itself, is in what was
 *   recalled for the reply (`messages.recalled`) — or in what was recalled for a stored reply it recalled,
 *   and so on (a copy of a copy); an exchange with no such record (the OpenAI-compatible API stores none)
 *   is taken as given everything;
 * - **the person did not say it**: most of the replaced value's words are not in the person's own part of
 *   the exchange (the user message, or the stored speaker spans of the person).
 * No word is named here: the values compared come from the person's own facts and words.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import type { SpeakerSpan } from "../store/chunker";
import { type PlannedFact, sameText } from "./reconcile";

/** A fact that was replaced, with the text of the fact that replaced it. */
interface ReplacedFact {
  id: string;
  text: string;
  successor: string;
}

/** What a job's exchange tells about provenance: the person's words, and what the reply was given. */
export interface ExchangeProvenance {
  /** The person's own words in the exchange (null: the job has no person's words, e.g. a document). */
  personWords: string | null;
  /** Memory ids and fact ids recalled for the reply; null when not recorded (taken as everything). */
  given: { memories: Set<string>; facts: Set<string> } | null;
}

export interface GuardResult {
  keep: number[];
  /** Indexes of the facts not learned, with the replaced fact each restated. */
  dropped: { index: number; restates: string }[];
}

const segmenter = new Intl.Segmenter("und", { granularity: "word" });

/** A text's words, case-folded (Unicode word boundaries). */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const s of segmenter.segment(text.normalize("NFC").toLowerCase())) if (s.isWordLike) out.add(s.segment);
  return out;
}

/** The words a replaced fact had that its successor does not: its replaced value. */
export function replacedValue(f: { text: string; successor: string }): Set<string> {
  const next = termsOf(f.successor);
  return new Set([...termsOf(f.text)].filter((t) => !next.has(t)));
}

/** Whether a planned fact's text restates the replaced fact `f` (its text, or every word of its replaced value). */
export function restates(text: string, f: { text: string; successor: string }): boolean {
  if (sameText(text) === sameText(f.text)) return true;
  const value = replacedValue(f);
  if (!value.size) return false;
  const t = termsOf(text);
  return [...value].every((w) => t.has(w));
}

/**
 * Whether the person's own words carry the replaced fact's value: more than half of its words (one shared
 * word of two is not the value: "learning" in "which language am I learning?" is not "learning the banjo").
 * A replaced fact whose words its successor all has: all of them.
 */
export function personSaid(personWords: string, f: { text: string; successor: string }): boolean {
  const said = termsOf(personWords);
  const value = replacedValue(f);
  if (!value.size) return [...termsOf(f.text)].every((w) => said.has(w));
  const carried = [...value].filter((w) => said.has(w)).length;
  return carried * 2 > value.size;
}

function replacedFacts(db: Database.Database, spaceId: string): ReplacedFact[] {
  return stmt(
    db,
    `SELECT f.id, f.text, s.text AS successor FROM facts f JOIN facts s ON s.id = f.superseded_by
      WHERE f.space_id = ? AND f.deleted_at IS NULL`,
  ).all(spaceId) as ReplacedFact[];
}

function sourcesOf(db: Database.Database, factId: string): string[] {
  return (stmt(db, "SELECT memory_id FROM fact_sources WHERE fact_id = ?").all(factId) as { memory_id: string }[]).map(
    (r) => r.memory_id,
  );
}

/** The job's exchange: its origin, its reply (when a chat reply recorded it) and its source memories. */
function jobOf(db: Database.Database, jobId: number): { origin: string; messageId: string | null } | undefined {
  return stmt(db, "SELECT origin, message_id AS messageId FROM fact_jobs WHERE id = ?").get(jobId) as
    | { origin: string; messageId: string | null }
    | undefined;
}

/** A chat reply's user message (the one before it in its conversation) and what was recalled for it. */
function replyOf(
  db: Database.Database,
  messageId: string,
): { user: string | null; recalled: string | null; sent: string | null } | undefined {
  return stmt(
    db,
    `SELECT a.recalled, a.sent,
            (SELECT u.content FROM messages u WHERE u.conversation_id = a.conversation_id AND u.role = 'user'
               AND (u.created_at < a.created_at OR (u.created_at = a.created_at AND u.rowid < a.rowid))
             ORDER BY u.created_at DESC, u.rowid DESC LIMIT 1) AS user
       FROM messages a WHERE a.id = ? AND a.role = 'assistant'`,
  ).get(messageId) as { user: string | null; recalled: string | null; sent: string | null } | undefined;
}

/** The person's words stored with a job's source memories (their speaker spans of role user). */
function personWordsOfSources(db: Database.Database, jobId: number): string | null {
  const rows = stmt(
    db,
    `SELECT m.content, m.speakers FROM fact_job_sources j JOIN memories m ON m.id = j.memory_id
      WHERE j.job_id = ? ORDER BY j.ord`,
  ).all(jobId) as { content: string; speakers: string | null }[];
  const words: string[] = [];
  for (const r of rows) {
    let spans: SpeakerSpan[] = [];
    try {
      spans = r.speakers ? (JSON.parse(r.speakers) as SpeakerSpan[]) : [];
    } catch {
      spans = [];
    }
    for (const s of spans) if (s.role === "user") words.push(r.content.slice(s.start, s.end));
  }
  return words.length ? words.join("\n") : null;
}

/** How many stored replies back a copy is followed (a reply restating a reply restating a memory…). */
const COPY_DEPTH = 8;

/** What was recalled for the stored chat reply whose exchange memory this is (messages.memory_ids). */
function recalledOfExchangeMemory(db: Database.Database, memoryId: string): ExchangeProvenance["given"] {
  const r = stmt(
    db,
    `SELECT a.recalled, a.sent FROM memories m
       JOIN messages a ON a.conversation_id = m.conversation_id AND a.role = 'assistant' AND a.recalled IS NOT NULL
      WHERE m.id = ? AND a.memory_ids IS NOT NULL AND json_valid(a.memory_ids)
        AND EXISTS (SELECT 1 FROM json_each(a.memory_ids) j WHERE j.value = m.id)
      LIMIT 1`,
  ).get(memoryId) as { recalled: string; sent: string | null } | undefined;
  return r ? givenOf(r.recalled, r.sent) : null;
}

/**
 * What a reply was given, followed through the stored replies it recalled: a recalled exchange whose own
 * reply restated recall carries that recall too (a copy of a copy is still the old memory's value).
 */
function givenThrough(db: Database.Database, first: ExchangeProvenance["given"]): ExchangeProvenance["given"] {
  if (!first) return null;
  let frontier = [...first.memories];
  for (let depth = 0; depth < COPY_DEPTH && frontier.length; depth++) {
    const next: string[] = [];
    for (const m of frontier) {
      const more = recalledOfExchangeMemory(db, m);
      for (const f of more?.facts ?? []) first.facts.add(f);
      for (const id of more?.memories ?? [])
        if (!first.memories.has(id)) {
          first.memories.add(id);
          next.push(id);
        }
    }
    frontier = next;
  }
  return first;
}

/**
 * What a reply was given: its recalled memories and the facts they carried (messages.recalled), and the
 * facts its prompt stated on their own — the facts leg's and the profile's, listed in its Sent to record
 * (messages.sent `facts`).
 */
function givenOf(recalled: string | null, sent: string | null = null): ExchangeProvenance["given"] {
  if (!recalled) return null;
  try {
    const list = JSON.parse(recalled) as unknown;
    const memories = new Set<string>();
    const facts = new Set<string>(sentFacts(sent));
    if (!Array.isArray(list)) return { memories, facts }; // a command's reply: given no memory
    for (const m of list as { id?: unknown; fact?: { id?: unknown } }[]) {
      if (typeof m?.id === "string") memories.add(m.id);
      if (typeof m?.fact?.id === "string") facts.add(m.fact.id);
    }
    return { memories, facts };
  } catch {
    return null;
  }
}

/** The fact ids a Sent to record lists (none when it has none or is damaged). */
function sentFacts(sent: string | null): string[] {
  if (!sent) return [];
  try {
    const v = JSON.parse(sent) as { facts?: unknown };
    return Array.isArray(v?.facts) ? v.facts.filter((f): f is string => typeof f === "string") : [];
  } catch {
    return [];
  }
}

/** What a job's exchange says about provenance (stored structure only). */
export function exchangeProvenance(db: Database.Database, jobId: number): ExchangeProvenance {
  const job = jobOf(db, jobId);
  if (!job || (job.origin !== "chat" && job.origin !== "api")) return { personWords: null, given: null };
  const reply = job.messageId ? replyOf(db, job.messageId) : undefined;
  if (reply?.user) return { personWords: reply.user, given: givenThrough(db, givenOf(reply.recalled, reply.sent)) };
  return { personWords: personWordsOfSources(db, jobId), given: null };
}

/**
 * Which of one exchange's planned facts may be learned. Only an exchange with a person's words is guarded:
 * a document or an import is the person's own text throughout.
 */
export function guardRestatedValues(
  db: Database.Database,
  spaceId: string,
  jobId: number,
  facts: Pick<PlannedFact, "text">[],
): GuardResult {
  const all = facts.map((_, i) => i);
  if (!facts.length) return { keep: all, dropped: [] };
  const prov = exchangeProvenance(db, jobId);
  if (prov.personWords === null) return { keep: all, dropped: [] };
  const given = prov.given;
  const wasGiven = (f: ReplacedFact) =>
    !given || given.facts.has(f.id) || sourcesOf(db, f.id).some((m) => given.memories.has(m));
  const replaced = replacedFacts(db, spaceId);
  const keep: number[] = [];
  const dropped: GuardResult["dropped"] = [];
  facts.forEach((p, i) => {
    const hit = replaced.find((f) => restates(p.text, f) && !personSaid(prov.personWords!, f) && wasGiven(f));
    if (hit) dropped.push({ index: i, restates: hit.id });
    else keep.push(i);
  });
  return { keep, dropped };
}
