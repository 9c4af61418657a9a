import assert from "node:assert/strict";
import { after, test } from "node:test";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { eventCandidates, withEventWindows } from "./event-dates";
import { searchWithVectors } from "./retrieve";
import { defaultSettingsFor } from "./settings";
import { insertMemories, softDeleteMemories } from "../store";
import { eventRelatives, eventWindow, inWindows, parseTimeIntent } from "./time-window";

// A fixed clock: every date below resolves against this turn's date.
const NOW = Date.parse("2024-09-15T12:00:00.000Z");
const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

test("'the day after <event>' is parsed into its lead, unit, relation and the event's words", () => {
  assert.deepEqual(eventRelatives("What did I do the day after the concert?"), [
    { lead: "the day after", unit: "day", relation: "after", event: "the concert" },
  ]);
  assert.deepEqual(eventRelatives("Remind me what we talked about the week before I moved, please"), [
    { lead: "the week before", unit: "week", relation: "before", event: "I moved" },
  ]);
  // The event stops where another clause starts.
  assert.equal(eventRelatives("the morning after the wedding and what did I eat")[0]!.event, "the wedding");
  assert.deepEqual(eventRelatives("What's my dog called?"), []);
  assert.deepEqual(eventRelatives("the day after ?"), []);
  // chrono-node would read "the day after" as tomorrow: it is an event span, not a date window.
  const intent = parseTimeIntent("what did I do the day after the concert?", new Date(NOW));
  assert.equal(intent.windows.length, 0);
  assert.equal(intent.events.length, 1);
  // …also when chrono-node takes a word before it into the date ("about the day after").
  assert.equal(parseTimeIntent("What did we talk about the day after the concert?", new Date(NOW)).windows.length, 0);
});

test("event windows: the next (previous) calendar day, or the week/month just after (before) the event", () => {
  const at = "2024-06-21T19:30:00.000Z";
  const day = eventWindow({ lead: "the day after", unit: "day", relation: "after", event: "x" }, at, NOW);
  // The rest of the event's own day is not "the day after".
  assert.deepEqual(day, { start: "2024-06-22T00:00:00.000Z", end: "2024-06-22T23:59:59.999Z" });
  const before = eventWindow({ lead: "the day before", unit: "day", relation: "before", event: "x" }, at, NOW);
  assert.deepEqual(before, { start: "2024-06-20T00:00:00.000Z", end: "2024-06-20T23:59:59.999Z" });
  // Calendar days are the person's: 19:30 UTC is already the 22nd in Tokyo (UTC+9), so the day after
  // is Tokyo's 23rd; in New York (UTC−4) it is still the 21st, and the day after is New York's 22nd.
  const tokyo = eventWindow({ lead: "the day after", unit: "day", relation: "after", event: "x" }, at, NOW, 540);
  assert.deepEqual(tokyo, { start: "2024-06-22T15:00:00.000Z", end: "2024-06-23T14:59:59.999Z" });
  const ny = eventWindow({ lead: "the day after", unit: "day", relation: "after", event: "x" }, at, NOW, -240);
  assert.deepEqual(ny, { start: "2024-06-22T04:00:00.000Z", end: "2024-06-23T03:59:59.999Z" });
  // "The night after" starts right after the event and runs to the end of the next day.
  const night = eventWindow({ lead: "the night after", unit: "night", relation: "after", event: "x" }, at, NOW);
  assert.deepEqual(night, { start: "2024-06-21T19:30:00.001Z", end: "2024-06-22T23:59:59.999Z" });
  const week = eventWindow({ lead: "the week after", unit: "week", relation: "after", event: "x" }, at, NOW);
  assert.equal(week.end, "2024-06-28T19:30:00.000Z");
  // Never past the turn (plus a day).
  const late = eventWindow(
    { lead: "the month after", unit: "month", relation: "after", event: "x" },
    "2024-09-10T00:00:00.000Z",
    NOW,
  );
  assert.equal(late.end, "2024-09-16T12:00:00.000Z");
});

