/**
 * A stored exchange becomes a fact-learning job (docs/facts.md) in the same transaction that writes its
 * memories (write-exchange.ts), so an exchange is either stored with its job or not at all — and a job is queued
 * only when a model may learn from it now (fact-model.ts: learning on for the provider, memory sharing
 * allowing it — both the choices of the person whose space it is). Temporary chats and turns whose memory switch is off never get here: they store nothing.
 */
import type Database from "better-sqlite3";
import { enqueueFactJob } from "../memory/facts/queue";
import { chooseFactModel, learnersOf } from "./fact-model";
import type { ProviderId } from "./providers";

/** Who learns from an exchange: the provider (and model) the conversation used; null: the selected one. */
export interface LearnFrom {
  provider: ProviderId | null;
  model?: string | null;
}

/** Inside the exchange's write transaction: queue its job. Returns whether one was queued. */
export function queueLearning(
  db: Database.Database,
  job: {
    space: string;
    conversationId: string | null;
    timestamp: string;
    record?: { messageId: string } | { pendingId: string };
    learn?: LearnFrom;
  },
  ids: string[],
): boolean {
  if (!job.learn || !ids.length) return false;
  // The exchange's space decides whose choices apply (the queue stores it as the household: runAsSystem).
  if (!chooseFactModel(db, job.learn.provider, learnersOf(db, job.space, ids)).ok) return false;
  const messageId = job.record && "messageId" in job.record ? job.record.messageId : null;
  return (
    enqueueFactJob(db, {
      spaceId: job.space,
      origin: job.conversationId ? "chat" : "api",
      memoryIds: ids,
      at: job.timestamp,
      messageId,
      provider: job.learn.provider,
      model: job.learn.model ?? null,
    }) !== null
  );
}
