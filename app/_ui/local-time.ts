/**
 * Dates as the person reads them: in the browser's time zone, ISO-like ("2026-11-22 09:30"). Stored
 * timestamps are UTC; their first characters are a UTC day, which is not the person's day near midnight
 * (and retrieval's date windows are the person's days: docs/retrieval.md#filtering-and-confidence).
 * The pages using them render fetched data in the browser; `<time>` elements also carry suppressHydrationWarning,
 * since a server-rendered pass would use the server's zone.
 */
const DATE = new Intl.DateTimeFormat("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit" });
const DATE_TIME = new Intl.DateTimeFormat("sv-SE", {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
});

/** "2026-11-22" in the browser's time zone; "—" for none. */
export function localDate(iso: string | null | undefined): string {
  return iso ? DATE.format(new Date(iso)) : "—";
}

/** "2026-11-22 09:30" in the browser's time zone; "—" for none. */
export function localDateTime(iso: string | null | undefined): string {
  return iso ? DATE_TIME.format(new Date(iso)) : "—";
}
