/**
 * Whether and where a stored exchange is learnt from (docs/facts.md), decided before its write and handed to it
 * as data: the endpoints that may learn from it (fact-model.ts factModelCandidates: the local model, the
 * conversation's provider), from a provider configuration resolved outside the write — a turn hands over the one
 * it resolved. The write's transaction (write-exchange.ts) then only reads whose choices apply (the exchange's
 * memories are known there: learnersOf) and queues the job, so an exchange is either stored with its job or not
 * at all, and no provider is resolved and no client built inside a SQLite transaction. A job is queued only when
 * a model may learn from it now (learning on for the endpoint, memory sharing allowing it — the choices of the
 * person whose space it is and of whoever wrote its memories). Temporary chats and turns whose memory switch is
 * off never get here: they store nothing.
 */
import type Database from "better-sqlite3";
import { enqueueFactJob } from "../memory/facts/queue";
import { type FactModelCandidate, factModelCandidates, firstAllowed, learnersOf } from "./fact-model";
import type { ProviderConfig, ProviderId } from "./providers";

/** Who learns from an exchange: the provider (and model) the conversation used; null: the selected one. */
export interface LearnFrom {
  provider: ProviderId | null;
  model?: string | null;
}

/** LearnFrom decided: the endpoints that may learn from it, in the order they are tried (none: it is not learnt from). */
export interface LearningDecision extends LearnFrom {
  candidates: FactModelCandidate[];
}

/** Decide before the write, from a configuration already resolved. */
export function decideLearning(cfg: ProviderConfig, from: LearnFrom): LearningDecision {
  return { ...from, candidates: factModelCandidates(cfg, from.provider) };
}

export const isDecided = (l: LearnFrom | LearningDecision): l is LearningDecision => "candidates" in l;

/** Inside the exchange's write transaction: queue its job if one of the decided endpoints may learn. Returns whether one was queued. */
export function queueLearning(
  db: Database.Database,
  job: {
    space: string;
    conversationId: string | null;
    timestamp: string;
    record?: { messageId: string } | { pendingId: string };
  },
  ids: string[],
  decision: LearningDecision | null,
): boolean {
  if (!decision?.candidates.length || !ids.length) return false;
  // The exchange's space decides whose choices apply (the queue stores it as the household: runAsSystem).
  if (!firstAllowed(db, decision.candidates, learnersOf(db, job.space, ids)).ok) return false;
  const messageId = job.record && "messageId" in job.record ? job.record.messageId : null;
  return (
    enqueueFactJob(db, {
      spaceId: job.space,
      origin: job.conversationId ? "chat" : "api",
      memoryIds: ids,
      at: job.timestamp,
      messageId,
      provider: decision.provider,
      model: decision.model ?? null,
    }) !== null
  );
}
