import { getDb } from "./db";
import { getEmbedder } from "./embedder/supervisor";
import { stopAnnIndex } from "./memory/ann-index";
import { boundModel } from "./memory/store";
import { appContext, startVectorIndex } from "./services/memory-service";
import { startScheduler } from "./jobs/scheduler";
import { startIngestQueue } from "./ingest/queue";
import { recoverOnStart } from "./chat/persist";
import { stopLocalChatServer } from "./chat/local-server";

/**
 * Open (and migrate) the store, start building the vector index for the recorded model, start the
 * supervised embedding server; on shutdown save the index and stop the embedder.
 */
export function boot(): void {
  const { sqlite } = getDb();
  const bound = boundModel(sqlite);
  if (bound) startVectorIndex(sqlite, bound.dim);
  const sup = getEmbedder();
  // Background jobs (decay, consolidation; re-index on a model change): node-cron, once per process.
  startScheduler({ context: appContext, log: console.info });
  // Document ingestion: resume unfinished documents after a restart, or fail them cleanly.
  startIngestQueue();
  // Chat exchanges that never became memories (the app stopped mid-persist): write them now.
  recoverOnStart();
  const shutdown = async () => {
    stopAnnIndex(sqlite);
    await Promise.all([sup.stop(), stopLocalChatServer()]);
    process.exit(0);
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
