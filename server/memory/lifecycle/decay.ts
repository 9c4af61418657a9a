/**
 * Daily decay (docs/storage.md#what-each-job-may-change), one run = one transaction, with an injectable clock:
 * 1. Decay: every live, unpinned memory with importance > 0 that has not been retrieved for `idleDays`
 *    (counted from last_retrieved_at, or from created_at — when it entered this store — if it never
 *    was) loses 1 importance. At most once per day: the day of the last decay is kept in meta
 *    `decay_last_day`, and a second run on the same day (or an earlier one: a clock set back) skips this step.
 * 2. A memory found (or brought) at importance 0 gets `zero_importance_since`; one that has been at 0 for
 *    `zeroDays` is soft-deleted (store.softDeleteMemories: memories, memory_vec, the keyword index in step).
 *    Promotion (retrieval) lifts it above 0, which clears the mark at the next run.
 * 3. Soft-deleted memories deleted `retentionDays` ago or earlier are purged from every table.
 * Only memories of the kinds in `kinds` decay (the lifetime policy per kind, server/jobs/settings.ts):
 * by default chat and consolidated; never document chunks (they live as long as their document) and
 * never pinned memories. A memory of another kind is not marked and not soft-deleted by decay.
 * Each person's memories follow that person's rules (issue 32; `rulesFor`, their lifetime settings): the
 * steps run once per person who has a space, over that person's spaces only, all in the one transaction.
 * Days are UTC calendar days and thresholds compare days, so a run at 03:00:00.4 and one at 03:00:00.1
 * the next week see the same ages. Steps 2 and 3 are idempotent by nature; step 1 by the day mark.
 */
import type Database from "better-sqlite3";
import {
  decayImportance,
  decayingScan as decaying,
  refreshZeroMarks,
  purgeMemories,
  softDeleteMemories,
  theirsScan as theirs,
  writeTransaction,
} from "../store";
import { getMeta, setMeta } from "../../core/meta";

/**
 * The lifetime rules of one person's memories: the one shape decay applies, its prediction (lifetime.ts)
 * reads, the job reports, and the settings (server/jobs/settings.ts decayRulesOf) produce.
 */
export interface DecayRules {
  /** A memory not retrieved for this many days loses 1 importance per daily run. */
  idleDays: number;
  /** A memory at importance 0 for this many days is soft-deleted. */
  zeroDays: number;
  /** Soft-deleted memories are purged after this many days. */
  retentionDays: number;
  /** Kinds that decay. `document` is ignored if given. */
  kinds: string[];
}

export interface DecayOptions extends Omit<DecayRules, "kinds"> {
  /** Default chat and consolidated. */
  kinds?: string[];
  /** A person's own rules (their lifetime settings); the rules above for anyone it gives none for. */
  rulesFor?: (personId: string) => DecayRules | undefined;
  /** The clock (tests simulate days with it). */
  now?: () => Date;
}

export interface JobCounts {
  /** Memories promoted by retrieval since the previous decay run (promotion itself happens at search time). */
  promoted: number;
  decayed: number;
  softDeleted: number;
  purged: number;
  merged: number;
}

export interface DecayResult {
  day: string;
  counts: JobCounts;
  /** Memories newly marked as being at importance 0. */
  zeroMarked: number;
  /** Why the importance step did not run (already ran that day), else null. */
  decaySkipped: string | null;
  /** What changed, by id (each list capped at CHANGE_LIST_CAP; `truncated` says so). */
  changes: {
    decayed: { id: string; importance: number }[];
    softDeleted: string[];
    purged: string[];
    truncated: boolean;
  };
  /** The rules given (the defaults); `people` has the rules each person's memories were decayed by. */
  settings: DecayRules;
  people: Record<string, DecayRules>;
}

export const DEFAULT_DECAY_KINDS = ["chat", "consolidated"];

export const CHANGE_LIST_CAP = 1000;

const DAY_MS = 86_400_000;

/** The UTC calendar day of a time, YYYY-MM-DD. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The UTC day `n` days before `day`. */
export function dayMinus(day: string, n: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) - n * DAY_MS));
}

/** The day thresholds of a decay run on `day`: idle since, at 0 since, deleted since (each that day or before). */
export function decayCutoffs(
  day: string,
  rules: Omit<DecayRules, "kinds">,
): { idle: string; zero: string; purge: string } {
  return {
    idle: dayMinus(day, rules.idleDays),
    zero: dayMinus(day, rules.zeroDays),
    purge: dayMinus(day, rules.retentionDays),
  };
}

/** A live, unpinned memory of a decaying kind, as one decay run sees it. */
export interface DecayingMemory {
  importance: number;
  /** UTC day it was marked at importance 0, or null. */
  zeroDay: string | null;
  /** UTC day of its last retrieval (or of its creation). */
  activityDay: string;
}

/**
 * What the run on `day` does to one memory: steps 1 and 2 of runDecay for one row (runDecay does them in
 * SQL over every row, with the same cutoffs). Its prediction (lifetime.ts expiringSoon) runs it day by day.
 */
