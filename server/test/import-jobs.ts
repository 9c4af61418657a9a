/**
 * TEST SUPPORT: queue an import job as the import route does after receiving its file — the file written
 * to a temporary folder, the job a row, worked by the process's import runner on `ctx` (set as the app's
 * context) — and wait for it. The real services throughout; only the HTTP receive is skipped.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { MemoContext } from "../core/context";
import { setAppContext } from "../context";
import type { ImportFormatId } from "../services/import/formats";
import { enqueueImportFile, type ImportJob, waitForImport } from "../services/import-jobs";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "memo-import-test-"));

/** Write `data` (JSON, or text as is) to a file and queue it; returns the job at once. */
export function queueImport(
  ctx: MemoContext,
  kind: ImportFormatId,
  data: unknown,
  space: string | null = kind === "memo" ? null : "personal",
  label = "conversations.json",
): ImportJob {
  setAppContext(ctx);
  const id = crypto.randomUUID();
  const file = path.join(folder, `${id}.json`);
  fs.writeFileSync(file, typeof data === "string" ? data : JSON.stringify(data));
  return enqueueImportFile(ctx.db, { id, kind, label, space, file, bytesTotal: fs.statSync(file).size });
}

/** Queue and wait for the job to finish. */
export async function importAndWait(
  ctx: MemoContext,
  kind: ImportFormatId,
  data: unknown,
  space?: string | null,
): Promise<ImportJob> {
  return waitForImport(ctx.db, queueImport(ctx, kind, data, space).id);
}

/** Queue an existing file (the job removes it when it ends). */
export function queueImportFile(
  ctx: MemoContext,
  kind: ImportFormatId,
  file: string,
  space: string | null = "personal",
): ImportJob {
  setAppContext(ctx);
  return enqueueImportFile(ctx.db, {
    id: crypto.randomUUID(),
    kind,
    label: path.basename(file),
    space,
    file,
    bytesTotal: fs.statSync(file).size,
  });
}

/** A fresh file path in the test's temporary folder. */
export function tempImportPath(name = "export"): string {
  return path.join(folder, `${name}-${crypto.randomUUID()}.json`);
}
