/**
 * Applying a checked `memo_facts` answer (reconcile.ts) to the store: for each exchange of the call, its new
 * facts (sources: the exchange's memories that are still live), superseding the listed facts they replace,
 * and its job marked done — all in ONE transaction, so a crash leaves either the facts and a done job, or
 * neither (the job runs again and nothing is learned twice).
 *
 * A batch is applied in the exchanges' order: when a later exchange's fact replaces a listed fact that an
 * earlier exchange of the same call already replaced, it replaces that newer fact instead (the value moved
 * twice while Memo was catching up; only the last one is current).
 *
 * Untrusted text proposes; the person decides (issues 48 and 54, trust.ts): every fact of a stored passage
 * (a document, an import, the back-fill) or of another person's memories, and from any path a fact that
 * would make a replaced value current beside its successor, is kept as a proposal for the space's person to
 * confirm or dismiss (proposals.ts, capped per call and per run). Facts of the person's own words are
 * written, marked with their run when they have one, so that the run can be undone as a whole (revert-run.ts).
 *
 * What changed since the request was built is honoured, not overwritten: a source forgotten meanwhile is not
 * a source (no live source left: the job is skipped), and a listed fact that is no longer current (the
 * person edited or deleted it) is not superseded again.
 */
import type Database from "better-sqlite3";
import { stmt } from "../../core/statements";
import { contentHash, writeTransaction } from "../store/rows";
import { addProposal, isStoredOrigin, proposalRoom } from "./proposals";
import { guardRestatedValues } from "./provenance-guard";
import { finishFactJob, type JobOrigin } from "./queue";
import type { PlannedFact } from "./reconcile";
import { revivedBy, untrustedJob } from "./trust";
import { insertFacts, markLearnedInRun, maxFactRid } from "./write";

/** Whether a current fact of the space already says exactly this (the store's own text hash). */
export function hasCurrentText(db: Database.Database, spaceId: string, text: string): boolean {
  return Boolean(
    stmt(
      db,
      `SELECT 1 FROM facts WHERE space_id = ? AND content_hash = ? AND deleted_at IS NULL
         AND superseded_by IS NULL AND valid_to IS NULL LIMIT 1`,
    ).get(spaceId, contentHash(text.replace(/\s+/g, " ").trim())),
  );
}

function stillCurrent(db: Database.Database, spaceId: string, id: string): boolean {
  return Boolean(
    stmt(
      db,
      "SELECT 1 FROM facts WHERE id = ? AND space_id = ? AND deleted_at IS NULL AND superseded_by IS NULL AND valid_to IS NULL",
    ).get(id, spaceId),
  );
}

function liveOf(db: Database.Database, spaceId: string, ids: string[]): string[] {
  const live = stmt(db, "SELECT 1 FROM memories WHERE id = ? AND space_id = ? AND soft_deleted = 0");
  return ids.filter((id) => live.get(id, spaceId));
}

export interface LearnedJob {
  jobId: number;
  /** The exchange's memories (the facts' sources). */
  sources: string[];
  /** Where the job's text came from: a stored passage's replacements are proposed, not applied (proposals.ts). */
  origin?: JobOrigin;
  /** The opt-in run it belongs to: its facts are marked with it, so the run can be undone as a whole. */
  runId?: string | null;
}

export interface AppliedCounts {
  /** Per job: facts written, and listed facts they replaced. */
  added: Map<number, number>;
  replaced: Map<number, number>;
  /** Per job: replacements kept as proposals; and those dropped over the caps. */
  proposed: Map<number, number>;
  overCap: number;
  /** Jobs whose every source went while the model was asked. */
  gone: number[];
  /** Per job: facts not learned because they restated a replaced value the person did not say (provenance-guard.ts). */
  restated: Map<number, number>;
}

/**
 * Write the facts of one call: `facts[i].exchange` indexes `jobs`; `vectors[i]` is facts[i]'s embedding
 * (document prefix) made with `model`. `inside` runs in the same transaction (the attempt's record).
 */
