/**
 * What the decay job (decay.ts) will remove soon, predicted by running decay's own per-memory step
 * (decayOneDay, purgedBy) forward day by day, so the user can keep it first. A decaying memory not retrieved for `idleDays` loses 1 importance per daily run; at 0 it waits
 * `zeroDays`, then it is soft-deleted; a soft-deleted memory is purged `retentionDays` after its
 * deletion. Pinned memories and kinds that do not decay are never listed for soft-deletion.
 */
import type Database from "better-sqlite3";
import { dayMinus, decayOneDay, type DecayRules, purgedBy, utcDay } from "./decay";
import { clearZeroMarks, restoreMemories, setPinned, writeTransaction } from "../store";
import { mineScan } from "../../core/acting";
import { getMeta } from "../../core/meta";

export interface ExpiringMemory {
  id: string;
  spaceId: string;
  kind: string;
  content: string;
  pinned: boolean;
  /** What will happen: soft-deleted by decay, or purged for good from the trash. */
  action: "soft-delete" | "purge";
  /** The UTC day it happens at the latest (decay runs daily). */
  on: string;
  reason: string;
}

const dayPlus = (day: string, n: number) => dayMinus(day, -n);

/** The first day from `today` to `horizon` on which `happens` holds, or null. */
function firstDay(today: string, horizon: string, happens: (day: string) => boolean): string | null {
  for (let day = today; day <= horizon; day = dayPlus(day, 1)) if (happens(day)) return day;
  return null;
}

/**
 * Memories that decay will soft-delete, and soft-deleted ones it will purge, within `withinDays` (7), in
 * date order (at most `limit`), with the total of each.
 */
export function expiringSoon(
  db: Database.Database,
  rules: DecayRules,
  opts: { now?: Date; withinDays?: number; limit?: number; space?: string } = {},
): { items: ExpiringMemory[]; softDeletes: number; purges: number } {
  const today = utcDay(opts.now ?? new Date());
  const horizon = dayPlus(today, opts.withinDays ?? 7);
  // Importance decays once a day: a prediction made after today's run starts from tomorrow's.
  const lastRun = getMeta(db, "decay_last_day");
  const nextRun = lastRun && lastRun >= today ? dayPlus(today, 1) : today;
  const kinds = JSON.stringify(rules.kinds.filter((k) => k !== "document"));
  const scope = `${opts.space ? "AND space_id = @space" : ""} AND ${mineScan("space_id")}`;
  const items: ExpiringMemory[] = [];

  // Soft-delete: at importance i (>0) the first decay comes idleDays after the last activity (or today),
  // it reaches 0 after i runs, and waits zeroDays. Prefilter in SQL on the best case (importance 1).
  const latestActivity = dayMinus(horizon, rules.idleDays + rules.zeroDays);
  const live = db
    .prepare(
      `SELECT id, space_id AS spaceId, kind, content, importance, zero_importance_since AS zeroSince,
              coalesce(last_retrieved_at, created_at) AS activity
         FROM memories
        WHERE soft_deleted = 0 AND pinned = 0 AND kind IN (SELECT value FROM json_each(@kinds)) ${scope}
          AND importance <= @maxImportance
          AND (importance = 0 OR substr(coalesce(last_retrieved_at, created_at), 1, 10) <= @latestActivity)`,
    )
    .all({
      kinds,
      maxImportance: Math.max(0, (opts.withinDays ?? 7) - rules.zeroDays + 1),
      latestActivity,
      space: opts.space,
    }) as {
    id: string;
    spaceId: string;
    kind: string;
    content: string;
    importance: number;
    zeroSince: string | null;
    activity: string;
  }[];
  for (const m of live) {
    // Decay's own step, run forward from the next run: today's, or tomorrow's when today's has been.
    let state = {
      importance: m.importance,
      zeroDay: m.zeroSince?.slice(0, 10) ?? null,
      activityDay: m.activity.slice(0, 10),
    };
    let reachedZero = m.importance === 0 ? (state.zeroDay ?? today) : null;
    const on = firstDay(nextRun, horizon, (day) => {
      const next = decayOneDay(state, rules, day);
      if (next.importance === 0 && reachedZero === null) reachedZero = next.zeroDay;
      state = next;
      return next.softDeleted;
    });
    if (on === null) continue;
    const reason =
      m.importance === 0
        ? `at importance 0 since ${reachedZero}; ${m.kind} memories decay`
        : `not recalled since ${m.activity.slice(0, 10)}; importance ${m.importance} reaches 0 on ${reachedZero}`;
    items.push({
      id: m.id,
      spaceId: m.spaceId,
      kind: m.kind,
      content: m.content,
      pinned: false,
      action: "soft-delete",
      on,
      reason,
    });
  }
  const softDeletes = items.length;

  const trash = db
    .prepare(
      `SELECT id, space_id AS spaceId, kind, content, pinned, deleted_at AS deletedAt FROM memories
        WHERE soft_deleted = 1 AND deleted_at IS NOT NULL AND substr(deleted_at, 1, 10) <= @cutoff ${scope}`,
    )
    .all({ cutoff: dayMinus(horizon, rules.retentionDays), space: opts.space }) as {
    id: string;
    spaceId: string;
    kind: string;
    content: string;
    pinned: number;
    deletedAt: string;
  }[];
  for (const m of trash) {
    const on = firstDay(nextRun, horizon, (day) => purgedBy(m.deletedAt.slice(0, 10), rules, day));
    if (on === null) continue;
    items.push({
      id: m.id,
      spaceId: m.spaceId,
      kind: m.kind,
      content: m.content,
      pinned: Boolean(m.pinned),
      action: "purge",
      on,
      reason: `deleted on ${m.deletedAt.slice(0, 10)}; the trash is emptied after ${rules.retentionDays} days`,
    });
  }
  items.sort((a, b) => a.on.localeCompare(b.on) || a.action.localeCompare(b.action) || a.id.localeCompare(b.id));
  return { items: items.slice(0, opts.limit ?? 200), softDeletes, purges: items.length - softDeletes };
}

/**
 * Keep memories (one click in Analytics/Manager): a soft-deleted one is restored, and each is pinned, so
 * decay never touches it again (unpin to let it decay). One transaction. Returns the ids kept.
 */
export function keepMemories(db: Database.Database, ids: string[]): string[] {
  return writeTransaction(db, () => {
    restoreMemories(db, ids);
    const kept: string[] = [];
    for (const id of ids) if (setPinned(db, id, true)) kept.push(id);
    clearZeroMarks(db, kept);
    return kept;
  });
}