export function decayOneDay(
  m: DecayingMemory,
  rules: Omit<DecayRules, "kinds">,
  day: string,
): DecayingMemory & { softDeleted: boolean } {
  const cut = decayCutoffs(day, rules);
  let { importance, zeroDay } = m;
  if (importance > 0 && m.activityDay <= cut.idle) {
    importance--;
    if (importance === 0) zeroDay = day;
  }
  if (importance === 0) zeroDay ??= day;
  return { ...m, importance, zeroDay, softDeleted: importance === 0 && zeroDay !== null && zeroDay <= cut.zero };
}

/** Step 3 for one row: is a memory soft-deleted on `deletedDay` purged by the run on `day`? */
export const purgedBy = (deletedDay: string, rules: Omit<DecayRules, "kinds">, day: string): boolean =>
  deletedDay <= decayCutoffs(day, rules).purge;

export function runDecay(db: Database.Database, opts: DecayOptions): DecayResult {
  const now = (opts.now ?? (() => new Date()))();
  const nowIso = now.toISOString();
  const day = utcDay(now);
  const kindsOf = (r: { kinds?: string[] }) => (r.kinds ?? DEFAULT_DECAY_KINDS).filter((k) => k !== "document");

  return writeTransaction(db, () => {
    let truncated = false;
    const cap = <T>(xs: T[]): T[] => {
      if (xs.length > CHANGE_LIST_CAP) truncated = true;
      return xs.slice(0, CHANGE_LIST_CAP);
    };

    const since = getMeta(db, "decay_last_run_at") ?? new Date(now.getTime() - DAY_MS).toISOString();
    const promoted = (
      db
        .prepare(
          "SELECT count(*) AS n FROM memories WHERE soft_deleted = 0 AND last_retrieved_at > ? AND last_retrieved_at <= ?",
        )
        .get(since, nowIso) as {
        n: number;
      }
    ).n;

    // Importance decays once per day (for everyone: the day mark is the household's).
    const lastDay = getMeta(db, "decay_last_day");
    const decaySkipped = lastDay && lastDay >= day ? `importance already decayed on ${lastDay}` : null;
    const decayed: { id: string; importance: number }[] = [];
    const softDeleted: string[] = [];
    const old: string[] = [];
    let zeroMarked = 0;
    let purged = 0;
    const people: DecayResult["people"] = {};
    const persons = (
      db.prepare("SELECT DISTINCT person_id AS p FROM spaces ORDER BY person_id").all() as { p: string }[]
    ).map((r) => r.p);
    for (const person of persons) {
      const rules = opts.rulesFor?.(person) ?? opts;
      const kinds = JSON.stringify(kindsOf(rules));
      const { idle: idleCutoff, zero: zeroCutoff, purge: purgeCutoff } = decayCutoffs(day, rules);
      people[person] = {
        idleDays: rules.idleDays,
        zeroDays: rules.zeroDays,
        retentionDays: rules.retentionDays,
        kinds: kindsOf(rules),
      };

      // 1. Importance decay.
      const scope = { person, kinds: kindsOf(rules) };
      if (!decaySkipped) decayed.push(...decayImportance(db, scope, idleCutoff, nowIso));

      // 2. The importance-0 mark: cleared when promoted (or pinned) since, set where missing.
      //    A kind that stopped decaying (its policy changed to keep) loses its mark too.
      zeroMarked += refreshZeroMarks(db, scope, nowIso);
      const expired = (
        db
          .prepare(
            `SELECT id FROM memories WHERE soft_deleted = 0 AND pinned = 0 AND importance = 0 AND ${decaying} AND ${theirs}
               AND substr(zero_importance_since, 1, 10) <= @zeroCutoff ORDER BY rid`,
          )
          .all({ zeroCutoff, kinds, person }) as { id: string }[]
      ).map((r) => r.id);
      if (expired.length) softDeleted.push(...softDeleteMemories(db, expired, nowIso));

      // 3. Purge what has been soft-deleted for the person's retention period.
      const due = (
        db
          .prepare(
            `SELECT id FROM memories WHERE soft_deleted = 1 AND ${theirs} AND substr(deleted_at, 1, 10) <= @purgeCutoff ORDER BY rid`,
          )
          .all({ purgeCutoff, person }) as { id: string }[]
      ).map((r) => r.id);
      if (due.length) {
        purged += purgeMemories(db, due);
        old.push(...due);
      }
    }
    if (!decaySkipped) setMeta(db, "decay_last_day", day);

    setMeta(db, "decay_last_run_at", nowIso);
    return {
      day,
      counts: { promoted, decayed: decayed.length, softDeleted: softDeleted.length, purged, merged: 0 },
      zeroMarked,
      decaySkipped,
      changes: { decayed: cap(decayed), softDeleted: cap(softDeleted), purged: cap(old), truncated },
      settings: {
        idleDays: opts.idleDays,
        zeroDays: opts.zeroDays,
        retentionDays: opts.retentionDays,
        kinds: kindsOf(opts),
      },
      people,
    };
  });
}
