import assert from "node:assert/strict";
import { test } from "node:test";
import { inWindows, parseTimeIntent } from "./time-window";

// A fixed clock: every relative date below resolves against this turn's date.
const REF = new Date("2024-09-15T12:00:00.000Z");

test("a month without a year is the month of the turn's year, or the year before when it would lie ahead", () => {
  const may = parseTimeIntent("What did I say about the car in May?", REF).windows;
  assert.deepEqual(
    may.map((w) => [w.start, w.end]),
    [["2024-05-01T00:00:00.000Z", "2024-05-31T23:59:59.999Z"]],
  );
  const nov = parseTimeIntent("What happened in November?", REF).windows;
  assert.equal(nov[0]!.start, "2023-11-01T00:00:00.000Z", "November 2024 has not happened yet on 15 Sep 2024");
});

test("dates counted back from the turn widen by half their distance: last week is the week around 7 days ago, yesterday one calendar day", () => {
  const week = parseTimeIntent("what did I mention about the dog last week?", REF).windows[0]!;
  assert.equal(week.start, "2024-09-05T00:00:00.000Z");
  assert.equal(week.end, "2024-09-11T23:59:59.999Z");
  assert.equal(week.text, "last week");
  const y = parseTimeIntent("Remind me what I said yesterday", REF).windows[0]!;
  assert.equal(y.start, "2024-09-14T00:00:00.000Z");
  assert.equal(y.end, "2024-09-14T23:59:59.999Z");
  const few = parseTimeIntent("I told you a few days ago", REF).windows[0]!;
  assert.deepEqual([few.start, few.end], ["2024-09-11T00:00:00.000Z", "2024-09-13T23:59:59.999Z"], "3 days back ± 1");
  const fortnight = parseTimeIntent("what did I say two weeks ago?", REF).windows[0]!;
  assert.deepEqual(
    [fortnight.start, fortnight.end],
    ["2024-08-25T00:00:00.000Z", "2024-09-08T23:59:59.999Z"],
    "14 days back ± 7",
  );
  const named = parseTimeIntent("What did we do on September 8th?", REF).windows[0]!;
  assert.deepEqual(
    [named.start, named.end],
    ["2024-09-08T00:00:00.000Z", "2024-09-08T23:59:59.999Z"],
    "a named day is that day, however far back",
  );
  assert.ok(inWindows("2024-09-11T18:00:00.000Z", [week]));
  assert.equal(inWindows("2024-09-12T00:00:00.000Z", [week]), null);
});

test("an absolute day; a span that starts after the turn (tomorrow, 'the day after' the concert) is no window", () => {
  const d = parseTimeIntent("What did we do on June 3rd?", REF).windows[0]!;
  assert.deepEqual([d.start, d.end], ["2024-06-03T00:00:00.000Z", "2024-06-03T23:59:59.999Z"]);
  assert.equal(parseTimeIntent("what did I do the day after the concert?", REF).windows.length, 0);
  assert.equal(parseTimeIntent("what shall I cook tomorrow?", REF).windows.length, 0);
  assert.equal(parseTimeIntent("What's my dog called?", REF).windows.length, 0);
});

test("dates are the person's calendar days: yesterday at 6 pm in California is not a UTC day holding today", () => {
  // 2024-09-16T01:00Z is 15 Sep, 18:00 in California (UTC-7 in September).
  const ref = new Date("2024-09-16T01:00:00.000Z");
  const la = -420;
  const y = parseTimeIntent("Remind me what I said yesterday", ref, la).windows[0]!;
  assert.deepEqual([y.start, y.end], ["2024-09-14T07:00:00.000Z", "2024-09-15T06:59:59.999Z"]);
  assert.equal(
    inWindows("2024-09-15T20:00:00.000Z", [y]),
    null,
    "this afternoon (15 Sep, 13:00 local) is today, not yesterday",
  );
  assert.ok(inWindows("2024-09-15T03:00:00.000Z", [y]), "14 Sep, 20:00 local is yesterday");
  // The same instant in UTC: yesterday is 15 Sep.
  assert.equal(
    parseTimeIntent("Remind me what I said yesterday", ref, 0).windows[0]!.start,
    "2024-09-15T00:00:00.000Z",
  );
  const d = parseTimeIntent("What did we do on June 3rd?", ref, 540).windows[0]!;
  assert.deepEqual([d.start, d.end], ["2024-06-02T15:00:00.000Z", "2024-06-03T14:59:59.999Z"], "3 June in Tokyo");
  const may = parseTimeIntent("What did I say about the car in May?", ref, la).windows[0]!;
  assert.deepEqual([may.start, may.end], ["2024-05-01T07:00:00.000Z", "2024-06-01T06:59:59.999Z"], "May in California");
});
