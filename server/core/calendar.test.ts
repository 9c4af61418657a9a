import assert from "node:assert/strict";
import { test } from "node:test";
import { dayIn, localDayStart, weekdayAndDay } from "./calendar";

test("a UTC instant's calendar day and weekday in the person's zone", () => {
  const at = "2026-03-10T03:30:00.000Z"; // Tuesday in UTC
  assert.equal(dayIn(at, 0), "2026-03-10");
  assert.equal(dayIn(at, -420), "2026-03-09", "20:30 on the 9th in California");
  assert.equal(dayIn(at, 540), "2026-03-10", "12:30 in Tokyo");
  assert.equal(new Date(localDayStart(Date.parse(at), -420)).toISOString(), "2026-03-09T07:00:00.000Z");
  assert.equal(new Date(localDayStart(Date.parse(at), 0)).toISOString(), "2026-03-10T00:00:00.000Z");
  assert.equal(weekdayAndDay(Date.parse(at), 0), "Tuesday, 2026-03-10");
  assert.equal(weekdayAndDay(Date.parse(at), -420), "Monday, 2026-03-09");
  assert.equal(weekdayAndDay(Date.parse("2026-03-10T23:30:00.000Z"), 840), "Wednesday, 2026-03-11");
});
