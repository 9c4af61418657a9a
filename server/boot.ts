import { getDb } from "./db";
import { getEmbedder } from "./embedder/supervisor";
import { stopAnnIndex } from "./memory/index/ann-registry";
import { boundModel } from "./memory/store";
import { startVectorIndex } from "./memory/index/model-check";
import { appContext } from "./context";
import { startScheduler } from "./jobs/scheduler";
import { startIngestQueue } from "./ingest/queue";
import { persistQueue, recoverOnStart } from "./chat/exchange-queue";
import { stopLocalChatServer } from "./chat/local-server";
import { onShutdownSignal, shutdown } from "./ops/shutdown";
import { embedRequestsDone } from "./embedder/client";
import { startModelDownload, stopModelDownload } from "./services/model-download-service";
import { getLocalDetector } from "./chat/detect-local";
import { resolveProviderConfig, sealStoredProviderKeys, sectionValue } from "./chat/providers";
import { secretKey } from "./core/secret-box";
import { warnIfPromptLogging } from "./chat/prompt-log";
import { sweepTemporaryChats } from "./chat/temporary-chats";
import { resumePendingScrub } from "./db/scrub";
import { repairStoredTimes } from "./memory/store/stored-times";
import { factLearner, startFactLearner } from "./chat/fact-learner";
import { importRunner, startImportRunner } from "./services/import-jobs";
import { planOffThread } from "./http/import-plan-thread";

/**
 * Open (and migrate) the store, start building the vector index for the recorded model, start the
 * supervised embedding server; on shutdown save the index and stop the embedder.
 */
export function boot(): void {
  const { sqlite } = getDb();
  // The key that seals provider keys at rest (data/secret.key, 0600): made at first start; a key saved in
  // plain text by an older version is sealed now.
  secretKey();
  sealStoredProviderKeys(sqlite);
  // A person's removal that stopped before its scrub of the store's files (server/db/scrub.ts) finishes it.
  resumePendingScrub(sqlite);
  // Times Memo cannot compute with (stored before input was checked, or by hand) are repaired and logged:
  // one such memory used to fail search and recall for its whole space (issue 58).
  repairStoredTimes(sqlite);
  const bound = boundModel(sqlite);
  if (bound) startVectorIndex(sqlite, bound.dim);
  const sup = getEmbedder();
  // Background jobs (decay, consolidation; re-index on a model change): node-cron, once per process.
  const scheduler = startScheduler({ context: appContext, log: console.info });
  // Document ingestion: resume unfinished documents after a restart, or fail them cleanly.
  const ingest = startIngestQueue();
  // Chat exchanges that never became memories (the app stopped mid-persist): write them now.
  recoverOnStart();
  // Learning facts (docs/facts.md): jobs the last process left running are queued again; the runner starts.
  startFactLearner();
  // Imports (issue 55): jobs the last process left queued or running resume from their stored cursor.
  startImportRunner((format, bytes, space) => planOffThread(format, bytes, space));
  // Online with no nomic GGUF: download it in the background (the bundled model serves meanwhile), then
  // switch to it and re-index. Offline or MEMO_OFFLINE=1: says so in the banner and changes nothing.
  void startModelDownload();
  // No chat provider configured: look for Ollama / LM Studio / llama-server on loopback (a configured
  // provider always wins, and then the ports are left alone).
  getLocalDetector().start(sqlite, () => {
    const c = resolveProviderConfig(sqlite);
    return (
      !c.active.value ||
      c.active.source === "detected" ||
      (c.active.value !== null && sectionValue(c, c.active.value, "baseUrl").source === "detected")
    );
  });
  warnIfPromptLogging();
  // Temporary chats whose tab closed (no heartbeat) or whose 24 h passed: deleted within a minute.
  sweepTemporaryChats(sqlite);
  const sweeper = setInterval(() => {
    try {
      sweepTemporaryChats(sqlite);
    } catch (e) {
      console.error("[chat] could not delete expired temporary chats:", e instanceof Error ? e.message : e);
    }
  }, 60_000);
  sweeper.unref();
  // SIGTERM/SIGINT: finish or stop in-flight work within bounded time, save the index, close the store.
  onShutdownSignal((signal) =>
    shutdown(
      {
        db: sqlite,
        stopIngest: () => ingest.stop(),
        stopScheduler: () => (
          clearInterval(sweeper),
          Promise.all([scheduler.stop(), factLearner().stop(), importRunner().stop()]).then(() => undefined)
        ),
        drainPersist: () => persistQueue().drain(),
        embedIdle: embedRequestsDone,
        saveIndex: () => stopAnnIndex(sqlite),
        stopChildren: () => Promise.all([sup.stop(), stopLocalChatServer(), stopModelDownload()]).then(() => undefined),
      },
      signal,
    ),
  );
}
