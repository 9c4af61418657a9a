/**
 * The importer registry (docs/architecture.md#importers): what each import format does with a file.
 * parse → plan here (the whole-file check of a received file, and a Memo export's plan); then the shared
 * pipeline: import-jobs.ts queues the received file as a job, runner.ts reads it (job-reader.ts: a
 * conversation export as a stream), skips duplicates, embeds and writes it in batches. A conversation
 * format is also listed in job-reader.ts to be streamed. A new format is its entry in formats.ts,
 * its planner here (the Record type makes a missing one a compile error), its own file and its tests; the
 * route (`app/api/v1/import/[format]`), the proxy's exclusion, the Manager's form and the job list follow.
 */
import { DEFAULT_SPACE } from "../../core/space-name";
import { ServiceError } from "../../core/errors";
import { spaceName } from "../../core/validators";
import { mySpace } from "../../core/acting";
import { planExportImport, type ImportPlan } from "../transfer-service";
import { planChatGptImport } from "./chatgpt";
import { planClaudeImport } from "./claude";
import { IMPORT_FORMATS, type ImportFormatId } from "./formats";

/** Turns a JSON-parsed file into a plan for `space` (undefined: the format's default). Throws a 400 ServiceError; writes nothing. */
export type ImportPlanner = (data: unknown, space: string | undefined) => ImportPlan;

const PLANNERS: Record<ImportFormatId, ImportPlanner> = {
  memo: (data, space) => planExportImport(data, space),
  chatgpt: (data, space) => planChatGptImport(data, space ?? mySpace(DEFAULT_SPACE)),
  claude: (data, space) => planClaudeImport(data, space ?? mySpace(DEFAULT_SPACE)),
};

/** The space an import of this format writes to: the one asked for, else the format's default (null: as in the file). */
export function importTarget(format: ImportFormatId, space: string | undefined): string | null {
  if (space !== undefined) return space;
  return IMPORT_FORMATS[format].defaultSpace === null ? null : mySpace(DEFAULT_SPACE);
}

/**
 * Plan an import of this format for the acting person. The space (a name, or the person's key for it) is
 * checked first: a bad one is a 400 whatever the file.
 */
export function planImport(format: ImportFormatId, data: unknown, space: string | undefined): ImportPlan {
  const key = space === undefined ? undefined : spaceName.safeParse(space);
  if (key && !key.success) throw new ServiceError(400, "space must be 1–64 letters, digits, '-' or '_'");
  return PLANNERS[format](data, key?.data);
}
