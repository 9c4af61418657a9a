import * as chrono from "chrono-node";
import { localDayStart } from "../../core/calendar";

/** A span of time a query names, resolved against the turn's date. */
export interface TimeWindow {
  /** Inclusive bounds, ISO-8601 UTC. */
  start: string;
  end: string;
  /** The words that named it ("last week", "in May"; "the day after" for a window relative to an event). */
  text: string;
  /** A window relative to an event ("the day after the concert"): the memory its date was taken from. */
  event?: { text: string; memoryId: string; at: string };
}

/** "the day after the concert": a span relative to an event, resolved against the space (event-dates.ts). */
export interface EventRelative {
  /** "the day after" */
  lead: string;
  unit: "day" | "night" | "morning" | "evening" | "week" | "month";
  relation: "after" | "before";
  /** "the concert", "I bought the guitar" */
  event: string;
}

export interface TimeIntent {
  windows: TimeWindow[];
  /** Spans relative to events, not yet dated; retrieval dates them from the memory that tells of the event. */
  events: EventRelative[];
}

const DAY = 86_400_000;
// "the day after" / "the week before" followed by an event ("the concert") is relative to that event, not to today.
const EVENT_RELATIVE = /\bthe (day|week|night|morning|evening|month) (after|before)$/i;
// The event runs to the end of the clause: punctuation, or a word that starts another clause.
const EVENT_SPAN =
  /\b(the (day|week|night|morning|evening|month) (after|before))\s+((?:(?!\b(?:and|but|so|when|what|which|who|where|did|do|was|were|is)\b)[^?.!,;:])+)/gi;

/**
 * Dates named in a query ("last week", "in May", "on June 3rd", "two days ago"), parsed with chrono-node
 * against `ref` (the turn's date, or the conversation's for imports) in the person's time zone
 * (`offsetMinutes` east of UTC). Dates never lie in the future of the turn: a month or day without a
 * year that would, is taken from the year before. Each becomes a window of its granularity, in the
 * person's calendar: a day ("yesterday" at 6 pm in California is the Californian yesterday, not a UTC
 * day that holds part of today), a week around the date, or a month.
 */
export function parseTimeIntent(query: string, ref: Date, offsetMinutes = 0): TimeIntent {
  const windows: TimeWindow[] = [];
  const now = ref.getTime();
  const off = offsetMinutes * 60_000;
  const localDay = (t: number) => localDayStart(t, offsetMinutes);
  for (const r of chrono.parse(query, { instant: ref, timezone: offsetMinutes }, { forwardDate: false })) {
    if (EVENT_RELATIVE.test(r.text.trim())) continue;
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
    windows.push({
      start: new Date(start).toISOString(),
      end: new Date(Math.min(end, now + DAY)).toISOString(),
      text: r.text,
    });
  }
  return { windows, events: eventRelatives(query) };
}

/** "the day after the concert", "the week before I moved": the lead, its unit and relation, the event's words. */
export function eventRelatives(query: string): EventRelative[] {
  const out: EventRelative[] = [];
  for (const m of query.matchAll(EVENT_SPAN)) {
    const event = m[4]!.trim();
    if (event.split(/\s+/).length > 12 || !/\p{L}{3}/u.test(event)) continue;
    out.push({
      lead: m[1]!,
      unit: m[2]!.toLowerCase() as EventRelative["unit"],
      relation: m[3]!.toLowerCase() as EventRelative["relation"],
      event,
    });
  }
  return out;
}

/**
 * The window of "the <unit> after/before" an event dated `at`. "The day after" is the next calendar day
 * and "the day before" the previous one, in the person's time zone (`offsetMinutes` east of UTC: the
 * rest of the event's own day is not "the day after"); "the night/morning/evening after" runs from just
 * after the event to the end of the next day; the week or month after (before) it. Never past `now`
 * plus a day.
 */
export function eventWindow(
  r: EventRelative,
  at: string,
  now: number,
  offsetMinutes = 0,
): { start: string; end: string } {
  const t = Date.parse(at);
  const localDay = localDayStart(t, offsetMinutes);
  const span = r.unit === "week" ? 7 * DAY : r.unit === "month" ? 31 * DAY : 0;
  let start: number;
  let end: number;
  if (r.unit === "day") {
    [start, end] = r.relation === "after" ? [localDay + DAY, localDay + 2 * DAY - 1] : [localDay - DAY, localDay - 1];
  } else if (span === 0) {
    [start, end] = r.relation === "after" ? [t + 1, localDay + 2 * DAY - 1] : [localDay - DAY, t - 1];
  } else {
    [start, end] = r.relation === "after" ? [t + 1, t + span] : [t - span, t - 1];
  }
  return { start: new Date(start).toISOString(), end: new Date(Math.min(end, now + DAY)).toISOString() };
}

/** The words that named a window: "in May", or "the day after the concert" for an event's. */
export function windowWords(w: TimeWindow): string {
  return w.event ? `${w.text} ${w.event.text}` : w.text;
}

/** Is this date inside one of the windows? */
export function inWindows(iso: string, windows: TimeWindow[]): TimeWindow | null {
  for (const w of windows) if (iso >= w.start && iso <= w.end) return w;
  return null;
}

/** The words of the query that only name a date ("last week"), to keep them out of the keyword leg's matching. */
export function dateWords(intent: TimeIntent): string[] {
  return intent.windows.flatMap((w) => w.text.toLowerCase().split(/\s+/));
}
