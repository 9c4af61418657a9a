/**
 * What a new person needs to see: the embedding model in use (and why), the background download and
 * re-index, the chat provider (configured, detected or none), the local GGUFs, the engines (CPU or which
 * GPU build) and where the data lives. Feeds the banner on every page, the first-run checklist and
 * Settings → Models.
 */
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { z } from "zod";
import { acting, actingPersonId, mineScan } from "../core/acting";
import { dataDir, dbPath } from "../core/config";
import { storageProblem } from "../core/storage-fault";
import { getLocalDetector, type DetectionStatus } from "../chat/detect-local";
import { listLocalGgufs, type LocalGguf } from "../chat/local-models";
import { currentLocalChatServer } from "../chat/local-server";
import { providerFamily, providerStatus, type ProviderId, type Source } from "../chat/providers";
import { reindexStatus, type ShownReindexProgress } from "../memory/index/reindex-job";
import { modelDownloadStatus, type ModelDownloadStatus } from "./model-download-service";
import type { MemoContext } from "../core/context";
import { writeSetting } from "../core/settings-store";
import { loadSetting } from "../core/settings-load";
import { hasFinishedImport } from "./import/job-rows";

const CHECKLIST_KEY = "ui.firstRunChecklist";
/** The first-run checklist's saved state (read through the one loader, like every setting). */
export const checklistSchema = z.object({ dismissed: z.boolean().default(false) });
/** node-llama-cpp's prebuilt GPU builds (optional packages; present when they installed for this machine). */
const GPU_BUILDS = [
  "linux-x64-cuda",
  "linux-x64-cuda-ext",
  "linux-x64-vulkan",
  "mac-arm64-metal",
  "win-x64-cuda",
  "win-x64-vulkan",
];

export interface SetupStatus {
  embedder: {
    status: string;
    model: string | null;
    dim: number | null;
    engine: string | null;
    fallback: boolean;
    reason: string | null;
  };
  download: ModelDownloadStatus;
  reindex: { active: boolean; progress: ShownReindexProgress | null };
  chat: {
    provider: ProviderId | null;
    label: string | null;
    model: string | null;
    source: Source;
    ready: boolean;
    problem: string | null;
    localEngine: string | null;
  };
  detection: DetectionStatus;
  localModels: LocalGguf[];
  engines: { embedder: string | null; chat: string | null; gpuBuildsInstalled: string[]; gpuEnv: string | null };
  checklistDismissed: boolean;
  /** "Import your history": done once an import of the person's has finished (or its memories or chats are here). */
  imports: ImportProgressOfPerson;
  /**
   * Where the data folder and the store are, for an admin (who runs the machine and its backups); null for a
   * member, who has no use for the server's paths (issue 58: their card says how to keep their own copy).
   */
  data: { dir: string; db: string } | null;
  /** Why writes cannot be saved (data folder read-only or full), or null: the app shows it in a banner. */
  storageProblem: string | null;
}

export interface ImportProgressOfPerson {
  done: boolean;
}

/**
 * Has the acting person imported their history? A finished import job of theirs says so (a row, kept
 * across restarts); so does an imported conversation of theirs (what an import leaves in the store). The query
 * reads the partial index on conversations.import_source, not every conversation.
 */
export function importProgress(db: Database.Database): ImportProgressOfPerson {
  const stored =
    db
      .prepare(`SELECT 1 FROM conversations WHERE import_source IS NOT NULL AND ${mineScan("space_id")} LIMIT 1`)
      .get() !== undefined;
  return { done: stored || hasFinishedImport(db, actingPersonId()) };
}

export function checklistDismissed(db: Database.Database): boolean {
  return loadSetting(db, CHECKLIST_KEY, checklistSchema, { dismissed: false }).dismissed;
}

export function setChecklistDismissed(db: Database.Database, dismissed: boolean): void {
  writeSetting(db, CHECKLIST_KEY, { dismissed });
}

function installedGpuBuilds(): string[] {
  const root = path.join(/* turbopackIgnore: true */ process.cwd(), "node_modules", "@node-llama-cpp");
  return GPU_BUILDS.filter((b) => fs.existsSync(path.join(root, b)));
}

export function setupStatus(ctx: MemoContext): SetupStatus {
  const db = ctx.db;
  const e = ctx.embedderStatus?.();
  const p = providerStatus(db);
  const active = p.providers.find((x) => x.id === p.active) ?? null;
  const local = currentLocalChatServer()?.status() ?? null;
  const ri = reindexStatus(db);
  return {
    embedder: {
      status: e?.status ?? "unknown",
      model: e?.model ?? null,
      dim: e?.dim ?? null,
      engine: e?.engine ?? null,
      fallback: e?.fallback ?? false,
      reason: e?.modelReason ?? null,
    },
    download: modelDownloadStatus(),
    reindex: { active: ri.active, progress: ri.progress },
    chat: {
      provider: p.active,
      label: p.active ? providerFamily(p.active).label : null,
      model: active?.model ?? null,
      source: p.activeSource,
      ready: p.ready,
      problem: p.problem,
      localEngine: local?.engine ?? null,
    },
    detection: getLocalDetector().status(db),
    localModels: listLocalGgufs(),
    engines: {
      embedder: e?.engine ?? null,
      chat: local?.engine ?? null,
      gpuBuildsInstalled: installedGpuBuilds(),
      gpuEnv: process.env.MEMO_LLAMA_GPU ?? null,
    },
    checklistDismissed: checklistDismissed(db),
    imports: importProgress(db),
    data: acting().admin ? { dir: dataDir(), db: dbPath() } : null,
    storageProblem: storageProblem(db.name)?.message ?? null,
  };
}