test("the event is dated from the space's best keyword match told by the turn's date; none, no window", () => {
  const s = openTempStore({ model: "test-model", dim: 8 });
  stores.push(s);
  const [concert, , , , trashed] = insertMemories(
    s.sqlite,
    [
      {
        spaceId: "personal",
        content: "Went to the Fleetwood Mac tribute concert with Ravi tonight",
        timestamp: "2024-06-21T21:00:00.000Z",
      },
      {
        spaceId: "personal",
        content: "Slept in, then a long walk by the river",
        timestamp: "2024-06-22T11:00:00.000Z",
      },
      { spaceId: "personal", content: "Booked tickets for the autumn concert", timestamp: "2024-10-01T09:00:00.000Z" },
      { spaceId: "work", content: "The office concert rehearsal ran late", timestamp: "2024-03-01T18:00:00.000Z" },
      { spaceId: "personal", content: "The jazz recital was lovely", timestamp: "2024-05-01T20:00:00.000Z" },
    ],
    [0, 1, 2, 3, 4].map((i) => axisVector(8, i)),
    "test-model",
  );
  softDeleteMemories(s.sqlite, [trashed!]);
  const dated = (q: string) => withEventWindows(s.sqlite, "personal", parseTimeIntent(q, new Date(NOW)), NOW);
  const intent = dated("What did I do the day after the concert?");
  assert.equal(intent.windows.length, 1);
  const w = intent.windows[0]!;
  // The October concert lies after the turn and the work space's is another space: June's is the event.
  assert.deepEqual(w.event, { text: "the concert", memoryId: concert, at: "2024-06-21T21:00:00.000Z" });
  assert.equal(w.text, "the day after");
  assert.ok(inWindows("2024-06-22T11:00:00.000Z", [w]));
  assert.equal(inWindows("2024-06-21T21:00:00.000Z", [w]), null, "the event's own memory is not 'after' it");
  // An event the space never mentions (a soft-deleted memory does not count) dates nothing.
  assert.equal(dated("the day after the recital?").windows.length, 0);
});

test("the event's memory: reciprocal-rank fusion of the keyword and dense candidates", () => {
  // Keyword leg: 7, 3, 9. Dense leg: 3, 5. Memory 3 is in both and wins; 7 (keyword first) is second.
  assert.deepEqual(eventCandidates([{ rid: 7 }, { rid: 3 }, { rid: 9 }], [{ rid: 3 }, { rid: 5 }]), [3, 7, 5, 9]);
  assert.deepEqual(eventCandidates([{ rid: 1 }], []), [1]);
  assert.deepEqual(eventCandidates([], []), []);
  // A keyword hit that holds every word of the event comes first, whatever the ranks say; two such hits
  // keep the fused order between them.
  assert.deepEqual(
    eventCandidates([{ rid: 7, complete: true }, { rid: 3 }, { rid: 9, complete: true }], [{ rid: 3 }, { rid: 9 }]),
    [9, 7, 3],
  );
});

