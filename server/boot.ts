import { getDb } from "./db";
import { getEmbedder } from "./embedder/supervisor";

/** Open (and migrate) the store, start the supervised embedding server, stop it on shutdown. */
export function boot(): void {
  getDb();
  const sup = getEmbedder();
  const shutdown = async () => {
    await sup.stop();
    process.exit(0);
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}
