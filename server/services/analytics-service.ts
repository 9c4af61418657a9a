/**
 * Memory Analytics (docs/architecture.md#pages): totals, pinned count, additions this week, soft-deletes expiring soon,
 * the most retrieved memories, memories over time by kind, recall activity per day, and the last job runs.
 *
 * Recall activity per day counts rows of `retrieval_events` (one per memory recalled into a prompt,
 * written by store.recordRetrievals in the same transaction as the retrieval count) of the viewer's own
 * prompts: their recalls of memories shared with them count here, and never in the owner's (issue 43).
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import type { MemoryKind } from "../memory/store";
import { SOFT_DELETE_RETENTION_DAYS } from "./manager-service";
import { spaceName } from "../core/validators";
import { acting, mineScan } from "../core/acting";
import { isReadableStoredTime, logUnreadableTime } from "../core/dates";

export const KINDS: MemoryKind[] = ["chat", "document", "remember", "import", "consolidated"];
const DAY = 86_400_000;

export const analyticsInput = z.strictObject({
  space: spaceName.optional(),
  /** Which time "over time" means: the memory's own timestamp (the event) or when it was stored. */
  basis: z.enum(["timestamp", "created"]).optional(),
  bucket: z.enum(["auto", "day", "week", "month"]).optional(),
  /** Days shown in the recall-activity chart (ending today). */
  days: z.number().int().min(7).max(365).optional(),
});
export type AnalyticsInput = z.infer<typeof analyticsInput>;

export type Bucket = "day" | "week" | "month";
export type OverTimePoint = { period: string } & Record<MemoryKind, number>;

export interface Analytics {
  space: string | null;
  generatedAt: string;
  retentionDays: number;
  totals: {
    /** Live memories. */
    memories: number;
    pinned: number;
    /** Memories stored in the last 7 days (live or since soft-deleted). */
    addedThisWeek: number;
    /** Of those, the ones still live (counted in `memories` too). */
    addedThisWeekLive: number;
    softDeleted: number;
    /** Soft-deleted memories whose purge time (deleted_at + retention) is within the next 7 days (or overdue). */
    expiringWithin7Days: number;
    /** Σ retrieval_count over live memories. */
    retrievals: number;
    byKind: Record<MemoryKind, number>;
  };
  expiringSoon: { id: string; content: string; spaceId: string; deletedAt: string; purgeAt: string }[];
  topRetrieved: {
    id: string;
    content: string;
    spaceId: string;
    kind: MemoryKind;
    retrievalCount: number;
    lastRetrievedAt: string | null;
    importance: number;
    pinned: boolean;
  }[];
  /** `earlier`: memories older than the chart's start, counted in its first ("before …") bar. */
  overTime: {
    basis: "timestamp" | "created";
    bucket: Bucket;
    points: OverTimePoint[];
    earlier: { count: number; from: string; before: string } | null;
  };
  /** Per day (UTC) of the last `days`: live memories whose last retrieval was that day. */
  retrievalsByDay: { day: string; retrievals: number }[];
  jobRuns: {
    id: number;
    job: string;
    startedAt: string;
    finishedAt: string | null;
    status: string;
    durationMs: number | null;
    result: unknown;
    error: string | null;
  }[];
}

const iso = (t: number) => new Date(t).toISOString();

/** The first instant of the bucket holding `t` (UTC; weeks start on Monday). */
export function bucketStart(t: number, bucket: Bucket): number {
  const d = new Date(t);
  if (bucket === "month") return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (bucket === "day") return day;
  return day - ((d.getUTCDay() + 6) % 7) * DAY;
}

