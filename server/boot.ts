import { getDb } from "./db";
import { getEmbedder } from "./embedder/supervisor";
import { stopAnnIndex } from "./memory/ann-index";
import { boundModel } from "./memory/store";
import { startVectorIndex } from "./services/memory-service";

/**
 * Open (and migrate) the store, start building the vector index for the recorded model, start the
 * supervised embedding server; on shutdown save the index and stop the embedder.
 */
export function boot(): void {
  const { sqlite } = getDb();
  const bound = boundModel(sqlite);
  if (bound) startVectorIndex(sqlite, bound.dim);
  const sup = getEmbedder();
  const shutdown = async () => {
    stopAnnIndex(sqlite);
    await sup.stop();
    process.exit(0);
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
