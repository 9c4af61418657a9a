/**
 * Analytics figures on a known data set (fixed "now", hand-set creation, deletion and retrieval times).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type Database from "better-sqlite3";
import { insertMemories, softDeleteMemories, type MemoryKind } from "../memory/store";
import { axisVector, openTempStore, type TempStore } from "../test/temp-store";
import { analytics, autoBucket, bucketStart, lastJobRuns } from "./analytics-service";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

const NOW = new Date("2024-06-20T12:00:00.000Z");

interface Row {
  name: string;
  space?: string;
  kind: MemoryKind;
  timestamp: string;
  created: string;
  pinned?: boolean;
  retrievals?: [count: number, last: string];
  deletedAt?: string;
}

const ROWS: Row[] = [
  {
    name: "m1",
    kind: "chat",
    timestamp: "2024-06-01T09:00:00.000Z",
    created: "2024-06-19T10:00:00.000Z",
    retrievals: [7, "2024-06-19T08:00:00.000Z"],
  },
  {
    name: "m2",
    kind: "document",
    timestamp: "2024-06-02T09:00:00.000Z",
    created: "2024-06-01T10:00:00.000Z",
    retrievals: [3, "2024-06-19T20:00:00.000Z"],
  },
  {
    name: "m3",
    kind: "remember",
    timestamp: "2024-06-15T09:00:00.000Z",
    created: "2024-06-14T10:00:00.000Z",
    pinned: true,
  },
  {
    name: "m4",
    kind: "import",
    timestamp: "2024-06-02T18:00:00.000Z",
    created: "2024-05-01T10:00:00.000Z",
    retrievals: [10, "2024-06-20T09:00:00.000Z"],
  },
  {
    name: "m5",
    kind: "chat",
    timestamp: "2024-05-20T09:00:00.000Z",
    created: "2024-05-20T10:00:00.000Z",
    deletedAt: "2024-05-25T00:00:00.000Z",
  },
  {
    name: "m6",
    kind: "chat",
    timestamp: "2024-06-16T09:00:00.000Z",
    created: "2024-06-16T10:00:00.000Z",
    deletedAt: "2024-06-15T00:00:00.000Z",
  },
  {
    name: "m7",
    space: "b",
    kind: "chat",
    timestamp: "2024-06-20T09:00:00.000Z",
    created: "2024-06-20T10:00:00.000Z",
    retrievals: [1, "2024-06-20T10:00:00.000Z"],
  },
  {
    name: "m8",
    kind: "consolidated",
    timestamp: "2024-06-15T18:00:00.000Z",
    created: "2024-06-12T10:00:00.000Z",
    retrievals: [3, "2024-06-18T10:00:00.000Z"],
  },
  {
    name: "m9",
    kind: "chat",
    timestamp: "2024-04-01T09:00:00.000Z",
    created: "2024-04-01T10:00:00.000Z",
    deletedAt: "2024-05-01T00:00:00.000Z",
  },
];

function seeded(): { db: Database.Database; id: Record<string, string> } {
  const s = openTempStore({ model: "test-model", dim: 8 });
  stores.push(s);
  const db = s.sqlite;
  const ids = insertMemories(
    db,
    ROWS.map((r) => ({
      spaceId: r.space ?? "a",
      content: `memory ${r.name}`,
      kind: r.kind,
      timestamp: r.timestamp,
      pinned: r.pinned,
    })),
    ROWS.map((_, i) => axisVector(8, i)),
    "test-model",
  );
  const id: Record<string, string> = {};
  ROWS.forEach((r, i) => {
    id[r.name] = ids[i]!;
    db.prepare("UPDATE memories SET created_at = ?, retrieval_count = ?, last_retrieved_at = ? WHERE id = ?").run(
      r.created,
      r.retrievals?.[0] ?? 0,
      r.retrievals?.[1] ?? null,
      ids[i],
    );
    // The recall log: one event at the last retrieval time (earlier ones fall outside the charted window).
    if (r.retrievals)
      db.prepare(
        "INSERT INTO retrieval_events (memory_id, space_id, at) SELECT id, space_id, ? FROM memories WHERE id = ?",
      ).run(r.retrievals[1], ids[i]);
    if (r.deletedAt) softDeleteMemories(db, [ids[i]!], r.deletedAt);
  });
  return { db, id };
}

test("totals, expiring soft-deletes and the top retrieved of one space", () => {
  const { db, id } = seeded();
  const a = analytics(db, { space: "a" }, { now: NOW });
  assert.deepEqual(a.totals, {
    memories: 5,
    pinned: 1,
    addedThisWeek: 3, // m1, m3, and m6 (added, then deleted)
    addedThisWeekLive: 2, // m1 and m3: the ones also counted in memories
    softDeleted: 3,
    expiringWithin7Days: 2, // m5 (purged on 06-24) and m9 (overdue); m6 is purged on 07-15
    retrievals: 23,
    byKind: { chat: 1, document: 1, remember: 1, import: 1, consolidated: 1 },
  });
  assert.deepEqual(
    a.expiringSoon.map((e) => [e.id, e.purgeAt]),
    [
      [id.m9, "2024-05-31T00:00:00.000Z"],
      [id.m5, "2024-06-24T00:00:00.000Z"],
    ],
  );
  assert.deepEqual(
    a.topRetrieved.map((t) => [t.content, t.retrievalCount]),
    [
      ["memory m4", 10],
      ["memory m1", 7],
      ["memory m2", 3], // ties: the more recently retrieved first
      ["memory m8", 3],
    ],
  );
  assert.deepEqual(a.retrievalsByDay.length, 30);
  const all = analytics(db, { days: 7 }, { now: NOW });
  assert.equal(all.space, null);
  assert.deepEqual([all.totals.memories, all.totals.addedThisWeek, all.totals.retrievals], [6, 4, 24]);
  assert.equal(all.topRetrieved.length, 5);
  assert.deepEqual(all.retrievalsByDay, [
    { day: "2024-06-14", retrievals: 0 },
    { day: "2024-06-15", retrievals: 0 },
    { day: "2024-06-16", retrievals: 0 },
    { day: "2024-06-17", retrievals: 0 },
    { day: "2024-06-18", retrievals: 1 },
    { day: "2024-06-19", retrievals: 2 },
    { day: "2024-06-20", retrievals: 2 },
  ]);
  // A shorter retention brings m6 into the window too.
  assert.equal(analytics(db, { space: "a" }, { now: NOW, retentionDays: 10 }).totals.expiringWithin7Days, 3);
  // An empty space is all zeros, not an error.
  db.prepare("INSERT INTO spaces (id) VALUES ('empty')").run();
  const e = analytics(db, { space: "empty" }, { now: NOW });
  assert.deepEqual(
    [e.totals.memories, e.totals.pinned, e.totals.addedThisWeek, e.topRetrieved.length, e.overTime.points.length],
    [0, 0, 0, 0, 0],
  );
});

test("memories over time by kind: continuous buckets, by event time or by time stored", () => {
  const { db } = seeded();
  const a = analytics(db, { space: "a" }, { now: NOW });
  assert.equal(a.overTime.bucket, "day");
  assert.equal(a.overTime.points.length, 15, "every day from the first memory to the last, gaps as zeros");
  const at = (p: string) => a.overTime.points.find((x) => x.period === p);
  assert.deepEqual(at("2024-06-01"), {
    period: "2024-06-01",
    chat: 1,
    document: 0,
    remember: 0,
    import: 0,
    consolidated: 0,
  });
  assert.deepEqual(at("2024-06-02"), {
    period: "2024-06-02",
    chat: 0,
    document: 1,
    remember: 0,
    import: 1,
    consolidated: 0,
  });
  assert.deepEqual(at("2024-06-15"), {
    period: "2024-06-15",
    chat: 0,
    document: 0,
    remember: 1,
    import: 0,
    consolidated: 1,
  });
  assert.deepEqual(at("2024-06-08"), {
    period: "2024-06-08",
    chat: 0,
    document: 0,
    remember: 0,
    import: 0,
    consolidated: 0,
  });

  const monthly = analytics(db, { space: "a", bucket: "month", basis: "created" }, { now: NOW }).overTime;
  assert.deepEqual(monthly.points, [
    { period: "2024-05", chat: 0, document: 0, remember: 0, import: 1, consolidated: 0 },
    { period: "2024-06", chat: 1, document: 1, remember: 1, import: 0, consolidated: 1 },
  ]);
  const weekly = analytics(db, { space: "a", bucket: "week" }, { now: NOW }).overTime.points;
  assert.deepEqual(
    weekly.map((p) => p.period),
    ["2024-05-27", "2024-06-03", "2024-06-10"],
    "weeks start on Monday",
  );

  assert.equal(autoBucket(0, 100 * 86_400_000), "day");
  assert.equal(autoBucket(0, 400 * 86_400_000), "week");
  assert.equal(autoBucket(0, 5 * 365 * 86_400_000), "month");
  assert.equal(
    new Date(bucketStart(Date.parse("2024-06-16T23:00:00Z"), "week")).toISOString(),
    "2024-06-10T00:00:00.000Z",
  );
});

test("one old import does not stretch the time axis: what is older than the bulk is one leading bar", () => {
  const s = openTempStore({ model: "test-model", dim: 8 });
  stores.push(s);
  const recent = Array.from({ length: 50 }, (_, i) => ({
    spaceId: "c",
    content: `recent ${i}`,
    kind: "chat" as const,
    timestamp: new Date(NOW.getTime() - (i % 30) * 86_400_000).toISOString(),
  }));
  const old = {
    spaceId: "c",
    content: "from a 2021 import",
    kind: "import" as const,
    timestamp: "2021-03-04T10:00:00.000Z",
  };
  insertMemories(
    s.sqlite,
    [...recent, old],
    [...recent, old].map((_, i) => axisVector(8, i % 8)),
    "test-model",
  );
  const o = analytics(s.sqlite, { space: "c" }, { now: NOW }).overTime;
  assert.equal(o.bucket, "day", "the axis spans the 30 days of the bulk, not 3 years");
  assert.ok(o.points[0]!.period.startsWith("before "), o.points[0]!.period);
  assert.deepEqual([o.points[0]!.import, o.points[0]!.chat], [1, 0]);
  assert.equal(o.earlier?.count, 1);
  assert.equal(o.points.length, 1 + 30);
  assert.equal(
    o.points.reduce((n, p) => n + p.chat + p.import, 0),
    51,
    "every live memory counted once",
  );
  // Evenly spread data is not windowed.
  const even = analytics(s.sqlite, { space: "c", basis: "created" }, { now: NOW }).overTime;
  assert.equal(even.earlier, null);
});

test("the last job runs, newest first, with their JSON results", () => {
  const { db } = seeded();
  const ins = db.prepare(
    "INSERT INTO job_runs (job, started_at, finished_at, status, result, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  ins.run(
    "decay",
    "2024-06-18T03:00:00.000Z",
    "2024-06-18T03:00:01.000Z",
    "ok",
    JSON.stringify({ decayed: 4 }),
    null,
    1000,
  );
  ins.run(
    "consolidate",
    "2024-06-19T03:00:00.000Z",
    "2024-06-19T03:00:02.000Z",
    "skipped",
    JSON.stringify({ reason: "no chat provider" }),
    null,
    12.5,
  );
  ins.run("decay", "2024-06-20T03:00:00.000Z", null, "failed", null, "disk full", null);
  const runs = lastJobRuns(db, 2);
  assert.deepEqual(
    runs.map((r) => [r.job, r.status, r.result, r.error]),
    [
      ["decay", "failed", null, "disk full"],
      ["consolidate", "skipped", { reason: "no chat provider" }, null],
    ],
  );
  assert.equal(analytics(db, {}, { now: NOW }).jobRuns.length, 3);
});

test("every recall is logged per day, and purging a memory removes its log", async () => {
  const { openTempStore, axisVector } = await import("../test/temp-store");
  const { insertMemories, recordRetrievals, purgeMemories } = await import("../memory/store");
  const s = openTempStore({ model: "test-8d", dim: 8 });
  try {
    const [a, b] = insertMemories(
      s.sqlite,
      [
        { spaceId: "personal", content: "a" },
        { spaceId: "personal", content: "b" },
      ],
      [axisVector(8, 0), axisVector(8, 1)],
      "test-8d",
    );
    recordRetrievals(s.sqlite, [a!, b!], "2024-06-19T08:00:00.000Z");
    recordRetrievals(s.sqlite, [a!], "2024-06-19T20:00:00.000Z");
    recordRetrievals(s.sqlite, [a!], "2024-06-20T09:00:00.000Z");
    const now = new Date("2024-06-20T12:00:00.000Z");
    const days = (x: ReturnType<typeof analytics>) => x.retrievalsByDay.filter((d) => d.retrievals > 0);
    assert.deepEqual(days(analytics(s.sqlite, { days: 3 }, { now })), [
      { day: "2024-06-19", retrievals: 3 },
      { day: "2024-06-20", retrievals: 1 },
    ]);
    purgeMemories(s.sqlite, [a!]);
    assert.deepEqual(days(analytics(s.sqlite, { days: 3 }, { now })), [{ day: "2024-06-19", retrievals: 1 }]);
  } finally {
    s.close();
  }
});
