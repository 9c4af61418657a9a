/**
 * Caps on what one file may cost to parse, each a setting (environment variable) with a default that
 * every ordinary document passes: a crafted file fails with a reason naming the setting instead of
 * holding the server's event loop or its memory.
 */

export interface ParseLimits {
  /** Pages a PDF may have (MEMO_INGEST_MAX_PDF_PAGES). */
  maxPdfPages: number;
  /** Characters of text a file may yield (MEMO_INGEST_MAX_CHARS). */
  maxChars: number;
  /** Wall-clock budget for parsing one file, in ms (MEMO_INGEST_PARSE_SECONDS). */
  timeBudgetMs: number;
  /** Heap the parsing worker may use, in MB (MEMO_INGEST_PARSE_MEMORY_MB). */
  memoryMb: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxPdfPages: 2000,
  maxChars: 5_000_000,
  timeBudgetMs: 60_000,
  memoryMb: 512,
};

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  const v = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** The limits in force: each environment variable, else its default. */
export function parseLimits(): ParseLimits {
  const d = DEFAULT_PARSE_LIMITS;
  return {
    maxPdfPages: Math.floor(positive("MEMO_INGEST_MAX_PDF_PAGES", d.maxPdfPages)),
    maxChars: Math.floor(positive("MEMO_INGEST_MAX_CHARS", d.maxChars)),
    timeBudgetMs: positive("MEMO_INGEST_PARSE_SECONDS", d.timeBudgetMs / 1000) * 1000,
    memoryMb: Math.floor(positive("MEMO_INGEST_PARSE_MEMORY_MB", d.memoryMb)),
  };
}

/** 5000000 → "5,000,000" (the messages people read). */
export const count = (n: number) => n.toLocaleString("en-US");
