/**
 * A document's progress as the ingest page shows it: the bar and its label say one figure, how far the whole
 * is (counting the text's tokens is the first half, embedding its chunks the second), so the bar never goes
 * back when counting ends and embedding starts, and the label never says 0 % beside a half-full bar. The
 * label adds which step runs and its own count ("embedding 0 / 804 chunks").
 */
export interface ProgressInput {
  status: "queued" | "processing" | "done" | "failed" | "cancelled";
  chunksTotal: number;
  chunksDone: number;
  stage: { name: "reading" | "counting" | "embedding"; done: number; total: number } | null;
  queuePosition?: number | null;
}

/** How far the current step is, 0–100. */
export function stepPercent(doc: ProgressInput): number {
  if (doc.status === "done") return 100;
  const stage = doc.status === "processing" ? doc.stage : null;
  if (stage && stage.total > 0) return Math.floor((stage.done / stage.total) * 100);
  return doc.chunksTotal > 0 ? Math.floor((doc.chunksDone / doc.chunksTotal) * 100) : 0;
}

/** How far the whole document is, 0–100: counting is the first half, embedding the second. */
export function overallPercent(doc: ProgressInput): number {
  if (doc.status === "done") return 100;
  const stage = doc.status === "processing" ? doc.stage : null;
  const step = stepPercent(doc);
  if (stage?.name === "counting") return Math.floor(step / 2);
  if (stage?.name === "embedding") return 50 + Math.floor(step / 2);
  return step;
}

/** Whether the file is still being read (no figure yet: the bar pulses). */
export function isReading(doc: ProgressInput): boolean {
  return doc.status === "processing" && (!doc.stage || doc.stage.name === "reading" || doc.stage.total === 0);
}

/**
 * The bar's label: the same percentage as the bar, then the step and its own count, then the time left
 * (`left`, null while there is no rate to go by).
 */
export function progressLabel(doc: ProgressInput, left: string | null): string {
  if (doc.status === "done") return `${doc.chunksTotal} chunk${doc.chunksTotal === 1 ? "" : "s"}`;
  if (doc.status === "queued") return doc.queuePosition ? `queued · ${doc.queuePosition} ahead` : "queued";
  if (isReading(doc)) return "reading the file…";
  const time = left ?? "estimating time left…";
  const pct = overallPercent(doc);
  return doc.stage?.name === "counting"
    ? `${pct}% · step 1 of 2: counting tokens · ${time}`
    : `${pct}% · step 2 of 2: embedding ${doc.chunksDone} / ${doc.chunksTotal} chunks · ${time}`;
}
