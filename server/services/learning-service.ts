/**
 * Learning facts, the operations the tRPC router (server/api/routers/learning.ts) calls (docs/facts.md):
 * the learning switch per provider and the calls made, the queue's progress, what each extraction sent
 * ("Sent to" under a reply), and opt-in learning over stored memory — a document, a ChatGPT import, or
 * "learn from my existing memory" — with the number of calls counted before it starts, its progress and a
 * Stop. Everything a person sees is theirs: their spaces' jobs, runs and calls; another person's run,
 * document, import or conversation reads as missing.
 */
import { z } from "zod";
import { factLearner, type LearnerStatus, type LearningSent } from "../chat/fact-learner";
import { chooseFactModel, learningStatus, setLearning, type LearningProviderStatus } from "../chat/fact-model";
import { getMessage } from "../chat/conversations";
import { endpointKeyInput } from "../chat/memory-policy";
import { actingPersonId, isMine } from "../core/acting";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { stmt } from "../core/statements";
import { DEFAULT_SPACE, spacePersonOf } from "../core/space-name";
import { spaceName } from "../core/validators";
import {
  callsPerProvider,
  type ConversationJob,
  type ProviderCalls,
  queueCounts,
  type QueueCounts,
  jobOfMessage,
  replyJob,
} from "../memory/facts/queue";
import { factsTakenBackOf, factsTaughtBy, type TaughtFact, undoLearnedFact } from "../memory/facts/reply-facts";
import {
  countLearnable,
  createRun,
  getRun,
  type LearnRun,
  learnableMemories,
  listRuns,
  RUN_KINDS,
  stopRun,
} from "../memory/facts/runs";
import { revertRun, type RevertedRun } from "../memory/facts/revert-run";
import { getDocumentOr404 } from "./document-service";
import { getImportJob, importedMemoryIds } from "./import-jobs";

/** "<family>@<host>" of any registered family (memory-policy.ts endpointKeyInput: from the registry). */
export const providerKeyInput = endpointKeyInput("any");

export const learnTargetInput = z.strictObject({
  kind: z.enum(RUN_KINDS),
  /** The back-fill's space (default `personal`); a document's or an import's is their own. */
  space: spaceName.optional(),
  /** A document id or an import job id (not for the back-fill). */
  target: z.string().uuid("target must be a document or import id").optional(),
});
export type LearnTarget = z.infer<typeof learnTargetInput>;

export interface LearningOverview {
  providers: (LearningProviderStatus & { calls: ProviderCalls | null })[];
  queue: QueueCounts;
  runner: LearnerStatus["state"];
}

/** Settings → Learning facts: each provider's switch, the person's calls made with it, their queue. */
export function learningOverview(memo: MemoContext): LearningOverview {
  const calls = new Map(callsPerProvider(memo.db).map((c) => [c.providerKey, c]));
  return {
    providers: learningStatus(memo.db).map((p) => ({ ...p, calls: calls.get(p.key) ?? null })),
    queue: queueCounts(memo.db, { mine: true }),
    runner: factLearner().status().state,
  };
}

/**
 * Turn learning on or off for a configured provider endpoint — the acting person's own switch (null: back to
 * its default). It decides learning from their memory only (issue 48, docs/facts.md#whose-choice).
 */
export function setProviderLearning(memo: MemoContext, key: string, on: boolean | null): { key: string; on: boolean } {
  const p = learningStatus(memo.db).find((x) => x.key === key);
  if (!p) throw new ServiceError(404, `provider ${key} is not configured`);
  setLearning(memo.db, key, on);
  return { key, on: learningStatus(memo.db).find((x) => x.key === key)!.on };
}

interface Resolved {
  spaceId: string;
  target: string | null;
  /** Which memories: a document's, an import's, or (neither) the whole space's. */
  memories: Parameters<typeof learnableMemories>[1];
}

