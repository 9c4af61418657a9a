import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";
import { storageProblem } from "../core/storage-fault";
import { type FactLearner, factLearner, type LearnerStatus } from "../chat/fact-learner";
import { queueCounts, type QueueCounts } from "../memory/facts/queue";
import { activeModel } from "../memory/index/model-check";
import { loadRetrievalSettings, type RetrievalSettings } from "../memory/retrieval/settings";
import { acting } from "../core/acting";
import {
  actingStoreCounts,
  boundModel,
  getMemory,
  getWritableMemory,
  purgeMemories,
  softDeleteMemories,
  storeCounts,
  type MemoryRow,
} from "../memory/store";

export async function retrievalSettings(ctx: MemoContext): Promise<RetrievalSettings> {
  const { model } = await activeModel(ctx);
  return loadRetrievalSettings(ctx.db, model);
}

export function getMemoryOr404(ctx: MemoContext, id: string): MemoryRow {
  const m = getMemory(ctx.db, id);
  if (!m) throw new ServiceError(404, `memory ${id} not found`);
  return m;
}

/** Delete one memory: soft by default (restorable), or purged from every table. */
export function deleteMemory(ctx: MemoContext, id: string, purge = false): { id: string; deleted: "soft" | "purged" } {
  // Only what the acting person may change: a memory of a space shared with them read-only reads as missing here.
  const m = getWritableMemory(ctx.db, id);
  if (!m) throw new ServiceError(404, `memory ${id} not found`);
  if (purge) {
    purgeMemories(ctx.db, [m.id]);
    return { id, deleted: "purged" };
  }
  softDeleteMemories(ctx.db, [m.id]);
  return { id, deleted: "soft" };
}

export interface Health {
  ok: boolean;
  embedder: {
    status: string;
    model: string | null;
    dim: number | null;
    engine?: string | null;
    fallback?: boolean;
    note?: string | null;
    lastError?: string | null;
  };
  store: {
    memories: number;
    vectors: number;
    fts: number;
    consistent: boolean;
    model: string | null;
    dim: number | null;
    /** Why the data folder cannot take writes (read-only, full), or null (server/core/storage-fault.ts). */
    problem: string | null;
  };
  /**
   * Learning facts (docs/facts.md): the queue and the runner. Informational: bad model output, provider
   * errors or a backlog never make health fail — the exchanges are stored whatever learning does.
   */
  facts: QueueCounts & { runner: LearnerStatus["state"]; lastOutcome: LearnerStatus["lastOutcome"] };
}

/**
 * Liveness and the store's figures. The counts are the household's for an admin (and for work outside a
 * request) and the acting person's own for anyone else (issue 43: a member sees no household total); whether
 * the store is consistent is the store's, a fact about the server rather than about anyone's memories.
 */
export function health(ctx: MemoContext, learner: FactLearner = factLearner()): Health {
  const household = storeCounts(ctx.db);
  const consistent = household.memories === household.vectors && household.memories === household.fts;
  const counts = acting().admin ? household : actingStoreCounts(ctx.db, consistent);
  const st = ctx.embedderStatus?.();
  const bound = boundModel(ctx.db);
  const embedderOk = st ? st.status === "ready" : true;
  const storage = storageProblem(ctx.db.name);
  return {
    ok: consistent && embedderOk && !storage,
    embedder: st
      ? {
          status: st.status,
          model: st.model,
          dim: st.dim,
          engine: st.engine,
          fallback: st.fallback,
          note: st.modelReason,
          lastError: st.lastError,
        }
      : { status: "external", model: null, dim: null },
    store: {
      ...counts,
      consistent,
      model: bound?.model ?? null,
      dim: bound?.dim ?? null,
      problem: storage?.message ?? null,
    },
    // A member sees their own jobs only: the runner's state and last outcome are the household's (issue 43).
    facts: acting().admin
      ? { ...queueCounts(ctx.db), runner: learner.status().state, lastOutcome: learner.status().lastOutcome }
      : (() => {
          const mine = queueCounts(ctx.db, { mine: true });
          return { ...mine, runner: mine.running > 0 ? ("working" as const) : ("idle" as const), lastOutcome: null };
        })(),
  };
}
