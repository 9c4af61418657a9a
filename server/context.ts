import { getDb } from "./db";
import type { MemoContext } from "./core/context";
import { HttpEmbedClient } from "./embedder/client";
import { getEmbedder } from "./embedder/supervisor";

/**
 * The composition root: the process-wide store and the supervised embedding server, wired into the
 * MemoContext that core declares. It sits above core (whose types it fills) so that core imports neither
 * the db connection nor the embedder client; the use cases and everything above them call appContext().
 */
const g = globalThis as unknown as { __memoContext?: MemoContext };

/** The app's context: the process-wide store and supervised embedding server. */
export function appContext(): MemoContext {
  if (!g.__memoContext) {
    const sup = getEmbedder();
    const embedder = new HttpEmbedClient(() => sup.ensureHealthy(10_000), {
      onTransportError: () => sup.reportFailure(),
    });
    g.__memoContext = { db: getDb().sqlite, embedder, embedderStatus: () => sup.status() };
  }
  return g.__memoContext;
}

export function setAppContext(ctx: MemoContext | undefined): void {
  g.__memoContext = ctx;
}
