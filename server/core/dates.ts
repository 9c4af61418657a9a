/**
 * The dates Memo keeps (issue 58): years 0001 to 9999, UTC. Inside this range a date's ISO form is fixed-width
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), so stored times sort and compare as text, SQLite's date functions read them,
 * and every computation on them (a day either side, a time zone, a year's window) stays a valid JavaScript
 * date. JavaScript itself reads years up to ±275760, where one more day is an "Invalid time value": one
 * such memory used to fail search and recall for its whole space. Every way a date comes in checks it here.
 */

export const EARLIEST_DATE = "0001-01-01T00:00:00.000Z";
export const LATEST_DATE = "9999-12-31T23:59:59.999Z";
export const EARLIEST_MS = Date.parse(EARLIEST_DATE);
export const LATEST_MS = Date.parse(LATEST_DATE);

/** The refusal, naming the field: the same words on every input path. */
export const dateRangeMessage = (field: string) => `${field} must be a date between 0001-01-01 and 9999-12-31 (UTC)`;

/** True when `ms` is a time Memo keeps. */
export function isKeptTime(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_MS && ms <= LATEST_MS;
}

/** A date given as text or milliseconds → its ISO form, or null when it is no date or outside the kept range. */
export function keptIso(v: string | number): string | null {
  const ms = typeof v === "number" ? v : v.length <= 64 ? Date.parse(v) : Number.NaN;
  return isKeptTime(ms) ? new Date(ms).toISOString() : null;
}

/**
 * True when a stored value is a time Memo can compute with: what read paths check before they do, so a row
 * written before the range existed (or by hand) is skipped and logged instead of failing the whole answer.
 */
export function isReadableStoredTime(v: unknown): v is string {
  return typeof v === "string" && v.length <= 64 && isKeptTime(Date.parse(v));
}

const loggedRows = new Set<string>();

/** Log, once per row, that a row's time could not be read and the row was left out of an answer; false, for filters. */
export function logUnreadableTime(what: string, id: string, value: unknown): false {
  const key = `${what}:${id}`;
  if (loggedRows.has(key)) return false;
  if (loggedRows.size > 10_000) loggedRows.clear();
  loggedRows.add(key);
  console.warn(
    `[dates] left ${what} ${id} out: its time ${JSON.stringify(String(value).slice(0, 40))} is outside 0001–9999 (it is repaired at the next start)`,
  );
  return false;
}
