import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { dateFormats } from "./local-time";

const AT = "2026-12-07T15:32:00Z";

test("one format per locale: the day, the day and time, the time; a chart's day and month in the same style", () => {
  const us = dateFormats("en-US", "UTC");
  assert.equal(us.date(AT), "Dec 7, 2026");
  assert.equal(us.dateTime(AT), "Dec 7, 2026, 3:32 PM");
  assert.equal(us.time(AT), "3:32 PM");
  assert.equal(us.period("2026-12-07"), "Dec 7, 2026");
  assert.equal(us.period("2026-12"), "Dec 2026");
  const gb = dateFormats("en-GB", "UTC");
  assert.equal(gb.date(AT), "7 Dec 2026");
  assert.equal(gb.dateTime(AT), "7 Dec 2026, 15:32");
  assert.equal(gb.period("2026-12-07"), "7 Dec 2026");
  assert.equal(us.date(null), "—");
  assert.equal(us.dateTime(null, "never"), "never");
});

test("a list shows today's time and other days' dates, in the person's time zone", () => {
  const tokyo = dateFormats("en-US", "Asia/Tokyo");
  // 23:30 UTC on Dec 6 is 08:30 on Dec 7 in Tokyo: today there.
  const now = new Date("2026-12-07T10:00:00Z"); // 19:00 on Dec 7 in Tokyo
  assert.equal(tokyo.recent("2026-12-06T23:30:00Z", now), "8:30 AM");
  assert.equal(tokyo.recent("2026-12-06T14:00:00Z", now), "Dec 6, 2026");
  // A calendar day names no instant: it is the same day in every zone.
  assert.equal(dateFormats("en-US", "America/Los_Angeles").period("2026-12-07"), "Dec 7, 2026");
});

/** Every .ts/.tsx file under app/ but this module and tests. */
function appFiles(dir = path.join(import.meta.dirname, "..")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return appFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

test("no page formats a date on its own: they all use this module", () => {
  const own = [
    /\.toLocale(Date|Time)String\(/,
    /new Date\([^)]*\)\.toLocaleString\(/,
    /Intl\.DateTimeFormat/,
    /\.toDateString\(\)/,
    /\["Jan", "Feb"/,
  ];
  const offenders = appFiles()
    .filter((f) => !f.endsWith(path.join("_ui", "local-time.ts")))
    .flatMap((f) =>
      fs
        .readFileSync(f, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${path.relative(path.join(import.meta.dirname, ".."), f)}:${i + 1}` }))
        .filter(({ line }) => own.some((re) => re.test(line)))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
  assert.deepEqual(offenders, []);
});
