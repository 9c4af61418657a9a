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
 * before's. Each is a window in the person's calendar: a named day, a named month, or a counted day widened.
 */
export function parseTimeIntent(query: string, ref: Date, offsetMinutes = 0): TimeIntent {
  const windows: TimeWindow[] = [];
  const now = ref.getTime();
  const off = offsetMinutes * 60_000;
  const localDay = (t: number) => localDayStart(t, offsetMinutes);
  const parse = (at: Date) => chrono.parse(query, { instant: at, timezone: offsetMinutes }, { forwardDate: false });
  const later = parse(new Date(now + DAY));
  for (const r of parse(ref)) {
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
    // A day counted back from the turn ("yesterday", "last week") lies a day later when parsed a day later.
    // People count back loosely in proportion to the distance: its window reaches half of it either side.
    const moved = later.find((x) => x.index === r.index && x.text === r.text);
    if (moved && moved.start.date().getTime() - r.start.date().getTime() === DAY && r.start.isCertain("day")) {
      const half = Math.floor(Math.max(0, Math.round((localDay(now) - localDay(t)) / DAY)) / 2) * DAY;
      start = localDay(t) - half;
      end = localDay(t) + half + DAY - 1;
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
