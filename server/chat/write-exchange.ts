/**
 * Writing one chat exchange as memories (the queue that retries it is exchange-queue.ts): the exchange and where
 * its persistence is recorded, the write itself (one transaction that also records it, removes the
 * exchanges it replaces and queues fact learning), and the records read by recovery and the chat page.
 */
import type Database from "better-sqlite3";
import type { MemoContext } from "../core/context";
import { chatParts, saidText } from "../memory/store/chunker";
import { nowIso, purgeMemories, writeTransaction } from "../memory/store";
import { addMemories } from "../memory/store/add";
import { exchangeNovelty, hasSources, recordProvenance, type Provenance } from "../memory/store/provenance";
import { stripCutNote } from "./cut-short";
import { EmbeddedTexts } from "./embedded-texts";
import { decideLearning, isDecided, queueLearning, type LearnFrom, type LearningDecision } from "./learning-decision";
import { resolveProviderConfig } from "./providers";

/** Where an exchange's persistence is recorded. */
export type ExchangeRecord = { messageId: string } | { pendingId: string };

/** The note turn.ts appends to a reply cut short (cut-short.ts); it stays on the message, never in the memory text. */
export const stripInterruptedNote = stripCutNote;

export interface ExchangeJob {
  space: string;
  conversationId: string | null;
  user: string;
  assistant: string;
  /** When the exchange happened (the user message's time). */
  timestamp: string;
  /** Where it came from, for logs: the chat page, the OpenAI-compatible API, recovery. */
  source: string;
  /** Where its persistence is recorded (absent: not recorded, e.g. scripts writing ad-hoc exchanges). */
  record?: ExchangeRecord;
  /**
   * Regenerate, Retry, Edit: the recorded memories of the exchanges this one replaces, removed in the
   * same transaction that writes (and records) this one. With an empty user/assistant, the job only removes them.
   */
  replaces?: string[];
  /**
   * Learn facts from it (docs/facts.md): the provider (and model) the conversation used; null: the selected
   * one. Set by turns that store memory (never by temporary chats or turns whose memory switch is off); a turn
   * hands it over decided (learning-decision.ts). The job is queued in the transaction that stores the
   * exchange, when a model may learn from it now.
   */
  learn?: LearnFrom | LearningDecision;
  /** The vectors the turn already has (its recall's); the write adds its chunks' and the learner reuses them. */
  embedded?: EmbeddedTexts;
  /**
   * What the reply was given: the memories and facts recalled into its prompt (docs/retrieval.md#provenance).
   * Recorded on the exchange's memories with the share of its content that is new relative to them.
   */
  recalled?: Provenance;
}

/** The memory ids recorded for an exchange, or null while it is not recorded as persisted (or is gone: []). */
function recordedIds(db: Database.Database, record: ExchangeRecord): string[] | null {
  if ("messageId" in record) {
    const r = db
      .prepare("SELECT persisted_at AS at, memory_ids AS ids FROM messages WHERE id = ?")
      .get(record.messageId) as { at: string | null; ids: string | null } | undefined;
    if (!r) return []; // the conversation was deleted meanwhile: nothing of it may be written
    return r.at ? (JSON.parse(r.ids ?? "[]") as string[]) : null;
  }
  const pending = db.prepare("SELECT 1 FROM pending_exchanges WHERE id = ?").get(record.pendingId);
  return pending ? null : [];
}

/** Inside the memories' transaction: record that the exchange is persisted, as these memories. */
function recordPersisted(db: Database.Database, record: ExchangeRecord, ids: string[]): void {
  if ("messageId" in record) {
    db.prepare("UPDATE messages SET persisted_at = ?, memory_ids = ? WHERE id = ?").run(
      nowIso(),
      JSON.stringify(ids),
      record.messageId,
    );
  } else {
    db.prepare("DELETE FROM pending_exchanges WHERE id = ?").run(record.pendingId);
  }
}

/**
 * Mark an assistant message as needing no memory (a memory command's answer, an empty reply), so
 * recovery never considers it.
 */
export function markExchangeSettled(db: Database.Database, messageId: string): void {
  db.prepare("UPDATE messages SET persisted_at = ?, memory_ids = '[]' WHERE id = ? AND persisted_at IS NULL").run(
    nowIso(),
    messageId,
  );
}

