/**
 * A document's progress as the ingest page shows it. The label says how far the current step is (counting the
 * text's tokens, then embedding its chunks, each 0–100 %); the bar says how far the whole is, each step half of
 * it, so the bar never goes back when counting ends and embedding starts at 0 %.
 */
export interface ProgressInput {
  status: "queued" | "processing" | "done" | "failed" | "cancelled";
  chunksTotal: number;
  chunksDone: number;
  stage: { name: "reading" | "counting" | "embedding"; done: number; total: number } | null;
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
