/**
 * Decay and purge over 70 simulated days (an injected clock, two runs a day), on a real store file:
 * exact importances, soft-deletes and purges per day, idempotent second runs, every run in job_runs.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runDecayJob } from "../../jobs/jobs";
import { listRuns } from "../../core/job-runner";
import { loadJobSettings, loadPersonLifetime, saveJobSettings, savePersonLifetime } from "../../jobs/settings";
import { runAs } from "../../core/acting";
import { OWNER_ID } from "../../core/space-name";
import { hashedVector, TEST_MODEL_A } from "../../test/test-dim-embedder";
import { openTempStore, rawCounts, type TempStore } from "../../test/temp-store";
import { dayMinus, runDecay, utcDay } from "./decay";
import { checkInvariant, insertMemories, recordRetrievals, softDeleteMemories } from "../store";
import { insertFacts } from "../facts/store";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

const DAY0 = Date.parse("2030-01-01T00:00:00.000Z");
const at = (day: number, hour: number) => new Date(DAY0 + day * 86_400_000 + hour * 3_600_000);

type State = "live" | "soft" | "purged";
/** Each memory's changes: [day, importance after that day's runs, state]. */
const TIMELINE: Record<string, [number, number | null, State][]> = {
  // importance 2, never retrieved: decays on days 14 and 15, at 0 from day 15, soft-deleted 7 days later, purged 30 after that.
  A: [
    [0, 2, "live"],
    [14, 1, "live"],
    [15, 0, "live"],
    [22, 0, "soft"],
    [52, null, "purged"],
  ],
  // pinned: never decays.
  B: [[0, 5, "live"]],
  // retrieved on day 10 in the evening (promoted to 2): idle from day 10, decays on days 24 and 25.
  C: [
    [0, 1, "live"],
    [11, 2, "live"],
    [24, 1, "live"],
    [25, 0, "live"],
    [32, 0, "soft"],
    [62, null, "purged"],
  ],
  // imported at importance 0: marked at the first run, soft-deleted a week later.
  D: [
    [0, 0, "live"],
    [7, 0, "soft"],
    [37, null, "purged"],
  ],
  // forgotten (/forget) on day 5 in the evening: purged after the 30-day retention.
  E: [
    [0, 3, "live"],
    [6, 3, "soft"],
    [35, null, "purged"],
  ],
  // at 0 from day 14, retrieved on day 16 in the evening (back to 1, the zero mark cleared), idle again until day 30.
  F: [
    [0, 1, "live"],
    [14, 0, "live"],
    [17, 1, "live"],
    [30, 0, "live"],
    [37, 0, "soft"],
    [67, null, "purged"],
  ],
};

function expected(name: string, day: number): { importance: number | null; state: State } {
  const e = TIMELINE[name]!.filter(([d]) => d <= day).at(-1)!;
  return { importance: e[1], state: e[2] };
}

test("day arithmetic is on UTC calendar days", () => {
  assert.equal(utcDay(new Date("2030-03-01T23:59:59.999Z")), "2030-03-01");
  assert.equal(dayMinus("2030-03-01", 1), "2030-02-28");
  assert.equal(dayMinus("2030-01-08", 7), "2030-01-01");
});

