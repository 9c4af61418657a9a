/**
 * What the decay job (decay.ts) will remove soon, predicted from the same rules, so the user can keep it
 * first. A decaying memory not retrieved for `idleDays` loses 1 importance per daily run; at 0 it waits
 * `zeroDays`, then it is soft-deleted; a soft-deleted memory is purged `retentionDays` after its
 * deletion. Pinned memories and kinds that do not decay are never listed for soft-deletion.
 */
import type Database from "better-sqlite3";
import { dayMinus, utcDay } from "./decay";
import { restoreMemories, setPinned, writeTransaction } from "../store";
import { mineScan } from "../../core/acting";

export interface LifetimeRules {
  idleDays: number;
  zeroDays: number;
  retentionDays: number;
  /** Kinds that decay. */
  kinds: string[];
}

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
const maxDay = (a: string, b: string) => (a > b ? a : b);

/**
 * Memories that decay will soft-delete, and soft-deleted ones it will purge, within `withinDays` (7), in
 * date order (at most `limit`), with the total of each.
 */
export function expiringSoon(
  db: Database.Database,
  rules: LifetimeRules,
  opts: { now?: Date; withinDays?: number; limit?: number; space?: string } = {},
): { items: ExpiringMemory[]; softDeletes: number; purges: number } {
  const today = utcDay(opts.now ?? new Date());
  const horizon = dayPlus(today, opts.withinDays ?? 7);
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
    let zeroDay: string;
    let reason: string;
    if (m.importance === 0) {
      zeroDay = m.zeroSince ? m.zeroSince.slice(0, 10) : today;
      reason = `at importance 0 since ${zeroDay}; ${m.kind} memories decay`;
    } else {
      const firstDecay = maxDay(today, dayPlus(m.activity.slice(0, 10), rules.idleDays));
      zeroDay = dayPlus(firstDecay, m.importance - 1);
      reason = `not recalled since ${m.activity.slice(0, 10)}; importance ${m.importance} reaches 0 on ${zeroDay}`;
    }
    const on = maxDay(today, dayPlus(zeroDay, rules.zeroDays));
    if (on <= horizon)
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
    const on = maxDay(today, dayPlus(m.deletedAt.slice(0, 10), rules.retentionDays));
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
    db.prepare("UPDATE memories SET zero_importance_since = NULL WHERE id IN (SELECT value FROM json_each(?))").run(
      JSON.stringify(kept),
    );
    return kept;
  });
}