test("the event's memory: the one holding every word of the event beats one both legs half-like", () => {
  const s = openTempStore({ model: "test-model", dim: 8 });
  stores.push(s);
  // [content, date] in the personal space, one axis each.
  const notes: [string, string][] = [
    ["I signed up for a Wednesday evening wheel-throwing course at Clay Corner", "2024-01-10"],
    ["Cleaned out the garage and signed the skip hire form; found my old rollerblades", "2024-01-17"],
    ["The bike needs a new wheel", "2024-02-01"],
    ["Is the first aid course worth it?", "2024-03-01"],
  ];
  const [course, garage] = insertMemories(
    s.sqlite,
    notes.map(([content, day]) => ({ spaceId: "personal", content, timestamp: `${day}T10:00:00.000Z` })),
    notes.map((_, i) => axisVector(8, i)),
    "test-model",
  );
  const q = "What came up the day after I signed up for the wheel-throwing course?";
  // The dense leg, reading the whole question, puts the garage first and the course nowhere.
  const dated = (vectorHits: { rid: number }[]) =>
    withEventWindows(s.sqlite, "personal", parseTimeIntent(q, new Date(NOW)), NOW, vectorHits).windows[0]!.event!;
  const rid = (id: string) =>
    (s.sqlite.prepare("SELECT rid FROM memories WHERE id = ?").get(id) as { rid: number }).rid;
  assert.equal(dated([{ rid: rid(garage!) }]).memoryId, course);
  // Without a memory holding all of its words ("pottery" is in none), fusion decides as before: the
  // memory in both legs wins, whichever the dense leg names.
  const partial = parseTimeIntent("the day after I signed up for pottery?", new Date(NOW));
  const anchor = (hit: string) =>
    withEventWindows(s.sqlite, "personal", partial, NOW, [{ rid: rid(hit) }]).windows[0]!.event!.memoryId;
  assert.equal(anchor(garage!), garage);
  assert.equal(anchor(course!), course);
});

test("retrieval: what was said the day after an event is marked as inside the window the event dates", () => {
  const s = openTempStore({ model: "axis", dim: 8 });
  stores.push(s);
  const q = new Float32Array(8);
  q[0] = 1;
  // The next day's memory shares no word with the question and is far from it (cosine 0.29); 150 other
  // memories, on other days, are nearer than it, so the vector leg's 50 candidates never include it.
  const tap = new Float32Array(8);
  tap[0] = 0.3;
  tap[7] = 1;
  const n = Math.hypot(0.3, 1);
  tap[0]! /= n;
  tap[7]! /= n;
  const fillers = Array.from({ length: 150 }, (_, i) => ({
    spaceId: "personal",
    content: `Everyday note number ${i} about errands`,
    timestamp: new Date(Date.parse("2024-01-01T09:00:00.000Z") + i * 3_600_000).toISOString(),
  }));
  const [concert, fixed] = insertMemories(
    s.sqlite,
    [
      {
        spaceId: "personal",
        content: "Saw the tribute concert with Ravi tonight",
        timestamp: "2024-06-21T21:00:00.000Z",
      },
      { spaceId: "personal", content: "Fixed the leaking tap in the bathroom", timestamp: "2024-06-22T10:00:00.000Z" },
      ...fillers,
    ],
    [axisVector(8, 3), tap, ...fillers.map(() => axisVector(8, 0, 0.01))],
    "axis",
  );
  const query = "What else did we talk about the day after the concert?";
  const base = { ...defaultSettingsFor("universal-sentence-encoder-lite"), minConfidence: 0 };
  // A pool deep enough that the vector leg returns every memory: this test is about dating the window.
  const run = (tzOffsetMinutes = 0) =>
    searchWithVectors(
      s.sqlite,
      { query, spaceId: "personal", k: 200, pool: 200, now: "2024-09-15T12:00:00.000Z", tzOffsetMinutes },
      base,
      [{ role: "main", text: query }],
      [q],
    );
  const on = run();
  // In Tokyo (UTC+9) the concert was on the 22nd in the morning and the tap that evening: the same day,
  // so not "the day after"; the window is Tokyo's 23rd.
  const tokyo = run(540);
  assert.equal(tokyo.time.windows[0]!.start, "2024-06-22T15:00:00.000Z");
  assert.ok(!tokyo.results.find((r) => r.id === fixed)?.moves.some((m) => m.startsWith("date ×")));
  assert.equal(on.time.windows[0]!.event!.memoryId, concert);
  const hit = on.results.find((r) => r.id === fixed);
  assert.ok(
    hit?.moves.some((m) => m.startsWith("date ×3.00 (in “the day after the concert”)")),
    hit?.moves.join("; "),
  );
  assert.equal(hit!.features!.dateMatch, 1, "the confidence reads that it lies in the window");
  assert.ok(Math.abs(hit!.scores.similarity! - 0.3 / n) < 1e-6, "its similarity is the real one");
});
