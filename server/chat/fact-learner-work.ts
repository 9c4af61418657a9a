/**
 * What one fact-learning job learns from (fact-learner.ts runs the jobs): the exchange, verbatim, with what each
 * speaker said, and the person's current facts it is checked against — the facts a new one may replace.
 */
import type Database from "better-sqlite3";
import type { MemoContext } from "../core/context";
import { CANDIDATES_PER_EXCHANGE, type CandidateFact } from "../memory/facts/extract";
import { type FactJob, jobSources } from "../memory/facts/queue";
import { searchFacts } from "../memory/facts/store";
import { chatParts, saidText } from "../memory/store/chunker";
import { stripCutNote } from "./cut-short";
import type { EmbeddedTexts } from "./embedded-texts";

export interface Work {
  job: FactJob;
  text: string;
  sources: string[];
  /** What each speaker said (a chat exchange's message and reply), when the exchange has that structure. */
  parts?: string[];
  /**
   * The text to look the whole exchange up by: its one stored memory's text when it was stored whole (the text
   * the store embedded, whitespace folded), so the vector the write made serves the look-up too; else `text`.
   */
  lookup?: string;
}

/** The exchange a job learns from, verbatim: the chat messages when they are there, else its live memories. */
export function exchangeText(db: Database.Database, job: FactJob): Omit<Work, "job"> | null {
  const sources = jobSources(db, job.id).filter((s) => s.live);
  if (!sources.length) return null;
  if (job.messageId) {
    const r = db
      .prepare(
        `SELECT a.content AS assistant,
                (SELECT u.content FROM messages u WHERE u.conversation_id = a.conversation_id AND u.role = 'user'
                   AND (u.created_at < a.created_at OR (u.created_at = a.created_at AND u.rowid < a.rowid))
                 ORDER BY u.created_at DESC, u.rowid DESC LIMIT 1) AS user
           FROM messages a WHERE a.id = ?`,
      )
      .get(job.messageId) as { assistant: string; user: string | null } | undefined;
    if (r?.user) {
      const reply = stripCutNote(r.assistant);
      const lookup = sources.length === 1 ? sources[0]!.content : undefined;
      return {
        text: saidText(chatParts(r.user, reply)),
        sources: sources.map((s) => s.id),
        parts: [r.user, reply],
        lookup,
      };
    }
  }
  return { text: sources.map((s) => s.content).join("\n"), sources: sources.map((s) => s.id) };
}

/**
 * The person's similar current facts: what each new fact may replace — looked up for the whole exchange and
 * for what each speaker said (a long reply's words must not crowd out the message's). One text per embedding,
 * `replyBegan` asked before each: a reply that begins meanwhile waits for one text's embedding at most (the
 * embedder serves one request at a time), and the look-up stops (null). A text the exchange already has a
 * vector for (`embedded`: what its turn offered) is not embedded again. Throws when the embedder fails.
 */
export async function lookUpKnownFacts(
  memo: MemoContext,
  group: Work[],
  embedded: EmbeddedTexts[],
  replyBegan: () => boolean,
): Promise<CandidateFact[] | null> {
  const spaceId = group[0]!.job.spaceId;
  const lookups = group.flatMap((w) => [w.lookup ?? w.text, ...(w.parts ?? [])].map((t) => t.slice(0, 4000)));
  const byId = new Map<string, CandidateFact>();
  const { model } = await memo.embedder.info();
  for (const text of lookups) {
    if (replyBegan()) return null;
    const known = embedded.map((e) => e.queryVector(model, text)).find(Boolean);
    const vector = known ?? (await memo.embedder.embedQueries([text]))[0]!;
    for (const h of searchFacts(memo.db, spaceId, { text, vector }, CANDIDATES_PER_EXCHANGE))
      byId.set(h.fact.id, { id: h.fact.id, text: h.fact.text });
  }
  return [...byId.values()];
}