function resolve(memo: MemoContext, t: LearnTarget): Resolved {
  if (t.kind === "backfill") {
    const spaceId = t.space ?? spaceName.parse(DEFAULT_SPACE);
    if (!isMine(spaceId)) throw new ServiceError(404, "space not found");
    return { spaceId, target: null, memories: { spaceId } };
  }
  if (!t.target) throw new ServiceError(400, `target must name the ${t.kind} to learn from`);
  if (t.kind === "document") {
    const doc = getDocumentOr404(memo, t.target);
    if (doc.status !== "done")
      throw new ServiceError(409, `document ${t.target} is ${doc.status}: learn from it once it is done`);
    return {
      spaceId: doc.spaceId,
      target: doc.id,
      memories: { spaceId: doc.spaceId, documentId: doc.id },
    };
  }
  const job = getImportJob(memo.db, t.target);
  const ids = importedMemoryIds(memo.db, t.target);
  if (!job?.space) throw new ServiceError(404, `import ${t.target} not found`);
  if (!ids) throw new ServiceError(409, `import ${t.target} is ${job.status}: learn from it once it is done`);
  return {
    spaceId: job.space,
    target: job.id,
    memories: { spaceId: job.space, memoryIds: ids },
  };
}

/**
 * Whose choices decide an opt-in run: the person whose space it learns in (the runner decides each job for
 * them, server/chat/fact-learner.ts) and the person starting it — never the owner's for a member's space.
 */
function runLearners(spaceId: string): string[] {
  return [...new Set([spacePersonOf(spaceId), actingPersonId()])];
}

export interface LearnCount {
  kind: LearnTarget["kind"];
  space: string;
  /** Memories not learned from yet, and the calls learning from them takes. */
  memories: number;
  calls: number;
  /** Which provider would be asked ("Local llama.cpp (this machine)"), or why none may be. */
  provider: string | null;
  local: boolean | null;
  blocked: string | null;
  /** A run over the same target still going (Start would return it). */
  running: LearnRun | null;
}

/** What learning from a document, an import or the whole space would cost — shown before it starts. */
export function countLearning(memo: MemoContext, t: LearnTarget): LearnCount {
  const r = resolve(memo, t);
  const choice = chooseFactModel(memo.db, null, runLearners(r.spaceId));
  const running = listRuns(memo.db, { kind: t.kind, target: r.target ?? undefined }).find(
    (x) => x.status === "running" && x.spaceId === r.spaceId,
  );
  const { memories, calls } = countLearnable(memo.db, r.memories);
  return {
    kind: t.kind,
    space: r.spaceId,
    memories,
    calls,
    provider: choice.ok ? `${choice.endpoint.label} (${choice.endpoint.host})` : null,
    local: choice.ok ? choice.endpoint.local : null,
    blocked: choice.ok ? null : choice.reason,
    running: running ?? null,
  };
}

/** Start learning (after the count was shown): a run of one job per memory, worked by the runner. */
export function startLearning(memo: MemoContext, t: LearnTarget): LearnRun {
  const r = resolve(memo, t);
  const running = listRuns(memo.db, { kind: t.kind, target: r.target ?? undefined }).find(
    (x) => x.status === "running" && x.spaceId === r.spaceId,
  );
  if (running) return running;
  const choice = chooseFactModel(memo.db, null, runLearners(r.spaceId));
  if (!choice.ok) throw new ServiceError(409, `cannot learn facts now: ${choice.reason}`);
  const id = createRun(memo.db, {
    kind: t.kind,
    spaceId: r.spaceId,
    target: r.target,
    memories: learnableMemories(memo.db, r.memories),
  });
  factLearner().wake();
  return getRun(memo.db, id)!;
}

/** A run as its line shows it: with what the person decided of its proposals (issue 48: an accepted one is news). */
export type LearnRunView = LearnRun & { accepted: number; dismissed: number };

/** How many of a run's proposals its person accepted and dismissed. */
function proposalDecisionsOf(db: MemoContext["db"], runId: string): { accepted: number; dismissed: number } {
  return stmt(
    db,
    `SELECT coalesce(sum(status = 'accepted'), 0) AS accepted, coalesce(sum(status = 'dismissed'), 0) AS dismissed
       FROM fact_proposals WHERE run_id = ?`,
  ).get(runId) as { accepted: number; dismissed: number };
}

