/**
 * First start online: when the nomic-embed-text-v1.5 GGUF is missing, download it in the background
 * while Memo serves on the bundled model; when it is verified, switch the embedding server to it and let
 * the store re-index (server/memory/index/reindex-job.ts) with progress. The banner on every page reads
 * modelDownloadStatus(). Offline (or MEMO_OFFLINE=1) it says so within seconds and changes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { modelsDir } from "../core/config";
import { DownloadError, downloadModel, type DownloadProgress } from "../embedder/download";
import { NOMIC_GGUF, nomicGgufPresent } from "../embedder/models";
import { getEmbedder, type EmbedderSupervisor } from "../embedder/supervisor";
import { activeModel } from "../memory/index/model-check";
import { appContext } from "../context";
import type { MemoContext } from "../core/context";

export type ModelDownloadPhase =
  /** Nothing to download: a nomic GGUF is there, or MEMO_EMBED_MODEL names the model. */
  | "not_needed"
  /** MEMO_OFFLINE=1: no attempt. */
  | "skipped"
  | "offline"
  | "downloading"
  | "verifying"
  /** Verified; the embedding server is being restarted on it. */
  | "switching"
  | "done"
  | "failed";

export interface ModelDownloadStatus {
  phase: ModelDownloadPhase;
  model: string;
  url: string;
  done: number;
  total: number | null;
  bytesPerSec: number;
  etaSec: number | null;
  /** For people: why nothing happens, what failed, or what was done. */
  message: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface DownloadDeps {
  /** Serve the downloaded file (default: restart the app's embedding server on it, then reconcile the store). */
  switchTo?: (file: string) => Promise<void>;
  log?: (msg: string) => void;
  /** Defaults for tests: a shorter backoff. */
  backoffMs?: number;
}

const g = globalThis as unknown as {
  __memoModelDownload?: { status: ModelDownloadStatus; running: Promise<void> | null; abort: AbortController | null };
};

function initial(): ModelDownloadStatus {
  return {
    phase: "not_needed",
    model: NOMIC_GGUF.name,
    url: source().url,
    done: 0,
    total: null,
    bytesPerSec: 0,
    etaSec: null,
    message: null,
    startedAt: null,
    finishedAt: null,
  };
}

function state() {
  return (g.__memoModelDownload ??= { status: initial(), running: null, abort: null });
}

/** MEMO_MODEL_URL / MEMO_MODEL_SHA256 override the pinned source (a mirror; tests). */
function source(): { url: string; sha256: string; bytes: number | null; dest: string } {
  const url = process.env.MEMO_MODEL_URL || NOMIC_GGUF.url;
  const sha256 = (process.env.MEMO_MODEL_SHA256 || NOMIC_GGUF.sha256).toLowerCase();
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
  const file = /^nomic-embed-text-v1\.5.*\.gguf$/i.test(name) ? name : NOMIC_GGUF.file;
  return {
    url,
    sha256,
    bytes: sha256 === NOMIC_GGUF.sha256 ? NOMIC_GGUF.bytes : null,
    dest: path.join(modelsDir(), file),
  };
}

export function modelDownloadStatus(): ModelDownloadStatus {
  return { ...state().status };
}

/** Whether the download should run at all, and if not, why (null: it should). */
function reasonNotToDownload(): { phase: ModelDownloadPhase; message: string | null } | null {
  if (process.env.MEMO_EMBED_MODEL)
    return {
      phase: "not_needed",
      message: `MEMO_EMBED_MODEL=${process.env.MEMO_EMBED_MODEL} chooses the embedding model`,
    };
  if (nomicGgufPresent()) return { phase: "not_needed", message: null };
  if (process.env.MEMO_OFFLINE === "1") {
    return {
      phase: "skipped",
      message: `MEMO_OFFLINE=1: ${NOMIC_GGUF.name} is not downloaded; run \`npm run models:pull\` when online`,
    };
  }
  return null;
}

/**
 * Start the background download when the nomic GGUF is missing (boot calls this once). Returns the
 * running download, or null when there is nothing to do.
 */
export function startModelDownload(deps: DownloadDeps = {}): Promise<void> | null {
  const st = state();
  if (st.running) return st.running;
  const skip = reasonNotToDownload();
  if (skip) {
    st.status = { ...initial(), phase: skip.phase, message: skip.message };
    return null;
  }
  const log = deps.log ?? ((m: string) => console.info(`[models] ${m}`));
  const src = source();
  const abort = new AbortController();
  st.abort = abort;
  st.status = {
    ...initial(),
    url: src.url,
    phase: "downloading",
    total: src.bytes,
    startedAt: new Date().toISOString(),
    message: "connecting…",
  };
  const set = (patch: Partial<ModelDownloadStatus>) => (st.status = { ...st.status, ...patch });
  log(
    `no ${NOMIC_GGUF.name} GGUF in ${modelsDir()}: downloading it in the background from ${src.url} (serving the bundled model meanwhile)`,
  );
  let lastLogged = -1;
  const onProgress = (p: DownloadProgress) => {
    set({
      phase: p.phase === "verifying" ? "verifying" : "downloading",
      done: p.done,
      total: p.total,
      bytesPerSec: p.bytesPerSec,
      etaSec: p.etaSec,
      message: p.phase === "verifying" ? "verifying sha256…" : null,
    });
    const decile = p.total ? Math.floor((p.done / p.total) * 10) : -1;
    if (decile > lastLogged) {
      lastLogged = decile;
      log(`download ${decile * 10}% (${(p.done / 1048576).toFixed(1)} MB)`);
    }
  };
  st.running = (async () => {
    try {
      const r = await downloadModel({
        url: src.url,
        dest: src.dest,
        sha256: src.sha256,
        expectedBytes: src.bytes,
        onProgress,
        log,
        signal: abort.signal,
        backoffMs: deps.backoffMs,
      });
      set({
        phase: "switching",
        done: r.bytes,
        total: r.bytes,
        etaSec: 0,
        message: `verified (sha256 ${r.sha256.slice(0, 12)}…); switching the embedding server to it`,
      });
      log(`saved and verified ${r.path}; switching the embedding server to it`);
      await (deps.switchTo ?? switchAppEmbedder)(r.path);
      set({
        phase: "done",
        finishedAt: new Date().toISOString(),
        message: `now serving ${NOMIC_GGUF.name}; stored memories are re-indexed in the background`,
      });
    } catch (e) {
      const offline = e instanceof DownloadError && e.kind === "offline";
      const msg = e instanceof Error ? e.message : String(e);
      set({ phase: offline ? "offline" : "failed", finishedAt: new Date().toISOString(), message: msg });
      log(offline ? `${msg}: staying on the bundled offline model` : `download failed: ${msg}`);
    } finally {
      st.running = null;
      st.abort = null;
    }
  })();
  return st.running;
}

/** "Try again" after a failure or going online: a new attempt (resuming the kept `.part`). */
export function retryModelDownload(deps: DownloadDeps = {}): ModelDownloadStatus {
  const st = state();
  if (!st.running && st.status.phase !== "done") startModelDownload(deps);
  return modelDownloadStatus();
}

/** Stop a running download (shutdown); the `.part` stays for the next start. */
export async function stopModelDownload(): Promise<void> {
  const st = state();
  st.abort?.abort();
  await st.running?.catch(() => undefined);
}

/** Forget the state (tests). */
export function resetModelDownloadState(): void {
  g.__memoModelDownload = undefined;
}

/**
 * The app's switch: restart the supervised embedding server on the new GGUF, then reconcile the store
 * (binds an empty store; a store holding the old model's vectors starts its background re-index).
 */
function switchAppEmbedder(file: string): Promise<void> {
  return switchEmbedder(appContext(), getEmbedder(), file);
}

export async function switchEmbedder(ctx: MemoContext, sup: EmbedderSupervisor, file: string): Promise<void> {
  if (!fs.existsSync(file)) throw new Error(`${file} vanished before the switch`);
  const resettable = ctx.embedder as { reset?: () => void };
  resettable.reset?.();
  await sup.switchModel({ kind: "gguf", path: file, reason: "downloaded in the background at start" });
  resettable.reset?.();
  await sup.ensureHealthy(180_000);
  await activeModel(ctx);
}