function nextBucket(t: number, bucket: Bucket): number {
  if (bucket === "day") return t + DAY;
  if (bucket === "week") return t + 7 * DAY;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

const label = (t: number, bucket: Bucket) => (bucket === "month" ? iso(t).slice(0, 7) : iso(t).slice(0, 10));

/** Pick a bucket so the chart has at most ~120 points (days up to 4 months, weeks up to ~2 years). */
export function autoBucket(minT: number, maxT: number): Bucket {
  const span = maxT - minT;
  if (span <= 120 * DAY) return "day";
  if (span <= 120 * 7 * DAY) return "week";
  return "month";
}

/** Named query: live memories per kind and bucket of time, gaps filled with zeros. */
export function memoriesOverTime(
  db: Database.Database,
  space: string | null,
  basis: "timestamp" | "created",
  bucketIn: Bucket | "auto",
) {
  const col = basis === "created" ? "created_at" : "timestamp";
  const rows = db
    .prepare(
      `SELECT id, ${col} AS t, kind FROM memories WHERE soft_deleted = 0 AND (@space IS NULL OR space_id = @space) AND ${mineScan("space_id")}`,
    )
    .all({ space })
    // A row whose time cannot be computed with is left out and logged, never the whole chart (issue 58).
    .filter(
      (r) =>
        isReadableStoredTime((r as { t: unknown }).t) ||
        logUnreadableTime("memory", (r as { id: string }).id, (r as { t: unknown }).t),
    ) as {
    t: string;
    kind: MemoryKind;
  }[];
  const times = rows.map((r) => Date.parse(r.t));
  if (times.length === 0)
    return {
      basis,
      bucket: (bucketIn === "auto" ? "day" : bucketIn) as Bucket,
      points: [] as OverTimePoint[],
      earlier: null,
    };
  times.sort((a, b) => a - b);
  const first = times[0]!;
  const max = times.at(-1)!;
  // A few old memories (one import from years ago) must not stretch the axis over empty years: when the
  // oldest 5% span more than half of it, the chart starts at the 5th percentile and what is older is
  // counted in one leading "before …" bar.
  const p5 = times[Math.floor(times.length * 0.05)]!;
  const windowed = max - first > 14 * DAY && p5 - first > (max - first) / 2;
  // Memories just before the 5th percentile belong to the bulk: the chart reaches back half its span more.
  const min = windowed ? times.find((t) => t >= p5 - (max - p5) / 2)! : first;
  const bucket: Bucket = bucketIn === "auto" ? autoBucket(min, max) : bucketIn;
  const counts = new Map<number, Record<MemoryKind, number>>();
  const empty = () => Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<MemoryKind, number>;
  // Fill every bucket between the first and the last (at most 2000, a guard for "day" over decades).
  for (let b = bucketStart(min, bucket), n = 0; b <= max && n < 2000; b = nextBucket(b, bucket), n++)
    counts.set(b, empty());
  const start = bucketStart(min, bucket);
  const earlier = empty();
  let earlierCount = 0;
  for (const r of rows) {
    const t = Date.parse(r.t);
    if (t < start) {
      earlier[r.kind] = (earlier[r.kind] ?? 0) + 1;
      earlierCount++;
      continue;
    }
    const b = bucketStart(t, bucket);
    const c = counts.get(b) ?? empty();
    c[r.kind] = (c[r.kind] ?? 0) + 1;
    counts.set(b, c);
  }
  const points: OverTimePoint[] = [...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, c]) => ({ period: label(b, bucket), ...c }));
  if (earlierCount) points.unshift({ period: `before ${label(start, bucket)}`, ...earlier });
  return {
    basis,
    bucket,
    points,
    earlier: earlierCount ? { count: earlierCount, from: iso(first), before: iso(start) } : null,
  };
}