test("decay, soft-delete and purge over 70 simulated days match the timeline exactly; second runs change nothing", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  const spec: Record<string, { importance: number; pinned?: boolean }> = {
    A: { importance: 2 },
    B: { importance: 5, pinned: true },
    C: { importance: 1 },
    D: { importance: 0 },
    E: { importance: 3 },
    F: { importance: 1 },
  };
  const names = Object.keys(spec);
  const ids = insertMemories(
    db,
    names.map((n) => ({
      spaceId: "personal",
      content: `memory ${n}`,
      importance: spec[n]!.importance,
      pinned: spec[n]!.pinned,
    })),
    names.map((n) => hashedVector(`memory ${n}`, 4)),
    TEST_MODEL_A,
  );
  const id = Object.fromEntries(names.map((n, i) => [n, ids[i]!]));
  // They entered the store on day 0 (insertMemories stamps the real clock).
  db.prepare("UPDATE memories SET created_at = ?").run(at(0, 1).toISOString());

  /** What each day's state is checked against: the timeline's entry for that day (changes seen after both runs). */
  const observe = (name: string): { importance: number | null; state: State } => {
    const r = db.prepare("SELECT importance, soft_deleted AS sd FROM memories WHERE id = ?").get(id[name]) as
      | { importance: number; sd: number }
      | undefined;
    return r ? { importance: r.importance, state: r.sd ? "soft" : "live" } : { importance: null, state: "purged" };
  };

  for (let day = 0; day <= 70; day++) {
    const first = await runDecayJob({ db }, { now: () => at(day, 3), trigger: "schedule" });
    assert.equal(first.status, "ok", `day ${day}: ${first.error}`);
    const before = db
      .prepare("SELECT id, importance, soft_deleted, zero_importance_since FROM memories ORDER BY rid")
      .all();
    const second = await runDecayJob({ db }, { now: () => at(day, 15), trigger: "manual" });
    const r = second.result as { counts: Record<string, number>; decaySkipped: string | null; zeroMarked: number };
    assert.deepEqual(
      [r.counts.decayed, r.counts.softDeleted, r.counts.purged, r.zeroMarked],
      [0, 0, 0, 0],
      `day ${day}: the second run changed something`,
    );
    assert.match(r.decaySkipped!, /already decayed/);
    assert.deepEqual(
      db.prepare("SELECT id, importance, soft_deleted, zero_importance_since FROM memories ORDER BY rid").all(),
      before,
    );
    for (const n of names) assert.deepEqual(observe(n), expected(n, day), `memory ${n} on day ${day}`);
    assert.deepEqual(checkInvariant(db), [], `day ${day}`);
    // Events of the day, in the evening (seen at the next day's check).
    if (day === 5) softDeleteMemories(db, [id.E!], at(5, 20).toISOString());
    if (day === 10) recordRetrievals(db, [id.C!], at(10, 20).toISOString());
    if (day === 16) recordRetrievals(db, [id.F!], at(16, 20).toISOString());
  }
  // Only the pinned memory is left, in all three tables; the trash is empty.
  assert.deepEqual(rawCounts(db), { memories: 1, vec: 1, fts: 1, trash: 0 });

  // Every run is recorded, with what it changed.
  const runs = listRuns(db, { job: "decay", limit: 500 });
  assert.equal(runs.length, 142);
  assert.ok(runs.every((r) => r.status === "ok" && r.finishedAt && r.durationMs !== null));
  const byDay = (day: number) =>
    runs.find((r) => (r.result as { day: string }).day === utcDay(at(day, 3)) && r.result!.trigger === "schedule")!
      .result as {
      counts: Record<string, number>;
      changes: { decayed: { id: string; importance: number }[]; softDeleted: string[]; purged: string[] };
    };
  assert.deepEqual(
    byDay(14)
      .changes.decayed.map((d) => d.id)
      .sort(),
    [id.A, id.F].sort(),
  );
  assert.deepEqual(byDay(22).changes.softDeleted, [id.A]);
  assert.deepEqual(byDay(37).changes.softDeleted, [id.F]);
  assert.deepEqual(byDay(37).changes.purged, [id.D]);
  assert.equal(byDay(11).counts.promoted, 1, "the day-10 retrieval is reported as a promotion");
});

test("a clock set back does not decay again; a longer idle period from the settings applies", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  const [x] = insertMemories(
    db,
    [{ spaceId: "personal", content: "idle memory", importance: 3 }],
    [hashedVector("idle memory", 4)],
    TEST_MODEL_A,
  );
  db.prepare("UPDATE memories SET created_at = ?").run(at(0, 1).toISOString());
  saveJobSettings(db, { decay: { idleDays: 30 } });
  const imp = () =>
    (db.prepare("SELECT importance FROM memories WHERE id = ?").get(x) as { importance: number }).importance;
  await runDecayJob({ db }, { now: () => at(29, 3) });
  assert.equal(imp(), 3);
  await runDecayJob({ db }, { now: () => at(30, 3) });
  assert.equal(imp(), 2);
  const back = runDecay(db, { idleDays: 30, zeroDays: 7, retentionDays: 30, now: () => at(29, 3) });
  assert.equal(back.counts.decayed, 0);
  assert.match(back.decaySkipped!, /2030-01-31/);
  assert.equal(imp(), 2);
});

