/**
 * Calendar days in the person's time zone (minutes east of UTC, as requests send `tzOffsetMinutes`).
 * Stored timestamps are UTC; the day a person means by "yesterday", and the day a memory is dated in the
 * prompt, are their own.
 */

/** The zone to use when a request does not say: this server's at that instant (a local-first app runs where its person is). */
export function defaultOffsetMinutes(atMs: number = Date.now()): number {
  return -new Date(atMs).getTimezoneOffset();
}

/** The instant (ms) the calendar day holding `t` begins in a zone. */
export function localDayStart(t: number, offsetMinutes: number): number {
  const off = offsetMinutes * 60_000;
  return Math.floor((t + off) / 86_400_000) * 86_400_000 - off;
}

/** "2026-12-01": the calendar day of an instant in a zone. */
export function dayIn(at: string | number, offsetMinutes: number): string {
  const t = typeof at === "number" ? at : Date.parse(at);
  return new Date(t + offsetMinutes * 60_000).toISOString().slice(0, 10);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** "Tuesday, 2026-12-01": the day in a zone with its weekday (what "last Friday" needs). */
export function weekdayAndDay(at: number, offsetMinutes: number): string {
  return `${WEEKDAYS[new Date(at + offsetMinutes * 60_000).getUTCDay()]}, ${dayIn(at, offsetMinutes)}`;
}

/** "14:05": the time of day of an instant in a zone (24-hour clock). */
export function timeIn(at: string | number, offsetMinutes: number): string {
  const t = typeof at === "number" ? at : Date.parse(at);
  return new Date(t + offsetMinutes * 60_000).toISOString().slice(11, 16);
}
