import type Database from "better-sqlite3";
import { getMeta, setMeta } from "../core/meta";

/**
 * How long ingesting takes on this machine, measured: each document that finishes with all its chunks
 * embedded by its own run (none found already stored, which would make it look fast) adds its bytes and its
 * time (reading, counting, embedding and writing: IngestStats.timings.totalMs) to a running figure per kind of
 * file (text or PDF: a PDF's bytes are mostly not text) and per embedding model (another model is another
 * speed). The Ingest page says it before an upload ("about 2 min per MB"); with nothing measured it says so.
 * Kept in the store's meta table, so it survives a restart.
 */

export type RateKind = "text" | "pdf";

export interface MeasuredRate {
  /** Seconds one MB (1,048,576 bytes) of such files took, recent documents weighing more. */
  secondsPerMB: number;
  /** Documents it was measured on. */
  documents: number;
}

interface Stored {
  model: string;
  rates: Partial<Record<RateKind, MeasuredRate>>;
}

const KEY = "ingest_rate";
/** A new document's share of the running figure: the last few documents decide it. */
const WEIGHT = 0.5;
/** Files this small are mostly fixed costs (a request, a transaction): they would say nothing about a MB. */
const MIN_BYTES = 4096;

export const rateKind = (kind: string): RateKind => (kind === "pdf" ? "pdf" : "text");

function read(db: Database.Database): Stored | null {
  const raw = getMeta(db, KEY);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Stored;
    return typeof v?.model === "string" && v.rates && typeof v.rates === "object" ? v : null;
  } catch {
    return null;
  }
}

/** Add one finished document to the measured rate of its kind. */
export function recordIngestRate(
  db: Database.Database,
  m: { model: string; kind: string; bytes: number; ms: number },
): void {
  if (m.bytes < MIN_BYTES || !(m.ms > 0)) return;
  const prev = read(db);
  const rates = prev?.model === m.model ? prev.rates : {};
  const kind = rateKind(m.kind);
  const sample = m.ms / 1000 / (m.bytes / 1048576);
  const old = rates[kind];
  rates[kind] = old
    ? { secondsPerMB: old.secondsPerMB * (1 - WEIGHT) + sample * WEIGHT, documents: old.documents + 1 }
    : { secondsPerMB: sample, documents: 1 };
  setMeta(db, KEY, JSON.stringify({ model: m.model, rates } satisfies Stored));
}

/** The measured rates for this embedding model: null for a kind nothing was measured on yet. */
export function ingestRates(db: Database.Database, model: string | null): Record<RateKind, MeasuredRate | null> {
  const s = read(db);
  const rates = s && model && s.model === model ? s.rates : {};
  return { text: rates.text ?? null, pdf: rates.pdf ?? null };
}
