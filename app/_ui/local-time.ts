/**
 * Dates as the person reads them, the one place the app formats a date (every page imports from here;
 * local-time.test.ts fails when a page formats one on its own). In the browser's time zone and locale, one
 * format: Intl's medium date, with the short time where the moment matters ("Nov 22, 2026, 9:30 AM" in en-US,
 * "22 Nov 2026, 09:30" in en-GB); a day or month of a chart in the same style ("Nov 22, 2026", "Nov 2026").
 * Stored timestamps are UTC; their first characters are a UTC day, which is not the person's day near
 * midnight (and retrieval's date windows are the person's days: docs/retrieval.md#filtering-and-confidence).
 * The pages using them render fetched data in the browser; `<time>` elements also carry suppressHydrationWarning,
 * since a server-rendered pass would use the server's zone and locale.
 */

/** The formats for a locale and time zone (undefined: the browser's). Tests pass both to pin them. */
export function dateFormats(locale?: string, timeZone?: string) {
  const DATE = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone });
  const DATE_TIME = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone });
  const TIME = new Intl.DateTimeFormat(locale, { timeStyle: "short", timeZone });
  // A calendar day or month ("2026-11-22", "2026-11") names no instant: formatted in UTC, it never shifts a day.
  const DAY = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const MONTH = new Intl.DateTimeFormat(locale, { month: "short", year: "numeric", timeZone: "UTC" });
  const DAY_KEY = new Intl.DateTimeFormat("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit", timeZone });
  const ISO_DATE_TIME = new Intl.DateTimeFormat("sv-SE", {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
  });
  const at = (iso: string | number | Date) => new Date(iso);
  return {
    /** The day: "Nov 22, 2026"; `none` for no date. */
    date: (iso: string | null | undefined, none = "—") => (iso ? DATE.format(at(iso)) : none),
    /** The day and time: "Nov 22, 2026, 9:30 AM"; `none` for no date. */
    dateTime: (iso: string | null | undefined, none = "—") => (iso ? DATE_TIME.format(at(iso)) : none),
    /** The time of day: "9:30 AM". */
    time: (iso: string | number | Date) => TIME.format(at(iso)),
    /** A list's column: the time for today, the day before that ("9:30 AM", "Nov 21, 2026"). */
    recent: (iso: string, now: Date = new Date()) =>
      DAY_KEY.format(at(iso)) === DAY_KEY.format(now) ? TIME.format(at(iso)) : DATE.format(at(iso)),
    /** A calendar day or month of a chart ("2026-11-22" → "Nov 22, 2026", "2026-11" → "Nov 2026"); other text as is. */
    period: (p: string): string => {
      const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(p);
      if (!m) return p;
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : 1));
      return m[3] ? DAY.format(d) : MONTH.format(d);
    },
    isoDate: (iso: string | null | undefined) => (iso ? DAY_KEY.format(at(iso)) : "—"),
    isoDateTime: (iso: string | null | undefined) => (iso ? ISO_DATE_TIME.format(at(iso)) : "—"),
  };
}

const BROWSER = dateFormats();

/** The day in the browser's time zone and locale; `none` ("—") for none. */
export const localDate = BROWSER.date;
/** The day and time in the browser's time zone and locale; `none` ("—") for none. */
export const localDateTime = BROWSER.dateTime;
/** The time of day in the browser's time zone and locale. */
export const localTime = BROWSER.time;
/** The time for today, else the day: a list's column (the chat list). */
export const recentDate = BROWSER.recent;
/** A chart's calendar day or month, in the same style as every other date. */
export const periodLabel = BROWSER.period;

// Debug Search shows what retrieval computed (its date windows, a result's time) as ISO-like text in the
// browser's zone ("2026-11-22 09:30"), to compare with the stored values and the API's answers.
/** "2026-11-22" in the browser's time zone (Debug Search); "—" for none. */
export const isoLocalDate = BROWSER.isoDate;
/** "2026-11-22 09:30" in the browser's time zone (Debug Search); "—" for none. */
export const isoLocalDateTime = BROWSER.isoDateTime;