test("each person's memories decay by that person's lifetime settings (issue 32)", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  // The owner keeps the defaults (14 idle days; chat decays, /remember is kept); p1 decays after 2 idle days,
  // and also their /remember memories; p2 keeps chat (does not decay) and empties the trash after 1 day.
  runAs({ personId: "p1", admin: false }, () =>
    saveJobSettings(db, { decay: { idleDays: 2, zeroDays: 1 }, lifetime: { remember: "decay" } }),
  );
  runAs({ personId: "p2", admin: false }, () => {
    savePersonLifetime(db, { retentionDays: 1, lifetime: { chat: "keep" } });
  });
  assert.equal(loadPersonLifetime(db, OWNER_ID).idleDays, 14, "p1's change is not the owner's");
  assert.equal(
    runAs({ personId: "p1", admin: false }, () => loadJobSettings(db).decay.idleDays),
    2,
  );
  const ids = insertMemories(
    db,
    [
      { spaceId: "personal", content: "owner chat", importance: 1, kind: "chat" },
      { spaceId: "p1~personal", content: "p1 chat", importance: 1, kind: "chat" },
      { spaceId: "p1~personal", content: "p1 remember", importance: 1, kind: "remember" },
      { spaceId: "p2~personal", content: "p2 chat", importance: 1, kind: "chat" },
      { spaceId: "p2~personal", content: "p2 trashed", importance: 1, kind: "chat" },
      { spaceId: "personal", content: "owner trashed", importance: 1, kind: "chat" },
    ],
    ["a", "b", "c", "d", "e", "f"].map((t) => hashedVector(t, 4)),
    TEST_MODEL_A,
  );
  const [ownerChat, p1Chat, p1Remember, p2Chat, p2Trashed, ownerTrashed] = ids as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  db.prepare("UPDATE memories SET created_at = ?").run(at(0, 1).toISOString());
  softDeleteMemories(db, [p2Trashed, ownerTrashed], at(0, 2).toISOString());

  // Day 5: only p1's memories are idle past their 2 days; p2's trash is past its 1-day retention.
  const run = await runDecayJob({ db }, { now: () => at(5, 3) });
  const imp = (id: string) =>
    (db.prepare("SELECT importance AS i FROM memories WHERE id = ?").get(id) as { i: number } | undefined)?.i;
  assert.equal(imp(ownerChat), 1, "the owner's 14 idle days have not passed");
  assert.equal(imp(p1Chat), 0);
  assert.equal(imp(p1Remember), 0, "p1 lets /remember decay");
  assert.equal(imp(p2Chat), 1, "p2 keeps chat");
  assert.equal(imp(p2Trashed), undefined, "purged after p2's 1-day retention");
  assert.equal(imp(ownerTrashed), 1, "the owner's 30-day retention has not passed");
  const people = (run.result as { people: Record<string, { idleDays: number; kinds: string[] }> }).people;
  assert.equal(people.owner?.idleDays, 14);
  assert.equal(people.p1?.idleDays, 2);
  assert.deepEqual(people.p2?.kinds, ["consolidated"]);
  // Day 6: p1's memories reach their 1 day at 0 and are soft-deleted; nobody else's move.
  await runDecayJob({ db }, { now: () => at(6, 3) });
  const soft = (id: string) =>
    (db.prepare("SELECT soft_deleted AS d FROM memories WHERE id = ?").get(id) as { d: number }).d;
  assert.deepEqual([soft(p1Chat), soft(p1Remember), soft(ownerChat), soft(p2Chat)], [1, 1, 0, 0]);
  assert.deepEqual(checkInvariant(db), []);
});

test("facts never decay (issue 42): a current fact and its history stay as they were over 400 days while a source lives", () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  // A pinned memory (never decays) and a /remember one (kept by the default lifetime) back the facts.
  const [pinned, kept] = insertMemories(
    db,
    [
      { spaceId: "personal", content: "User: I moved to Berlin", pinned: true, timestamp: at(0, 1).toISOString() },
      { spaceId: "personal", content: "remember: Lisbon now", kind: "remember", timestamp: at(1, 1).toISOString() },
    ],
    [hashedVector("berlin", 4), hashedVector("lisbon", 4)],
    TEST_MODEL_A,
  );
  const fact = (text: string, sources: string[], replaces?: string[]) =>
    insertFacts(
      db,
      "personal",
      [{ text, sources, replaces, origin: "learned" }],
      [hashedVector(text, 4)],
      TEST_MODEL_A,
    )[0]!;
  const berlin = fact("Lives in Berlin", [pinned!]);
  fact("Lives in Lisbon", [kept!], [berlin]);
  db.prepare("UPDATE facts SET recorded_at = ?").run(at(0, 2).toISOString());
  const rows = () => ({
    facts: db.prepare("SELECT * FROM facts ORDER BY rid").all(),
    sources: db.prepare("SELECT * FROM fact_sources ORDER BY fact_id, memory_id").all(),
    vectors: db.prepare("SELECT rid, space_id FROM fact_vectors ORDER BY rid").all(),
  });
  const before = rows();
  for (let day = 1; day <= 400; day++)
    runDecay(db, { idleDays: 14, zeroDays: 7, retentionDays: 30, now: () => at(day, 3) });
  assert.deepEqual(rows(), before, "no fact row, source or vector changed");
  assert.deepEqual(checkInvariant(db), []);
});