/**
 * Remove the memories an exchange was persisted as (regenerate / edit replace an exchange: remove its
 * memories by message id, then persist the new reply under its own message). Purges them from every
 * table and keeps the message recorded as persisted with no memories, in one transaction. Returns how
 * many memories were purged.
 */
export function removeExchangeMemories(db: Database.Database, messageId: string): number {
  return db.transaction(() => {
    const ids = recordedIds(db, { messageId }) ?? [];
    // Only the chat memories written for this conversation: a chunk that deduplicated onto an older
    // memory of another kind (a /remember) is not this exchange's to remove.
    const own = ids.filter((id) =>
      db
        .prepare(
          "SELECT 1 FROM memories m JOIN messages g ON g.id = ? WHERE m.id = ? AND m.kind = 'chat' AND m.conversation_id = g.conversation_id",
        )
        .get(messageId, id),
    );
    const n = own.length ? purgeMemories(db, own) : 0;
    db.prepare("UPDATE messages SET persisted_at = coalesce(persisted_at, ?), memory_ids = '[]' WHERE id = ?").run(
      nowIso(),
      messageId,
    );
    return n;
  })();
}

/** Inside a write transaction: purge the replaced exchanges' chat memories of this conversation, except `keep`. */
function removeReplaced(db: Database.Database, job: ExchangeJob, keep: string[] = []): void {
  const own = (job.replaces ?? []).filter(
    (id) =>
      !keep.includes(id) &&
      db
        .prepare("SELECT 1 FROM memories WHERE id = ? AND kind = 'chat' AND conversation_id IS ?")
        .get(id, job.conversationId),
  );
  if (own.length) purgeMemories(db, own);
}

/**
 * Write one exchange as memories of kind "chat" (one transaction for all its chunks, which also records
 * the exchange as persisted). An exchange already recorded writes nothing and answers its recorded ids.
 */
export async function persistExchange(
  ctx: MemoContext,
  job: ExchangeJob,
  embedded: EmbeddedTexts = job.embedded ?? new EmbeddedTexts(),
): Promise<string[]> {
  if (!job.user.trim() || !job.assistant.trim()) {
    if (job.replaces?.length) writeTransaction(ctx.db, () => removeReplaced(ctx.db, job));
    return [];
  }
  const said = chatParts(job.user, stripInterruptedNote(job.assistant));
  // Read before the write: the sources as the reply saw them (a source the same write replaces is still there).
  const derived = hasSources(job.recalled)
    ? {
        p: job.recalled,
        novelty: exchangeNovelty(ctx.db, [job.user, stripInterruptedNote(job.assistant)], job.recalled),
      }
    : null;
  const record = job.record;
  if (record) {
    const done = recordedIds(ctx.db, record);
    if (done) return done;
  }
  // Whether and where to learn is decided out here (a turn hands its decision over): the transaction below
  // resolves no provider and builds no client (learning-decision.ts).
  const learning = !job.learn
    ? null
    : isDecided(job.learn)
      ? job.learn
      : decideLearning(resolveProviderConfig(ctx.db), job.learn);
  const [ids] = await addMemories(
    { ...ctx, embedder: embedded.recording(ctx.embedder) },
    [{ text: saidText(said), said, space: job.space, kind: "chat", timestamp: job.timestamp }],
    { spaceId: job.space, kind: "chat", conversationId: job.conversationId },
    {
      skip: () => {
        const done = record ? recordedIds(ctx.db, record) : null;
        return done ? [done] : null;
      },
      after: ([out = []]) => {
        if (record) recordPersisted(ctx.db, record, out);
        if (derived) recordProvenance(ctx.db, out, derived.p, derived.novelty);
        // The same reply again deduplicates onto the old memory: that one stays.
        removeReplaced(ctx.db, job, out);
        queueLearning(ctx.db, job, out, learning);
      },
    },
  );
  return ids!;
}

/** Whether an exchange is recorded as persisted (by its assistant message). */
export function exchangePersisted(db: Database.Database, assistantMessageId: string): boolean {
  const r = db.prepare("SELECT persisted_at AS at FROM messages WHERE id = ?").get(assistantMessageId) as
    | { at: string | null }
    | undefined;
  return Boolean(r?.at);
}
