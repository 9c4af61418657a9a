import * as chrono from "chrono-node";
import { localDayStart } from "../../core/calendar";

/** A span of time a query names, resolved against the turn's date. */
export interface TimeWindow {
  /** Inclusive bounds, ISO-8601 UTC. */
  start: string;
  end: string;
  /** The words that named it ("last week", "in May"). */
  text: string;
}

export interface TimeIntent {
  windows: TimeWindow[];
}

const DAY = 86_400_000;

/**
 * Dates a query names, parsed by chrono-node against `ref` (the turn's date) in the person's time zone
 * (`offsetMinutes` east of UTC). A day or month without a year that would lie after the turn is the year
 * before's. Each is a window of its granularity in the person's calendar: a day, a week around it, a month.
 */
export function parseTimeIntent(query: string, ref: Date, offsetMinutes = 0): TimeIntent {
  const windows: TimeWindow[] = [];
  const now = ref.getTime();
  const off = offsetMinutes * 60_000;
  const localDay = (t: number) => localDayStart(t, offsetMinutes);
  for (const r of chrono.parse(query, { instant: ref, timezone: offsetMinutes }, { forwardDate: false })) {
    let t = r.start.date().getTime();
    const yearKnown = r.start.isCertain("year");
    if (t > now + DAY && !yearKnown) {
      const d = r.start.date();
      d.setUTCFullYear(d.getUTCFullYear() - 1);
      t = d.getTime();
    }
    if (t > now + DAY) continue; // a plan, not a memory
    let start: number;
    let end: number;
    const text = r.text.toLowerCase();
    if (/\bweek/.test(text)) {
      start = localDay(t) - 3 * DAY;
      end = localDay(t) + 4 * DAY - 1;
    } else if (/\bfew days|couple of days|several days/.test(text)) {
      start = localDay(t) - 2 * DAY;
      end = localDay(t) + 3 * DAY - 1;
    } else if (r.start.isCertain("day") || r.start.isCertain("weekday")) {
      start = localDay(t);
      end = localDay(t) + DAY - 1;
    } else if (r.start.isCertain("month")) {
      // The month of the person's calendar: the UTC fields of the shifted instant are the local ones.
      const d = new Date(t + off);
      start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - off;
      end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - off - 1;
    } else continue;
    if (r.end) end = Math.max(end, localDay(r.end.date().getTime()) + DAY - 1);
    // A span that starts after the turn holds no memory: a plan ("tomorrow"), or a phrase the parser read
    // as one ("the day after" the concert, which it dates from today).
    if (start > now) continue;
    windows.push({
      start: new Date(start).toISOString(),
      end: new Date(Math.min(end, now + DAY)).toISOString(),
      text: r.text,
    });
  }
  return { windows };
}

/** Is this date inside one of the windows? */
export function inWindows(iso: string, windows: TimeWindow[]): TimeWindow | null {
  for (const w of windows) if (iso >= w.start && iso <= w.end) return w;
  return null;
}
