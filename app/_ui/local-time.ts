/**
 * Dates as the person reads them: in the browser's time zone and the browser's locale, one format on every
 * page (Intl's medium date, short time: "Nov 22, 2026, 9:30 AM" in en-US, "22 Nov 2026, 09:30" in en-GB).
 * Stored timestamps are UTC; their first characters are a UTC day, which is not the person's day near
 * midnight (and retrieval's date windows are the person's days: docs/retrieval.md#filtering-and-confidence).
 * The pages using them render fetched data in the browser; `<time>` elements also carry suppressHydrationWarning,
 * since a server-rendered pass would use the server's zone and locale.
 */
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The day in the browser's time zone and locale; "—" for none. */
export function localDate(iso: string | null | undefined): string {
  return iso ? DATE.format(new Date(iso)) : "—";
}

/** The day and time in the browser's time zone and locale; "—" for none. */
export function localDateTime(iso: string | null | undefined): string {
  return iso ? DATE_TIME.format(new Date(iso)) : "—";
}

// Debug Search shows what retrieval computed (its date windows, a result's time) as ISO-like text in the
// browser's zone ("2026-11-22 09:30"), to compare with the stored values and the API's answers.
const ISO_DATE = new Intl.DateTimeFormat("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit" });
const ISO_DATE_TIME = new Intl.DateTimeFormat("sv-SE", {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

/** "2026-11-22" in the browser's time zone (Debug Search); "—" for none. */
export function isoLocalDate(iso: string | null | undefined): string {
  return iso ? ISO_DATE.format(new Date(iso)) : "—";
}

/** "2026-11-22 09:30" in the browser's time zone (Debug Search); "—" for none. */
export function isoLocalDateTime(iso: string | null | undefined): string {
  return iso ? ISO_DATE_TIME.format(new Date(iso)) : "—";
}