const withDecisions = (memo: MemoContext, run: LearnRun): LearnRunView => ({
  ...run,
  ...proposalDecisionsOf(memo.db, run.id),
});

export function learningRunOr404(memo: MemoContext, id: string): LearnRunView {
  const run = getRun(memo.db, id);
  if (!run) throw new ServiceError(404, `learning run ${id} not found`);
  return withDecisions(memo, run);
}

export function learningRuns(
  memo: MemoContext,
  o: { kind?: LearnTarget["kind"]; target?: string } = {},
): LearnRunView[] {
  return listRuns(memo.db, o).map((r) => withDecisions(memo, r));
}

/** Stop a run: what is queued is not asked; a call in flight finishes. */
export function stopLearning(memo: MemoContext, id: string): LearnRun {
  if (!stopRun(memo.db, id)) throw new ServiceError(404, `learning run ${id} not found`);
  return learningRunOr404(memo, id);
}

/** Undo a run as a whole ("revert what this document changed"; issue 48): stopped, its facts taken back. */
export function undoLearning(memo: MemoContext, id: string): RevertedRun & { run: LearnRun } {
  const r = revertRun(memo.db, id);
  if (!r) throw new ServiceError(404, `learning run ${id} not found`);
  return { ...r, run: learningRunOr404(memo, id) };
}

/** Under a reply: whether its exchange was learned from, and what that sent where (null: no job for it). */
export function replyLearning(memo: MemoContext, messageId: string): ReplyLearning | null {
  const m = getMessage(memo.db, messageId);
  if (m?.role !== "assistant") throw new ServiceError(404, `no reply ${messageId}`);
  const j = replyJob(memo.db, messageId);
  if (!j) return null;
  const job = jobOfMessage(memo.db, messageId);
  const back = job ? factsTakenBackOf(memo.db, job.id) : { undone: 0, deleted: 0, forgotten: 0, replaced: 0 };
  return {
    ...j,
    sent: j.sent as LearningSent | null,
    facts: job ? factsTaughtBy(memo.db, job.id) : [],
    factsUndone: back.undone,
    factsDeleted: back.deleted,
    factsForgotten: back.forgotten,
    factsReplaced: back.replaced,
    factsProposed: job
      ? (
          memo.db
            .prepare("SELECT count(*) AS n FROM fact_proposals WHERE job_id = ? AND status = 'pending'")
            .get(job.id) as { n: number }
        ).n
      : 0,
  };
}

export type ReplyLearning = Omit<ConversationJob, "sent"> & {
  sent: LearningSent | null;
  facts: TaughtFact[];
  /** Of the facts learned (factsAdded): taken back with Undo under the reply since. */
  factsUndone: number;
  /** … deleted by the person (What Memo knows, the API, /forget). */
  factsDeleted: number;
  /** … forgotten because every memory they came from was forgotten. */
  factsForgotten: number;
  /** … replaced since by a newer fact. */
  factsReplaced: number;
  /** Facts it proposed that wait for the person on What Memo knows (issue 54: they are not known until then). */
  factsProposed: number;
};

/** Undo one fact a reply's exchange taught (the Facts line's Undo): it goes, what it replaced is current again. */
export function undoReplyLearning(memo: MemoContext, messageId: string, factId: string): ReplyLearning {
  const before = replyLearning(memo, messageId); // 404 for a reply that is not the person's
  if (!before?.facts.some((f) => f.id === factId))
    throw new ServiceError(404, `reply ${messageId} taught no fact ${factId}`);
  const r = undoLearnedFact(memo.db, factId, new Date().toISOString());
  if (!r.ok)
    throw r.reason === "replaced_since"
      ? new ServiceError(409, "a later fact replaced this one since; undo that one first")
      : new ServiceError(404, `fact ${factId} not found`);
  return replyLearning(memo, messageId)!;
}
