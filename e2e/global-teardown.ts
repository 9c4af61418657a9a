import fs from "node:fs";

/**
 * Remove the run's fresh data folder (set by playwright.config.ts) unless MEMO_E2E_KEEP_DATA=1, its test clock file, and the
 * per-run build folder of a local (non-CI) run.
 */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.MEMO_E2E_DATA_DIR;
  if (dir && process.env.MEMO_E2E_KEEP_DATA !== "1") fs.rmSync(dir, { recursive: true, force: true });
  const clock = process.env.MEMO_E2E_CLOCK_FILE;
  if (clock) fs.rmSync(clock, { force: true });
  const dist = process.env.MEMO_E2E_DIST_DIR;
  if (dist && /^\.next-e2e-\d+$/.test(dist)) fs.rmSync(dist, { recursive: true, force: true });
}
