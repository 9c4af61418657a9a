/**
 * How long ingesting a file takes here, said before its upload: from the seconds per MB measured on this
 * store's finished documents (server/ingest/ingest-rate.ts, the same work whose rate the progress bar's time
 * left is measured on), per kind of file. With nothing measured yet the page says so instead of guessing.
 */
export interface MeasuredRate {
  secondsPerMB: number;
  documents: number;
}
export type Rates = { text: MeasuredRate | null; pdf: MeasuredRate | null };

/** "about 40 s", "about 3 min", "about 1 h 20 min". */
export function roughDuration(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `about ${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `about ${m} min` : `about ${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}`;
}

/** How long a file of this size and kind takes here, or null when nothing of its kind was measured yet. */
export function estimateFor(bytes: number, pdf: boolean, rates: Rates | undefined): string | null {
  const r = pdf ? rates?.pdf : rates?.text;
  return r ? roughDuration((bytes / 1048576) * r.secondsPerMB) : null;
}

/** The Ingest page's line about speed, before anything is chosen. */
export function speedLine(rates: Rates | undefined): string {
  const part = (r: MeasuredRate, what: string) =>
    `${what} takes ${roughDuration(r.secondsPerMB)} per MB (measured on ${r.documents} document${r.documents === 1 ? "" : "s"})`;
  const said = [rates?.text && part(rates.text, "Markdown or text"), rates?.pdf && part(rates.pdf, "a PDF")].filter(
    Boolean,
  );
  if (said.length === 0)
    return "No document has been ingested here yet with this embedding model, so how long one takes is not known: the first one's progress shows its rate.";
  return `Here ${said.join("; ")}.`;
}