/** The analytics of one space (or all), as of `now`. */
export function analytics(
  db: Database.Database,
  input: AnalyticsInput = {},
  opts: { now?: Date; retentionDays?: number } = {},
): Analytics {
  const now = (opts.now ?? new Date()).getTime();
  const retentionDays = opts.retentionDays ?? SOFT_DELETE_RETENTION_DAYS;
  const space = input.space ?? null;
  const p = { space, weekAgo: iso(now - 7 * DAY), expiryCutoff: iso(now + 7 * DAY - retentionDays * DAY) };
  // Only the acting person's memories and recalls are counted (mine(): server/core/acting.ts).
  const scope = `(@space IS NULL OR space_id = @space) AND ${mineScan("space_id")}`;
  const totals = db
    .prepare(
      `SELECT
         coalesce(sum(soft_deleted = 0), 0) AS memories,
         coalesce(sum(soft_deleted = 0 AND pinned = 1), 0) AS pinned,
         coalesce(sum(created_at >= @weekAgo), 0) AS addedThisWeek,
         coalesce(sum(created_at >= @weekAgo AND soft_deleted = 0), 0) AS addedThisWeekLive,
         coalesce(sum(soft_deleted = 1), 0) AS softDeleted,
         coalesce(sum(soft_deleted = 1 AND deleted_at IS NOT NULL AND deleted_at <= @expiryCutoff), 0) AS expiringWithin7Days,
         coalesce(sum(CASE WHEN soft_deleted = 0 THEN retrieval_count ELSE 0 END), 0) AS retrievals
       FROM memories WHERE ${scope}`,
    )
    .get(p) as Omit<Analytics["totals"], "byKind">;
  // The person's recalls of memories shared with them are theirs too (issue 43): their events name no memory.
  const recaller = "person_id = coalesce((SELECT acting_person()), person_id)";
  if (!space)
    totals.retrievals += (
      db.prepare(`SELECT count(*) AS n FROM retrieval_events WHERE memory_id IS NULL AND ${recaller}`).get() as {
        n: number;
      }
    ).n;
  const byKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<MemoryKind, number>;
  for (const r of db
    .prepare(`SELECT kind, count(*) AS n FROM memories WHERE soft_deleted = 0 AND ${scope} GROUP BY kind`)
    .all(p) as { kind: MemoryKind; n: number }[]) {
    byKind[r.kind] = r.n;
  }
  const expiringSoon = (
    db
      .prepare(
        `SELECT id, substr(content, 1, 200) AS content, space_id AS spaceId, deleted_at AS deletedAt FROM memories
         WHERE soft_deleted = 1 AND deleted_at IS NOT NULL AND deleted_at <= @expiryCutoff AND ${scope}
         ORDER BY deleted_at ASC LIMIT 10`,
      )
      .all(p) as { id: string; content: string; spaceId: string; deletedAt: string }[]
  ).map((r) => ({ ...r, purgeAt: iso(Date.parse(r.deletedAt) + retentionDays * DAY) }));
  const topRetrieved = (
    db
      .prepare(
        `SELECT id, substr(content, 1, 300) AS content, space_id AS spaceId, kind, retrieval_count AS retrievalCount,
           last_retrieved_at AS lastRetrievedAt, importance, pinned
         FROM memories WHERE soft_deleted = 0 AND retrieval_count > 0 AND ${scope}
         ORDER BY retrieval_count DESC, last_retrieved_at DESC, rid ASC LIMIT 5`,
      )
      .all(p) as (Analytics["topRetrieved"][number] & { pinned: number | boolean })[]
  ).map((r) => ({ ...r, pinned: Boolean(r.pinned) }));
  const days = input.days ?? 30;
  const firstDay = bucketStart(now, "day") - (days - 1) * DAY;
  const perDay = new Map(
    (
      db
        .prepare(
          `SELECT substr(at, 1, 10) AS day, count(*) AS n FROM retrieval_events
           WHERE at >= @first AND (@space IS NULL OR space_id = @space) AND ${recaller} GROUP BY day`,
        )
        .all({ ...p, first: iso(firstDay) }) as { day: string; n: number }[]
    ).map((r) => [r.day, r.n]),
  );
  const retrievalsByDay = Array.from({ length: days }, (_, i) => {
    const day = iso(firstDay + i * DAY).slice(0, 10);
    return { day, retrievals: perDay.get(day) ?? 0 };
  });
  return {
    space,
    generatedAt: iso(now),
    retentionDays,
    totals: { ...totals, byKind },
    expiringSoon,
    topRetrieved,
    overTime: memoriesOverTime(db, space, input.basis ?? "timestamp", input.bucket ?? "auto"),
    retrievalsByDay,
    // Job results quote everyone's memories: an admin's to read.
    jobRuns: acting().admin ? lastJobRuns(db, 20) : [],
  };
}

/** Named query: the most recent background job runs (read-only). */
export function lastJobRuns(db: Database.Database, limit = 20): Analytics["jobRuns"] {
  const rows = db
    .prepare(
      `SELECT id, job, started_at AS startedAt, finished_at AS finishedAt, status, duration_ms AS durationMs, result, error
       FROM job_runs ORDER BY started_at DESC, id DESC LIMIT ?`,
    )
    .all(limit) as (Omit<Analytics["jobRuns"][number], "result"> & { result: string | null })[];
  return rows.map((r) => {
    let result: unknown = r.result;
    try {
      result = r.result ? JSON.parse(r.result) : null;
    } catch {
      /* keep the raw text */
    }
    return { ...r, result };
  });
}