export function applyLearnedFacts(
  db: Database.Database,
  spaceId: string,
  jobs: LearnedJob[],
  facts: PlannedFact[],
  vectors: Float32Array[],
  model: string,
  inside: (counts: AppliedCounts) => void = () => undefined,
): AppliedCounts {
  return writeTransaction(db, () => {
    const counts: AppliedCounts = {
      added: new Map(),
      replaced: new Map(),
      proposed: new Map(),
      overCap: 0,
      gone: [],
      restated: new Map(),
    };
    const proposalsLeft = new Map<string | null, number>();
    // A listed fact replaced by this call → the fact that replaced it (followed for later exchanges).
    const chain = new Map<string, string>();
    const latest = (id: string) => {
      let at = id;
      for (let i = 0; chain.has(at) && i < 100; i++) at = chain.get(at)!;
      return at;
    };
    jobs.forEach((job, i) => {
      const sources = liveOf(db, spaceId, job.sources);
      if (!sources.length) {
        counts.gone.push(job.jobId);
        finishFactJob(db, job.jobId, "skipped", { error: "its memories were forgotten or deleted meanwhile" });
        return;
      }
      const offered = facts.map((f, k) => ({ f, v: vectors[k]! })).filter(({ f }) => f.exchange === i);
      // An assistant restating a replaced value never re-teaches it (provenance-guard.ts).
      const guard = guardRestatedValues(
        db,
        spaceId,
        job.jobId,
        offered.map(({ f }) => f),
      );
      if (guard.dropped.length) counts.restated.set(job.jobId, guard.dropped.length);
      const taken = new Set<string>();
      let mine = guard.keep
        .map((k) => offered[k]!)
        .map(({ f, v }) => ({
          v,
          item: {
            text: f.text,
            sources,
            validFrom: f.validFrom,
            replaces: f.replaces
              .map(latest)
              .filter((id) => !taken.has(id) && stillCurrent(db, spaceId, id) && taken.add(id)),
            origin: "learned" as const,
          },
        }));
      // Untrusted text proposes; the person decides (trust.ts, issue 54): every fact of someone else's text,
      // and from any path a fact that would make a replaced value current beside its successor, waits for
      // the space's person (capped).
      const untrusted = untrustedJob(db, spaceId, job.origin, sources);
      // A stored passage's replacements are proposed whoever wrote it (issue 48).
      const stored = isStoredOrigin(job.origin);
      let proposed = 0;
      const runKey = job.runId ?? null;
      mine = mine.filter(({ item, v }) => {
        const revives = revivedBy(db, spaceId, item, v, model);
        if (!untrusted && !revives && !(stored && item.replaces.length > 0)) return true;
        const room = proposalsLeft.get(runKey) ?? proposalRoom(db, runKey);
        if (room <= 0) counts.overCap++;
        else {
          addProposal(db, { spaceId, runId: runKey, jobId: job.jobId, ...item, revives: revives?.id ?? null });
          proposalsLeft.set(runKey, room - 1);
          proposed++;
        }
        return false;
      });
      counts.proposed.set(job.jobId, proposed);
      const items = mine.map((m) => m.item);
      if (items.length) {
        const before = maxFactRid(db);
        const ids = insertFacts(
          db,
          spaceId,
          items,
          mine.map((m) => m.v),
          model,
        );
        items.forEach((it, k) => {
          for (const r of it.replaces) chain.set(r, ids[k]!);
        });
        // The run's own new facts (not a fact it only added a source to): what undoing the run takes back.
        if (job.runId) markLearnedInRun(db, job.runId, ids, before);
      }
      counts.added.set(job.jobId, items.length);
      counts.replaced.set(
        job.jobId,
        items.reduce((n, it) => n + it.replaces.length, 0),
      );
      finishFactJob(db, job.jobId, "done", { factsAdded: items.length });
    });
    inside(counts);
    return counts;
  });
}
